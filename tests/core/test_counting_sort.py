"""The max-p counting sort returns ``np.sort``'s array on every path (grid, hash, plain sort)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jecs_core.selection import fit_jecs


@pytest.fixture(autouse=True)
def _counting_chosen(monkeypatch):
    # These tests check the counting paths, whichever way this machine's probe would choose.
    import jecs_core._counting_sort as shared

    monkeypatch.setattr(shared, "_counting_pays", True)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 400), distinct=st.integers(1, 6) | st.integers(1, 500),
       zeros=st.booleans(), small=st.booleans())
def test_the_counting_sort_equals_numpy_sort(seed, n, distinct, zeros, small):
    # Small thresholds send these sizes down the counting path whenever the sample repeats.
    import jecs_core._counting_sort as shared

    rng = np.random.default_rng(seed)
    values = rng.integers(1, distinct + 1, n) / (distinct + 1)
    if zeros:
        values[rng.integers(0, n, 3)] = [0.0, -0.0, 0.0]
    if small:
        values = values * 1e-300  # subnormal and tiny positive values
    kept = shared._COUNTING_FROM, shared._SAMPLE
    shared._COUNTING_FROM, shared._SAMPLE = 1, 16
    try:
        got = shared.sorted_values(values)
    finally:
        shared._COUNTING_FROM, shared._SAMPLE = kept
    expected = np.sort(values)
    np.testing.assert_array_equal(got, expected)
    assert np.array_equal(np.signbit(got), np.signbit(expected))


def test_each_kind_of_values_takes_its_path(monkeypatch):
    # Grid values are counted on the grid, repeated values off any grid through the hash pass, and
    # values that do not repeat are sorted; every path gives np.sort's array.
    import pandas as pd

    import jecs_core._counting_sort as shared

    calls = []
    factorize, on_grid = pd.factorize, shared._counted_on_grid
    monkeypatch.setattr(pd, "factorize", lambda *a, **k: calls.append("hash") or factorize(*a, **k))
    monkeypatch.setattr(shared, "_counted_on_grid", lambda *a: calls.append("grid") or on_grid(*a))
    monkeypatch.setattr(shared, "_COUNTING_FROM", 100)
    rng = np.random.default_rng(3)
    cases = {
        "grid": rng.integers(1, 1002, 5000) / 1001,  # conformal p-values, m = 1000
        "half grid": 2 * rng.integers(1, 40, 5000) / 82,  # every other value of the grid of 82: read as k / 41
        "repeated, off grid": rng.choice([0.1, np.pi / 10, np.e / 10, 0.7], 5000),
        "varied": rng.uniform(0.01, 1, 5000),
    }
    paths = {}
    for name, values in cases.items():
        calls.clear()
        np.testing.assert_array_equal(shared.sorted_values(values), np.sort(values))
        paths[name] = tuple(calls)
    assert paths == {"grid": ("grid",), "half grid": ("grid",), "repeated, off grid": ("grid", "hash"), "varied": ()}


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(1, 3000), used=st.integers(1, 40), stray=st.booleans(),
       block=st.sampled_from([7, 256, 1 << 16]), short_grid=st.booleans())
def test_values_on_a_grid_count_to_numpy_sort(seed, d, used, stray, block, short_grid):
    # A few grid values, many grid values, a stray value off the grid in any row block (the hash
    # pass takes over); the grid check goes block by block, so short blocks are checked too, and
    # grids are counted per block (short) or through one array of grid indices (long).
    import jecs_core._blocks as blocks
    import jecs_core._counting_sort as shared

    rng = np.random.default_rng(seed)
    values = rng.choice(np.arange(1, d + 1), size=used)[rng.integers(0, used, 3000)] / d
    if stray:
        values[rng.integers(0, values.size)] = 0.5 / d + 1e-9
    kept = shared._COUNTING_FROM, blocks.BLOCK_ROWS, shared.BLOCK_COUNTS
    shared._COUNTING_FROM, blocks.BLOCK_ROWS = 1, block
    shared.BLOCK_COUNTS = 1 << 16 if short_grid else 0
    try:
        got = shared.sorted_values(values)
    finally:
        shared._COUNTING_FROM, blocks.BLOCK_ROWS, shared.BLOCK_COUNTS = kept
    np.testing.assert_array_equal(got, np.sort(values))


@pytest.mark.filterwarnings("error")
def test_extreme_magnitudes_are_sorted_without_a_warning(monkeypatch):
    import jecs_core._counting_sort as shared

    monkeypatch.setattr(shared, "_COUNTING_FROM", 1)
    rng = np.random.default_rng(0)
    for choices in ([1e300, 2e300, 3e300], [1e-320, 2e-320], [5.0, 7.5, 1e6], [0.25, 0.5, 0.75, 1.0]):
        values = rng.choice(choices, 1000)
        np.testing.assert_array_equal(shared.sorted_values(values), np.sort(values))


def test_fit_jecs_counts_the_sort_it_is_not_given(monkeypatch):
    # Conformal-like max-p values on a grid, long enough to be counted: the fit sorts them itself,
    # by counting, and fits what it fits on numpy's sort.
    import jecs_core._counting_sort as shared

    calls = []
    on_grid = shared._counted_on_grid
    monkeypatch.setattr(shared, "_counted_on_grid", lambda *a: calls.append("grid") or on_grid(*a))
    rng = np.random.default_rng(5)
    p_max = np.maximum(rng.integers(1, 202, 40_000), rng.integers(1, 202, 40_000)) / 201
    p_max[:4000] = rng.integers(1, 5, 4000) / 201  # some clean items
    fitted, given_sort = fit_jecs(p_max), fit_jecs(p_max, sorted_p_max=np.sort(p_max))
    assert calls == ["grid"]
    np.testing.assert_array_equal(fitted.sorted_p_max, given_sort.sorted_p_max)
    for alpha in (0.05, 0.1, 0.2):
        np.testing.assert_array_equal(fitted.select(alpha).selected, given_sort.select(alpha).selected)


@pytest.mark.parametrize(("sort_s", "count_s", "expected"), [(1.0, 0.5, True), (1.0, 0.85, False), (1.0, 3.0, False)])
def test_the_probe_keeps_counting_only_where_it_is_clearly_faster(monkeypatch, sort_s, count_s, expected):
    import jecs_core._counting_sort as shared
    import jecs_core._probe as probe

    timed = []

    def seconds(work):
        result = work()
        assert result.size == shared._PROBE_SIZE and np.all(result > 0)
        if timed:
            np.testing.assert_array_equal(result, timed[-1][1])  # the probe's two ways agree
        is_sort = len(timed) % 2 == 0  # the plain way is timed first in each round
        timed.append((is_sort, result))
        return sort_s if is_sort else count_s

    monkeypatch.setattr(shared, "_counting_pays", None)
    monkeypatch.setattr(probe, "_seconds", seconds)
    assert shared.counting_pays() is expected
    assert len(timed) == 2 * probe.ROUNDS
    assert shared.counting_pays() is expected  # measured once per process
    assert len(timed) == 2 * probe.ROUNDS


def test_where_counting_does_not_pay_every_size_is_sorted(monkeypatch):
    import jecs_core._counting_sort as shared

    monkeypatch.setattr(shared, "_counting_pays", False)
    monkeypatch.setattr(shared, "_counted", lambda values: pytest.fail("counted although it does not pay"))
    values = np.random.default_rng(1).integers(1, 1002, 50_000) / 1001
    np.testing.assert_array_equal(shared.sorted_values(values), np.sort(values))


def test_the_real_probe_gives_a_verdict_and_keeps_it(monkeypatch):
    import jecs_core._counting_sort as shared

    monkeypatch.setattr(shared, "_counting_pays", None)
    verdict = shared.counting_pays()
    assert isinstance(verdict, bool) and shared._counting_pays is verdict


@settings(max_examples=80, deadline=None)
@given(values=st.lists(st.floats(min_value=1e-300, max_value=1.0) | st.sampled_from([0.25, 0.5]), max_size=60))
def test_the_sample_s_distinct_values_are_numpy_unique(values):
    from jecs_core._counting_sort import _distinct

    values = np.asarray(values, float)
    np.testing.assert_array_equal(_distinct(values), np.unique(values))
