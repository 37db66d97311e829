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
    with pytest.raises(ValueError, match=r"^sorted_p_max must be numpy.sort\(p_max\), of shape \(40,\), got shape \(39,\)$"):
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
