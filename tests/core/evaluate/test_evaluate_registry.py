"""Every registered rule runs through the evaluator and every sweep; accelerators equal the generic path.

The loops iterate ``jecs_core.METHODS`` and ``ACCELERATORS``, so a rule registered
later (or a kernel added later) is covered without touching this file.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jecs_core import METHODS, REGISTRY, load_scores, table_from_frame
from jecs_core.evaluate import ACCELERATORS, evaluate, sweep_k, sweep_knn, sweep_lambda, sweep_rho
from jecs_core.simulate.scenarios import copula_mixture, three_block
from jecs_core.simulate.synthetic import wide_table

REPO_ROOT = Path(__file__).resolve().parents[3]
ALPHAS = (0.05, 0.1, 0.3, 0.6)


@pytest.fixture(scope="module")
def table():
    return load_scores(REPO_ROOT / "sample_data" / "synthetic_k4.csv")


def _assert_generic_equals_accelerated(table, methods, **options):
    fast = evaluate(table, methods=methods, accelerate=True, workers=1, **options)
    slow = evaluate(table, methods=methods, accelerate=False, workers=1, **options)
    for name in ("gcp", "power", "n_selected", "fit_lambda", "fit_pi0"):
        np.testing.assert_array_equal(getattr(fast, name), getattr(slow, name), err_msg=f"{methods} {name}")
    assert fast.summary.equals(slow.summary)


@pytest.mark.parametrize("method", sorted(ACCELERATORS))
def test_accelerator_is_bit_identical_to_the_generic_path(table, method):
    assert method in REGISTRY, "an accelerator must belong to a registered rule"
    _assert_generic_equals_accelerated(table, (method,), alphas=ALPHAS, reps=12, seed=4)


@pytest.mark.parametrize("method", sorted(ACCELERATORS))
@pytest.mark.parametrize("lam, knn", [(0.3, None), (0.8, 3), ("auto", 1)])
def test_accelerator_matches_with_fixed_options(method, lam, knn):
    table = table_from_frame(copula_mixture(np.random.default_rng(1), pool_size=400, eta=0.5))
    _assert_generic_equals_accelerated(table, (method,), alphas=ALPHAS, reps=4, seed=2, lam=lam, knn=knn)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_models=st.integers(1, 4), n_cal=st.integers(2, 20),
       n_test=st.integers(2, 30), levels=st.integers(2, 5))
def test_accelerators_match_on_tied_random_tables(seed, n_models, n_cal, n_test, levels):
    rng = np.random.default_rng(seed)
    cal = rng.integers(0, levels, (n_cal, n_models)).astype(float)
    members = (rng.random((n_test, n_models)) < 0.4).astype(np.int8)
    test = (rng.integers(0, levels, (n_test, n_models)) + members).astype(float)
    table = table_from_frame(wide_table(cal, test, members))
    _assert_generic_equals_accelerated(table, tuple(ACCELERATORS), alphas=(0.1, 0.5, 0.9), reps=3, seed=seed % 997)


def test_generic_path_handles_the_fallback_to_jmcs():
    rng = np.random.default_rng(4)
    members = np.zeros((60, 3), dtype=np.int8)
    members[:8, 0] = 1
    table = table_from_frame(wide_table(10 + rng.standard_normal((40, 3)), rng.standard_normal((60, 3)), members))
    _assert_generic_equals_accelerated(table, tuple(ACCELERATORS), alphas=ALPHAS, reps=3, seed=0)


@pytest.mark.parametrize("method", METHODS)
def test_every_registered_rule_runs_in_evaluate(table, method):
    rule = REGISTRY[method]
    result = evaluate(table, methods=(method,), alphas=(0.1, 0.3), reps=6, seed=1)
    assert result.methods == (method,) and result.gcp.shape == (1, 2, 6)
    assert ((result.gcp >= 0) & (result.gcp <= 1)).all() and ((result.power >= 0) & (result.power <= 1)).all()
    frame = result.summary
    assert set(frame["label"]) == {rule.label} and set(frame["guarantee"]) == {rule.guarantee.value}
    assert set(frame["valid"]) == {rule.valid}
    # Larger alpha never selects fewer items on average for a step-up rule on the same draws.
    assert result.n_selected[0, 1].mean() >= result.n_selected[0, 0].mean() - 1e-9


@pytest.mark.parametrize("method", METHODS)
def test_every_registered_rule_runs_in_every_sweep(table, method):
    options = {"alphas": (0.1,), "reps": 3, "seed": 0, "methods": (method,)}
    frames = {
        "lambda": sweep_lambda(table, lambdas=(0.5, 0.8), **options),
        "knn": sweep_knn(table, knns=(2, None), **options),
        "k": sweep_k(table, ks=(1, 2), **options),
        "rho": sweep_rho(lambda rho: three_block(np.random.default_rng(0), pool_size=200, n_models=3, rho=rho),
                         rhos=(0.25, 0.5), **options),
    }
    for parameter, frame in frames.items():
        assert set(frame["method"]) == {method}, parameter
        assert frame["gcp"].between(0, 1).all() and frame["power"].between(0, 1).all(), parameter


def test_rules_that_ignore_a_swept_option_repeat_one_result(table):
    frame = sweep_lambda(table, lambdas=(0.5, 0.7), alphas=(0.2,), reps=5, seed=3, methods=METHODS)
    for method in METHODS:
        rows = frame[frame["method"] == method]
        if "lam" not in REGISTRY[method].option_names:
            assert rows["gcp"].nunique() == 1 and rows["power"].nunique() == 1, method


def test_sweep_defaults_come_from_the_registry(table):
    frame = sweep_lambda(table, lambdas=(0.5,), include_auto=False, reps=2)
    expected = {n for n, r in REGISTRY.items() if "lam" in r.option_names or r.valid}
    assert set(frame["method"]) == expected
    assert set(evaluate(table, reps=2).methods) == set(METHODS)
