"""The max-p rules fitted together share one max-p vector and one sort of it, and select as alone."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jecs_core import REGISTRY
from jecs_core._shared_max_p import sharing_max_p, sorted_max_p
from jecs_core.compare import compare_pvalues
from jecs_core.selection import fit_jecs

MAX_P_RULES = ("storey-maxp", "jecs", "jmcs", "windowed")


def _pvalues(seed: int, n: int, K: int, grid: int | None) -> np.ndarray:
    rng = np.random.default_rng(seed)
    p = rng.uniform(size=(n, K))
    p[: n // 5] /= 40  # some clean items
    return p if grid is None else np.ceil(p * grid) / grid  # ties, as conformal p-values have


def test_the_rules_fitted_together_hold_the_same_arrays():
    p = _pvalues(0, 500, 4, None)
    comparison = compare_pvalues(p, alpha=0.1, methods=("storey-maxp", "jecs", "jmcs"))
    vectors = [comparison.result(name).p_max for name in ("storey-maxp", "jecs", "jmcs")]
    assert vectors[0] is vectors[1] is vectors[2]
    assert not vectors[0].flags.writeable
    np.testing.assert_array_equal(vectors[0], p.max(axis=1))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 300), K=st.integers(1, 4),
       grid=st.sampled_from([None, 7, 101]), alpha=st.sampled_from([0.05, 0.1, 0.3]))
def test_shared_fits_select_what_each_rule_selects_alone(seed, n, K, grid, alpha):
    p = _pvalues(seed, n, K, grid)
    methods = tuple(name for name in MAX_P_RULES if name in REGISTRY)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # JECS's fallback warning is the rule's behaviour, not this test's subject
        together = compare_pvalues(p, alpha=alpha, methods=methods)
        for name in methods:
            alone = REGISTRY[name].prepare(p.copy()).select(alpha)  # a copy: nothing to share with
            np.testing.assert_array_equal(together.selected(name), alone.selected)
            assert together.result(name).threshold == alone.threshold


def test_sharing_is_for_that_very_array_and_that_block():
    p = _pvalues(1, 50, 3, None)
    assert sorted_max_p(p)[0] is not sorted_max_p(p)[0]  # outside a block: computed each time
    with sharing_max_p(p):
        first = sorted_max_p(p)
        assert sorted_max_p(p)[0] is first[0] and sorted_max_p(p)[1] is first[1]
        assert sorted_max_p(p.copy())[0] is not first[0]  # equal values, another array
    assert sorted_max_p(p)[0] is not first[0]
    np.testing.assert_array_equal(first[1], np.sort(p.max(axis=1)))
    with pytest.raises(ValueError, match="read-only"):
        first[0][0] = 1.0


def test_fit_jecs_checks_the_sorted_copy_it_is_given():
    p_max = np.linspace(0.01, 1, 40)
    with pytest.raises(ValueError, match=r"sorted_p_max must have p_max's shape \(40,\), got \(39,\)"):
        fit_jecs(p_max, sorted_p_max=p_max[:-1])
    given_sorted = fit_jecs(p_max[::-1], sorted_p_max=p_max)
    assert given_sorted.select(0.1).n_selected == fit_jecs(p_max[::-1]).select(0.1).n_selected


def test_an_inner_block_a_copied_context_the_comparison_and_the_post_hoc_fit_share_the_outer_vectors():
    import contextvars
    from concurrent.futures import ThreadPoolExecutor

    from jecs_core._shared_max_p import shared_p_max
    from jecs_core.posthoc import fit_post_hoc

    p = _pvalues(2, 400, 3, 101)
    assert shared_p_max(p) is None
    with sharing_max_p(p):
        comparison = compare_pvalues(p, alpha=0.1, methods=("storey-maxp", "jmcs"))  # its own block joins this one
        p_max, ordered = sorted_max_p(p)
        assert comparison.result("jmcs").p_max is p_max and comparison.p_max is p_max
        with ThreadPoolExecutor(1) as other:
            fit = other.submit(contextvars.copy_context().run, fit_post_hoc, p, delta=0.1).result()
            plain = other.submit(fit_post_hoc, p, delta=0.1).result()  # no copied context: its own vectors
    assert fit.p_max is p_max and plain.p_max is not p_max
    np.testing.assert_array_equal(plain.p_max, p_max)
    assert fit.bound(p_max < 0.05) == plain.bound(p_max < 0.05)
    outside = comparison.p_max  # after the block: a fresh, writable maximum
    assert outside is not p_max and outside.flags.writeable
    np.testing.assert_array_equal(outside, p.max(axis=1))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 400), distinct=st.integers(1, 6) | st.integers(1, 500),
       zeros=st.booleans(), small=st.booleans())
def test_the_counting_sort_equals_numpy_sort(seed, n, distinct, zeros, small):
    # Small thresholds send these sizes down the counting path whenever the sample repeats.
    import jecs_core._shared_max_p as shared

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

    import jecs_core._shared_max_p as shared

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
    import jecs_core._shared_max_p as shared

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
    import jecs_core._shared_max_p as shared

    monkeypatch.setattr(shared, "_COUNTING_FROM", 1)
    rng = np.random.default_rng(0)
    for choices in ([1e300, 2e300, 3e300], [1e-320, 2e-320], [5.0, 7.5, 1e6], [0.25, 0.5, 0.75, 1.0]):
        values = rng.choice(choices, 1000)
        np.testing.assert_array_equal(shared.sorted_values(values), np.sort(values))
