"""Fitted objects and results never change when their caller writes into what it passed, or into what it got."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jecs_core as jc


def _p(seed: int, n: int = 200, K: int = 2) -> np.ndarray:
    return np.random.default_rng(seed).random((n, K)) ** 3


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), alpha=st.sampled_from([0.05, 0.1, 0.3]))
def test_a_comparison_keeps_what_it_was_given(seed, alpha):
    p = _p(seed)
    comparison = jc.compare_pvalues(p, alpha=alpha)
    before = {name: comparison.selected(name).copy() for name in comparison.methods}
    kept = comparison.pvalues.copy()
    p[:] = 1.0  # the caller reuses its array
    np.testing.assert_array_equal(comparison.pvalues, kept)
    assert not comparison.pvalues.flags.writeable
    for name in comparison.methods:
        np.testing.assert_array_equal(comparison.selected(name), before[name])
    with pytest.raises(TypeError):
        comparison.results["jmcs"] = None


def test_a_read_only_matrix_is_not_copied():
    p = _p(1)
    p.setflags(write=False)
    assert jc.compare_pvalues(p, alpha=0.1).pvalues is p


def test_post_hoc_fit_tables_are_read_only():
    p = _p(2)
    fit = jc.fit_post_hoc(p, delta=0.1)
    for values in (fit.steps, fit.top_set_bounds, fit.p_max):
        with pytest.raises(ValueError, match="read-only"):
            values[:] = 0


def test_fit_jecs_checks_and_keeps_its_own_max_p():
    for bad in ([np.nan, 0.1, 0.7], [-1.0, 0.01, 0.7], [[0.1, 0.2]]):
        with pytest.raises(ValueError, match="p_max must"):
            jc.fit_jecs(bad)
    values = np.array([0.001, 0.002, 0.003, 0.6, 0.7, 0.8, 0.9])
    fit = jc.fit_jecs(values, warn=False)
    chosen = fit.select(0.2).selected.copy()
    values[:] = 1.0
    np.testing.assert_array_equal(fit.select(0.2).selected, chosen)


def test_leaderboard_pvalues_must_match_the_table():
    from jecs_core.leaderboard import leaderboard, results_from_frame

    table = jc.load_scores(Path(__file__).resolve().parents[2] / "sample_data" / "synthetic_k4.csv")
    results = results_from_frame(pd.DataFrame({"item_id": table.test_ids, **{f"correct_{m}": 1 for m in table.models}}))
    with pytest.raises(ValueError, match=r"pvalues must have the shape \(n, K\) = \(\d+, 4\)"):
        leaderboard(table, results, pvalues=np.zeros((5, 2)))


def test_post_hoc_path_arrays_are_read_only_and_the_alphas_are_its_own():
    alphas = np.array([0.05, 0.1, 0.2])
    path = jc.post_hoc_path(_p(3), alphas, delta=0.1)
    assert alphas.flags.writeable  # the caller's array is left as it was
    alphas[:] = 0.5
    np.testing.assert_array_equal(path.alphas, [0.05, 0.1, 0.2])
    for values in (path.alphas, path.n_selected, path.max_contaminated, path.max_fdp):
        assert not values.flags.writeable


def test_evaluation_arrays_are_read_only():
    table = jc.load_scores(Path(__file__).resolve().parents[2] / "sample_data" / "synthetic_k4.csv")
    from jecs_core.evaluate import evaluate

    evaluation = evaluate(table, alphas=(0.1,), reps=3, seed=0, methods=("jmcs",))
    for values in (evaluation.gcp, evaluation.power, evaluation.n_selected, evaluation.fit_lambda,
                   evaluation.fit_pi0):
        assert not values.flags.writeable


def test_the_registry_shortcuts_are_read_only():
    with pytest.raises(TypeError):
        jc.METHOD_LABELS["storey-maxp"] = "mine"
    assert jc.METHOD_LABELS["storey-maxp"] == jc.REGISTRY["storey-maxp"].label
