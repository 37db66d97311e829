"""JECS, JMCS, union and intersection: properties and edge cases."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from jecs_core import (
    METHODS,
    JECSFallbackWarning,
    compare_pvalues,
    conformal_pvalues,
    intersection_selection,
    jecs,
    jmcs,
    union_selection,
)

grid_scores = st.integers(-300, 300).map(lambda v: v / 100)


def score_pair(max_k=4):
    return st.integers(1, max_k).flatmap(
        lambda k: st.tuples(
            arrays(float, st.tuples(st.integers(1, 40), st.just(k)), elements=grid_scores),
            arrays(float, st.tuples(st.integers(1, 25), st.just(k)), elements=grid_scores),
        )
    )


@pytest.fixture(autouse=True)
def _quiet_fallback():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JECSFallbackWarning)
        yield


@given(score_pair(), st.floats(0.01, 0.99), st.floats(0.01, 0.99))
def test_selections_monotone_in_alpha(pair, a1, a2):
    test, cal = pair
    p = conformal_pvalues(test, cal)
    low, high = sorted((a1, a2))
    for rule in (jecs, jmcs, union_selection, intersection_selection):
        small, large = rule(p, alpha=low).selected, rule(p, alpha=high).selected
        assert not (small & ~large).any(), rule.__name__


@given(score_pair(), st.floats(0.01, 0.99), st.sampled_from(["exp", "affine", "cube"]), st.data())
def test_invariant_to_monotone_transform_of_one_model(pair, alpha, kind, data):
    test, cal = pair
    k = data.draw(st.integers(0, test.shape[1] - 1))
    transform = {"exp": np.exp, "affine": lambda x: 7.0 * x - 2.0, "cube": lambda x: x**3 + x}[kind]
    test2, cal2 = test.copy(), cal.copy()
    test2[:, k], cal2[:, k] = transform(test[:, k]), transform(cal[:, k])
    p1, p2 = conformal_pvalues(test, cal), conformal_pvalues(test2, cal2)
    np.testing.assert_array_equal(p1, p2)
    for rule in (jecs, jmcs):
        np.testing.assert_array_equal(rule(p1, alpha=alpha).selected, rule(p2, alpha=alpha).selected)


@given(score_pair(), st.floats(0.01, 0.99))
def test_jecs_is_a_step_up_prefix_on_transformed_values(pair, alpha):
    test, cal = pair
    result = jecs(conformal_pvalues(test, cal), alpha=alpha)
    order = np.sort(result.p_tilde)
    if result.r_star:
        np.testing.assert_array_equal(result.selected, result.p_tilde <= order[result.r_star - 1])
        assert order[result.r_star - 1] <= alpha * result.r_star / (result.pi0_hat * len(order)) + 1e-12
    else:
        assert not result.selected.any()
    # p-tilde keeps the order of p-max, so the selection is also a prefix in max-p.
    if result.selected.any() and (~result.selected).any():
        assert result.p_max[result.selected].max() <= result.p_max[~result.selected].min()


@given(score_pair(), st.floats(0.01, 0.99))
def test_union_contains_intersection_and_jmcs_is_contained_in_intersection(pair, alpha):
    test, cal = pair
    p = conformal_pvalues(test, cal)
    union, inter, base = union_selection(p, alpha=alpha), intersection_selection(p, alpha=alpha), jmcs(p, alpha=alpha)
    assert not (inter.selected & ~union.selected).any()
    # max-p <= alpha r/n implies every model's p <= alpha r/n, and BH per model selects at least r.
    assert not (base.selected & ~inter.selected).any()



@given(score_pair(), st.floats(0.01, 0.99))
def test_union_and_intersection_are_any_and_all_of_the_per_model_selections(pair, alpha):
    test, cal = pair
    p = conformal_pvalues(test, cal)
    for rule, combine in ((union_selection, np.any), (intersection_selection, np.all)):
        result = rule(p, alpha=alpha)
        np.testing.assert_array_equal(result.selected, combine(result.model_selections(), axis=1))
        # Read by the summary, the metrics and the export: one array, which no reader may change.
        assert result.selected is result.selected and not result.selected.flags.writeable
        assert result.n_selected == int(combine(result.model_selections(), axis=1).sum())

def test_n_equals_one():
    p = np.array([[0.01, 0.02]])
    out = compare_pvalues(p, alpha=0.1)
    assert out.summary()["n_selected"].tolist() == [1] * len(METHODS)  # every registered rule
    out = compare_pvalues(np.array([[0.5, 0.9]]), alpha=0.1)
    assert out.summary()["n_selected"].sum() == 0


def test_all_ties():
    p = conformal_pvalues(np.zeros((20, 3)), np.zeros((10, 3)))
    assert np.all(p == 1.0)
    out = compare_pvalues(p, alpha=0.2)
    assert out.summary()["n_selected"].sum() == 0
    assert out.jecs.lam == 0.5 and out.jecs.pi0_hat <= 1.0


def test_no_test_item_above_any_lambda_falls_back():
    p = np.full((5, 2), 0.05)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", JECSFallbackWarning)
        result = jecs(p, alpha=0.1)
    assert any(issubclass(w.category, JECSFallbackWarning) for w in caught)
    assert result.fallback_to_jmcs and "no max-p value" in result.fallback_reason
    np.testing.assert_array_equal(result.selected, jmcs(p, alpha=0.1).selected)
    assert result.selected.all()


def test_single_model_and_single_calibration_item():
    rng = np.random.default_rng(0)
    test = rng.standard_normal((30, 1))
    p = conformal_pvalues(test, np.array([[0.0]]))
    assert set(np.unique(p)) <= {0.5, 1.0}
    out = compare_pvalues(p, alpha=0.3)
    # With K = 1 union, intersection and JMCS are all plain BH.
    np.testing.assert_array_equal(out.union.selected, out.jmcs.selected)
    np.testing.assert_array_equal(out.intersection.selected, out.jmcs.selected)


def test_manual_lambda_and_knn_are_used():
    rng = np.random.default_rng(1)
    p = np.column_stack([rng.random(400), rng.random(400)])
    result = jecs(p, alpha=0.2, lam=0.7, knn=5)
    assert result.lam == 0.7 and result.k_n == 5 and result.fit.lambda_mode == "manual"
    assert len(result.grid.lambdas) == 1


def test_comparison_summary_labels_invalid_baselines():
    p = np.random.default_rng(2).random((50, 3)) ** 2
    frame = compare_pvalues(p, alpha=0.2, contaminated=np.zeros(50, bool)).summary()
    assert frame.set_index("method").loc[["union", "intersection"], "valid"].tolist() == [False, False]
    assert frame["label"].str.contains("invalid").sum() == 2
    assert {"gcp", "power"} <= set(frame.columns)
    with pytest.raises(ValueError, match="contaminated"):
        compare_pvalues(p, alpha=0.2, contaminated=np.zeros(3, bool))
    with pytest.raises(ValueError, match="models"):
        compare_pvalues(p, alpha=0.2, models=["a"])
