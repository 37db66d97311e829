"""Conformal p-values: brute-force reference, value set and exact validity."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

import jecs_core._pvalue_kernel as conformal_mod
from jecs_core import conformal_pvalues
from jecs_core.conformal import ordered_keys


def brute_force(test, cal):
    n, k = test.shape
    m = cal.shape[0]
    out = np.empty((n, k))
    for i in range(n):
        for j in range(k):
            out[i, j] = (1 + sum(cal[row, j] <= test[i, j] for row in range(m))) / (m + 1)
    return out


scores = st.floats(-5, 5, allow_nan=False).map(lambda x: round(x, 1))  # rounding creates ties


@given(
    st.integers(1, 4).flatmap(
        lambda k: st.tuples(
            arrays(float, st.tuples(st.integers(1, 12), st.just(k)), elements=scores),
            arrays(float, st.tuples(st.integers(1, 12), st.just(k)), elements=scores),
        )
    )
)
def test_matches_brute_force_and_value_set(pair):
    test, cal = pair
    p = conformal_pvalues(test, cal)
    np.testing.assert_allclose(p, brute_force(test, cal), rtol=0, atol=1e-15)
    m = cal.shape[0]
    grid = np.arange(1, m + 2) / (m + 1)
    assert np.isin(np.round(p * (m + 1)), np.arange(1, m + 2)).all()
    assert p.min() >= grid[0] - 1e-15 and p.max() <= 1.0


@pytest.mark.parametrize("n, m, k", [(130_000, 300, 16), (100_000, 20_000, 2)])
def test_large_inputs_take_the_fast_paths_and_agree(n, m, k):
    # (130k x 16) crosses the threading cut-off; the second case stays serial.
    rng = np.random.default_rng(0)
    test = np.round(rng.standard_normal((n, k)), 2)  # rounding keeps ties in play
    cal = np.round(rng.standard_normal((m, k)), 2)
    p = conformal_pvalues(test, cal)
    ref = (1 + np.array([np.searchsorted(np.sort(cal[:, j]), test[:, j], side="right") for j in range(k)]).T) / (m + 1)
    np.testing.assert_array_equal(p, ref)
    randomized = conformal_pvalues(test, cal, rng=np.random.default_rng(1))
    assert np.all(randomized <= p) and np.all(randomized > 0)


@given(
    st.integers(1, 5).flatmap(
        lambda k: st.tuples(
            arrays(float, st.tuples(st.integers(1, 40), st.just(k)), elements=scores),
            arrays(float, st.tuples(st.integers(1, 40), st.just(k)), elements=scores),
            st.sampled_from(["C", "F"]),
            st.integers(0, 2**32 - 1),
        )
    )
)
def test_threaded_path_is_bit_identical_to_the_serial_path(case):
    test, cal, order, seed = case
    test = np.asarray(test, order=order)
    serial = conformal_pvalues(test, cal)
    serial_random = conformal_pvalues(test, cal, rng=np.random.default_rng(seed))
    threshold = conformal_mod._PARALLEL_MIN_CELLS
    conformal_mod._PARALLEL_MIN_CELLS = 0  # every input takes the thread pool
    try:
        threaded = conformal_pvalues(test, cal)
        threaded_random = conformal_pvalues(test, cal, rng=np.random.default_rng(seed))
    finally:
        conformal_mod._PARALLEL_MIN_CELLS = threshold
    assert np.array_equal(serial, threaded) and np.array_equal(serial_random, threaded_random)
    np.testing.assert_array_equal(serial, brute_force(test, cal))


@given(
    st.integers(1, 3).flatmap(
        lambda k: st.tuples(
            arrays(float, st.tuples(st.integers(0, 12), st.just(k)), elements=scores | st.sampled_from([0.0, -0.0, 1e308])),
            arrays(float, st.tuples(st.integers(1, 60), st.just(k)), elements=scores | st.sampled_from([0.0, -0.0, -1e308])),
        )
    )
)
def test_ranking_the_test_scores_gives_the_sorted_calibration_p_values(pair):
    """Both deterministic paths (sort the calibration column, or rank the test column) agree bit for bit."""
    test, cal = pair
    kept = conformal_mod._RANK_TEST_FROM, conformal_mod._ranking_pays
    try:
        conformal_mod._ranking_pays = True  # whatever this machine's probe would say
        conformal_mod._RANK_TEST_FROM = 0  # every column with a test row ranks its test scores
        ranked = conformal_pvalues(test, cal)
        conformal_mod._RANK_TEST_FROM = 10**9  # every column sorts its calibration scores
        sorted_cal = conformal_pvalues(test, cal)
    finally:
        conformal_mod._RANK_TEST_FROM, conformal_mod._ranking_pays = kept
    np.testing.assert_array_equal(ranked, sorted_cal)
    np.testing.assert_array_equal(ranked, brute_force(test, cal))


@pytest.mark.parametrize("pays", [True, False])
def test_many_more_calibration_rows_than_test_rows_rank_the_test_scores_where_ranking_pays(monkeypatch, pays):
    rng = np.random.default_rng(3)
    test, cal = np.round(rng.standard_normal((2_000, 2)), 2), rng.standard_normal((60_000, 2))
    calls = []
    real = conformal_mod.count_at_most_unsorted
    monkeypatch.setattr(conformal_mod, "count_at_most_unsorted", lambda *a: calls.append(1) or real(*a))
    monkeypatch.setattr(conformal_mod, "_ranking_pays", pays)
    p = conformal_pvalues(test, cal)
    assert len(calls) == (2 if pays else 0)  # one per column, where ranking pays on this machine
    ref = (1 + np.array([np.searchsorted(np.sort(cal[:, j]), test[:, j], side="right") for j in range(2)]).T) / 60_001
    np.testing.assert_array_equal(p, ref)
    conformal_pvalues(test[:1_000], cal[:2_000])  # m = 2n: the calibration columns are sorted
    assert len(calls) == (2 if pays else 0)


def test_the_ranking_probe_times_both_ways_once(monkeypatch):
    import jecs_core._probe as probe

    timed = []
    monkeypatch.setattr(probe, "_seconds", lambda work: timed.append(work()) or 1.0)
    monkeypatch.setattr(conformal_mod, "_ranking_pays", None)
    assert conformal_mod.ranking_pays() is False  # equal times: the plain way is kept
    assert len(timed) == 2 * probe.ROUNDS
    np.testing.assert_array_equal(timed[0], timed[1])  # the probe's two ways count alike
    assert conformal_mod.ranking_pays() is False and len(timed) == 2 * probe.ROUNDS


any_finite = st.floats(allow_nan=False, allow_infinity=False, allow_subnormal=True)


@given(arrays(float, st.integers(1, 40), elements=any_finite | st.sampled_from([0.0, -0.0, 5e-324, -5e-324])))
def test_ordered_keys_sort_and_tie_as_the_floats(values):
    keys = ordered_keys(values)
    assert np.array_equal(np.less.outer(keys, keys), np.less.outer(values, values))
    assert np.array_equal(np.equal.outer(keys, keys), np.equal.outer(values, values))


@given(
    arrays(float, st.tuples(st.integers(1, 15), st.just(2)), elements=any_finite | st.sampled_from([0.0, -0.0])),
    arrays(float, st.tuples(st.integers(1, 15), st.just(2)), elements=any_finite | st.sampled_from([0.0, -0.0])),
)
def test_extreme_magnitudes_and_signed_zeros_match_brute_force(test, cal):
    np.testing.assert_array_equal(conformal_pvalues(test, cal), brute_force(test, cal))


def test_exactly_uniform_under_exchangeability():
    # m + 1 exchangeable distinct scores: each is the test item with probability 1/(m+1);
    # the p-value must then take each value j/(m+1) exactly once.
    rng = np.random.default_rng(4)
    for m in (1, 2, 7, 30):
        values = rng.standard_normal(m + 1)
        ps = []
        for i in range(m + 1):
            cal = np.delete(values, i)
            ps.append(conformal_pvalues(values[i : i + 1], cal)[0, 0])
        np.testing.assert_allclose(np.sort(ps), np.arange(1, m + 2) / (m + 1))


def test_ties_make_deterministic_pvalues_super_uniform():
    rng = np.random.default_rng(5)
    m = 9
    values = rng.integers(0, 3, m + 1).astype(float)  # heavy ties
    ps = np.array([conformal_pvalues(values[i : i + 1], np.delete(values, i))[0, 0] for i in range(m + 1)])
    for t in np.arange(1, m + 2) / (m + 1):
        assert np.mean(ps <= t + 1e-12) <= t + 1e-12


def test_randomized_ties_uniform():
    rng = np.random.default_rng(6)
    reps, m = 2000, 19
    cal = rng.integers(0, 4, (reps, m)).astype(float)
    test = rng.integers(0, 4, reps).astype(float)
    p = np.array([conformal_pvalues(test[r : r + 1], cal[r], rng=rng)[0, 0] for r in range(reps)])
    # Exactly Unif(0, 1) in theory; a KS test at this size catches an off-by-one tie rule.
    assert stats.kstest(p, "uniform").pvalue > 0.001
    deterministic = np.array([conformal_pvalues(test[r : r + 1], cal[r])[0, 0] for r in range(reps)])
    assert deterministic.mean() > p.mean() + 0.05  # ties push the deterministic form up


def test_randomized_bounds_and_reproducible():
    rng = np.random.default_rng(7)
    test, cal = rng.integers(0, 3, (50, 2)).astype(float), rng.integers(0, 3, (20, 2)).astype(float)
    a = conformal_pvalues(test, cal, rng=np.random.default_rng(1))
    b = conformal_pvalues(test, cal, rng=np.random.default_rng(1))
    np.testing.assert_array_equal(a, b)
    det = conformal_pvalues(test, cal)
    assert np.all(a <= det + 1e-15) and np.all(a > 0)


def test_m_equals_one_and_one_dimensional_input():
    p = conformal_pvalues(np.array([0.0, 2.0]), np.array([1.0]))
    np.testing.assert_allclose(p, [[0.5], [1.0]])


def test_errors_name_the_argument():
    with pytest.raises(ValueError, match="calibration_scores has 3"):
        conformal_pvalues(np.zeros((2, 2)), np.zeros((2, 3)))
    with pytest.raises(ValueError, match="test_scores must be finite"):
        conformal_pvalues(np.array([[np.nan]]), np.zeros((2, 1)))
    for cells in ([np.inf, -np.inf], [1.0, -np.inf], [np.nan, 1e308]):  # a sum that is not finite, then the cell
        with pytest.raises(ValueError, match="calibration_scores must be finite; found (-?inf|nan) at row [01]"):
            conformal_pvalues(np.zeros((2, 1)), np.array(cells)[:, None])
    huge = np.array([[1e308], [1e308]])  # a sum past float64, of finite cells: accepted
    np.testing.assert_array_equal(conformal_pvalues(huge, huge), [[1.0], [1.0]])
    with pytest.raises(ValueError, match="at least one row"):
        conformal_pvalues(np.zeros((2, 1)), np.zeros((0, 1)))
    with pytest.raises(ValueError, match="rng"):
        conformal_pvalues(np.zeros((2, 1)), np.zeros((2, 1)), rng=3)


scores32 = st.floats(-4, 4, width=32) | st.sampled_from([0.0, -0.0, 1.5, 3.4e38, -3.4e38])


@given(
    st.integers(1, 3).flatmap(
        lambda k: st.tuples(
            arrays(np.float32, st.tuples(st.integers(1, 30), st.just(k)), elements=scores32),
            arrays(np.float32, st.tuples(st.integers(1, 30), st.just(k)), elements=scores32),
            st.integers(0, 2**32 - 1),
        )
    )
)
def test_float32_scores_give_the_p_values_of_their_float64_widening(case):
    # float32 scores are compared as float32 (no widened copy); every comparison, so every count, is the same.
    test, cal, seed = case
    wide_test, wide_cal = test.astype(float), cal.astype(float)
    p = conformal_pvalues(test, cal)
    np.testing.assert_array_equal(p, conformal_pvalues(wide_test, wide_cal))
    np.testing.assert_array_equal(p, brute_force(wide_test, wide_cal))
    np.testing.assert_array_equal(conformal_pvalues(test, wide_cal), p)  # mixed precisions
    np.testing.assert_array_equal(conformal_pvalues(test, cal, rng=np.random.default_rng(seed)),
                                  conformal_pvalues(wide_test, wide_cal, rng=np.random.default_rng(seed)))


@pytest.mark.parametrize(("n", "m", "k"), [(130_000, 300, 16), (3_000, 60_000, 2), (20_000, 20_000, 1)])
def test_float32_tables_on_every_path(monkeypatch, n, m, k):
    # Threaded, ranked (forced where this machine's probe would not) and table paths, with float32's own ties.
    monkeypatch.setattr(conformal_mod, "_ranking_pays", True)
    rng = np.random.default_rng(n)
    test, cal = rng.standard_normal((n, k)).astype(np.float32), rng.standard_normal((m, k)).astype(np.float32)
    p = conformal_pvalues(test, cal)
    assert p.dtype == np.float64
    np.testing.assert_array_equal(p, conformal_pvalues(test.astype(float), cal.astype(float)))
    ref = (1 + np.array([np.searchsorted(np.sort(cal[:, j]), test[:, j], side="right") for j in range(k)]).T) / (m + 1)
    np.testing.assert_array_equal(p, ref)


def test_frames_whose_column_names_match_as_text_are_matched_by_name():
    rng = np.random.default_rng(8)
    test = pd.DataFrame(rng.normal(size=(6, 2)), columns=[0, 1])
    cal = pd.DataFrame(rng.normal(size=(9, 2)), columns=["1", "0"])
    np.testing.assert_array_equal(conformal_pvalues(test, cal),
                                  conformal_pvalues(test.to_numpy(), cal[["0", "1"]].to_numpy()))
    with pytest.raises(ValueError, match="same model columns, each once"):
        conformal_pvalues(test, pd.DataFrame(np.zeros((3, 2)), columns=["0", 0]))
