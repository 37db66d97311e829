"""Two more assembly mistakes: one model's split on another scale that puts every test item below every
member, and a fill value standing in for items that failed to score."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jecs_core as jc
from jecs_core.checks import data_warnings
from jecs_core.checks.splits import FILL_MIN_ROWS, FILL_SHARE, compare_splits

REAL = Path(__file__).resolve().parents[3] / "sample_data" / "real" / "wiki_smollm2_k8.csv"


@pytest.fixture(scope="module")
def real() -> pd.DataFrame:
    return pd.read_csv(REAL)


def _warnings(frame: pd.DataFrame) -> list[str]:
    return data_warnings(jc.table_from_frame(frame))


def test_one_models_test_split_in_percent_is_named(real):
    frame = real.copy()
    test = frame["split"] == "test"
    frame.loc[test, "score_ft02"] *= 100  # log-likelihoods: x100 puts every test item below every member
    check = compare_splits(jc.table_from_frame(frame))
    assert check.mirrored_models == ("ft02",)
    table = jc.table_from_frame(frame)
    expected = (table.test < table.calibration.min(axis=0)).mean(axis=0)  # the share, counted directly
    np.testing.assert_allclose(check.below_all, expected)
    lines = [w for w in _warnings(frame) if "below every calibration member" in w]
    assert len(lines) == 1 and "ft02 100.0%" in lines[0] and "153x" in lines[0]


def test_a_perfect_detector_on_a_clean_benchmark_is_no_mistake():
    rng = np.random.default_rng(1)
    m, n, K = 100, 300, 3  # every model puts every test item below every member, spreads 30x apart
    scores = np.r_[rng.normal(3, 0.1, (m, K)), rng.normal(-5, 3, (n, K))]
    frame = pd.DataFrame({"item_id": [f"i{j}" for j in range(m + n)], "split": ["calibration"] * m + ["test"] * n})
    for k in range(K):
        frame[f"score_m{k}"] = scores[:, k]
    check = compare_splits(jc.table_from_frame(frame))
    assert min(check.below_all) > 0.99 and check.mirrored_models == ()


def test_one_far_stronger_loss_column_is_no_mistake():
    rng = np.random.default_rng(0)
    m, n = 500, 5_000  # members packed tightly near 0, non-members far below: 95% of test items under every member
    member = rng.random(n) < 0.05
    frame = pd.DataFrame({"item_id": [f"i{j}" for j in range(m + n)], "split": ["calibration"] * m + ["test"] * n,
                          "score_m0": np.r_[rng.normal(-0.05, 0.03, m),
                                            np.where(member, rng.normal(-0.05, 0.03, n), rng.normal(-2.5, 0.8, n))]})
    for k in range(1, 4):  # weaker detectors
        frame[f"score_m{k}"] = np.r_[rng.normal(1, 1, m), np.where(member, rng.normal(1, 1, n), rng.normal(0.8, 1, n))]
    check = compare_splits(jc.table_from_frame(frame))
    assert check.below_all[0] > 0.9 and check.spread_ratio[0] > 10 and check.mirrored_models == ()


def test_the_bundled_tables_have_no_mirrored_model_and_no_fill_value(real):
    for frame in (real, pd.read_csv(REAL.parents[1] / "synthetic_k4.csv")):
        check = compare_splits(jc.table_from_frame(frame))
        assert check.mirrored_models == () and check.fill_values == ()


@pytest.mark.parametrize(("split", "value", "rows"), [("test", -999.0, slice(None, None, 9)),
                                                       ("calibration", -999.0, slice(0, 40)),
                                                       ("calibration", -1.25, slice(0, 120))])  # inside the range
def test_a_fill_value_is_named_with_its_split_and_count(real, split, value, rows):
    frame = real.copy()
    index = frame.index[frame["split"] == split][rows]
    frame.loc[index, "score_ft04"] = value
    check = compare_splits(jc.table_from_frame(frame))
    assert check.fill_values == (("ft04", split, value, len(index), int((frame["split"] == split).sum())),)
    line = next(w for w in _warnings(frame) if "failed to score" in w)
    assert line.startswith(f"warning: model ft04: {len(index):,} of its") and f"{split} scores are {value!r}" in line


@pytest.mark.parametrize("clip", ["low", "high"])
def test_clipped_scores_pile_at_their_edge_without_being_fill_values(clip):
    rng = np.random.default_rng(4)  # max(0, N(0.5, 1)) or min(1, ...): a pile at the edge, no gap beside it
    raw = rng.normal(0.5, 1, (2_300, 2))
    scores = np.maximum(raw, 0.0) if clip == "low" else np.minimum(raw, 1.0)
    frame = pd.DataFrame({"item_id": [f"i{j}" for j in range(2_300)], "split": ["calibration"] * 300 + ["test"] * 2_000,
                          "score_a": scores[:, 0], "score_b": rng.normal(0, 1, 2_300)})
    assert compare_splits(jc.table_from_frame(frame)).fill_values == ()


def test_copied_items_are_left_to_the_duplicate_check(real):
    frame = real.copy()
    test = frame.index[frame["split"] == "test"]
    score_columns = [c for c in frame if c.startswith("score_")]
    frame.loc[test[1:40], score_columns] = frame.loc[test[0], score_columns].to_numpy()  # 40 copies of one item
    assert compare_splits(jc.table_from_frame(frame)).fill_values == ()


def test_discrete_scores_repeat_without_being_fill_values():
    rng = np.random.default_rng(2)  # counts: every value repeats, so none stands out
    scores = rng.poisson(4, (500, 2)).astype(float)
    frame = pd.DataFrame({"item_id": [f"i{j}" for j in range(500)], "split": ["calibration"] * 200 + ["test"] * 300,
                          "score_a": scores[:, 0], "score_b": scores[:, 1]})
    assert compare_splits(jc.table_from_frame(frame)).fill_values == ()


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), filled=st.integers(0, 60), n=st.integers(100, 400))
def test_a_fill_value_is_named_exactly_when_it_holds_enough_rows(seed, filled, n):
    rng = np.random.default_rng(seed)
    m = 150
    scores = rng.normal(0, 1, (m + n, 2))
    scores[m:m + filled, 1] = -999.0  # continuous scores: only the fill value repeats
    frame = pd.DataFrame({"item_id": [f"i{j}" for j in range(m + n)], "split": ["calibration"] * m + ["test"] * n,
                          "score_a": scores[:, 0], "score_b": scores[:, 1]})
    found = compare_splits(jc.table_from_frame(frame)).fill_values
    enough = filled >= max(FILL_MIN_ROWS, FILL_SHARE * n)
    assert found == ((("b", "test", -999.0, filled, n),) if enough else ())
