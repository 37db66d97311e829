"""The reversed-score check's pair counts, on each of its paths, against the all-pairs definition."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jecs_core as jc
from jecs_core.checks import score_direction
from jecs_core.checks.direction import _BUCKETS_FROM, _aucs, _aucs_from_pvalues
from jecs_core.conformal import conformal_pvalues


def _pairs(test, calibration):
    t, c = test[:, None], calibration[None, :]
    return ((t > c) + 0.5 * (t == c)).mean()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), m=st.sampled_from([1, 7, _BUCKETS_FROM - 1, _BUCKETS_FROM, 3000]),
       n=st.integers(1, 300), decimals=st.sampled_from([0, 1, 3]))
def test_aucs_equal_the_share_of_pairs_on_ties_and_both_paths(seed, m, n, decimals):
    rng = np.random.default_rng(seed)
    calibration = rng.normal(size=(m, 2)).round(decimals)
    test = np.r_[rng.normal(0.5, 1, size=(n, 2)).round(decimals), calibration[: min(n, m) // 2]]
    ordered = np.sort(calibration.T, axis=1)
    got = _aucs(test, ordered)
    from_pvalues = _aucs_from_pvalues(test, ordered, conformal_pvalues(test, calibration))
    for k in range(2):
        assert got[k] == _pairs(test[:, k], calibration[:, k]) == from_pvalues[k]


def test_scores_beyond_the_calibration_range_and_infinite_queries():
    calibration = np.linspace(-1, 1, 2000)
    test = np.array([-np.inf, -5.0, 0.0, 5.0, np.inf])
    got = _aucs(test[:, None], calibration[None, :])[0]
    assert got == _pairs(test, calibration)
    finite = np.array([-5.0, -1.0, 0.0, 1.0, 5.0])  # the p-value path takes finite scores only, as the table does
    ties = np.r_[calibration, [5.0, 5.0, -5.0]]  # the extremes tied too
    p = conformal_pvalues(finite[:, None], ties[:, None])
    assert _aucs_from_pvalues(finite[:, None], np.sort(ties)[None, :], p)[0] == _pairs(finite, ties)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(1, 60), n=st.integers(1, 60), K=st.integers(1, 3),
       high=st.sampled_from([2, 5, 1000]))
def test_the_check_reads_the_same_counts_from_the_plain_pvalues(seed, m, n, K, high):
    # Small integer scores: most test scores tie a calibration score.
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.integers(0, high, size=(m + n, K)), columns=[f"score_{k}" for k in range(K)])
    frame.insert(0, "split", ["calibration"] * m + ["test"] * n)
    frame.insert(0, "item_id", [f"i{j}" for j in range(m + n)])
    table = jc.table_from_frame(frame)
    assert score_direction(table, pvalues=jc.table_pvalues(table)) == score_direction(table)


def test_pvalues_of_another_shape_are_refused_by_name():
    frame = pd.DataFrame({"item_id": ["a", "b", "c", "d"], "split": ["calibration", "calibration", "test", "test"],
                          "score_x": [1.0, 2.0, 3.0, 0.0]})
    table = jc.table_from_frame(frame)
    with pytest.raises(ValueError, match=r"pvalues must have the table's shape \(n, K\) = \(2, 1\)"):
        score_direction(table, pvalues=np.ones((3, 1)))


@pytest.mark.parametrize("block", [1, 4, 64])
def test_row_blocks_give_the_counts_of_one_pass(monkeypatch, block):
    # The counts of each block add up to the whole column's (sums of whole numbers: exact in float64).
    import jecs_core._blocks as blocks

    rng = np.random.default_rng(block)
    calibration = rng.normal(size=(2500, 3)).round(1)
    test = np.r_[rng.normal(0.3, 1, size=(150, 3)).round(1), calibration[:20]]
    ordered = np.sort(calibration.T, axis=1)
    p = conformal_pvalues(test, calibration)
    monkeypatch.setattr(blocks, "BLOCK_ROWS", block)
    got, from_pvalues = _aucs(test, ordered), _aucs_from_pvalues(test, ordered, p)
    for k in range(3):
        assert got[k] == _pairs(test[:, k], calibration[:, k]) == from_pvalues[k]
