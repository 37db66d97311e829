"""The vectorised evaluator gives exactly the numbers of a plain per-repetition loop.

The reference loop (``naive_protocol`` in benchmarks/bench_evaluate.py) calls
the public jecs_core functions one repetition and one alpha at a time; the
evaluator must match it bit for bit on the same subsample draws, including
ties, fixed lambdas and kNN sizes, and JECS's fallback to JMCS.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jecs_core import load_scores, table_from_frame
from jecs_core.evaluate import draw_subsamples, evaluate
from jecs_core.simulate.scenarios import copula_mixture, three_block
from jecs_core.simulate.synthetic import wide_table

REPO_ROOT = Path(__file__).resolve().parents[3]
ALPHAS = (0.05, 0.1, 0.2, 0.3, 0.5)


def _load_naive():
    path = REPO_ROOT / "benchmarks" / "bench_evaluate.py"
    spec = importlib.util.spec_from_file_location("bench_evaluate", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.naive_protocol


naive_protocol = _load_naive()


# The four rules the naive reference loop implements, in its order.
PAPER_METHODS = ("jecs", "jmcs", "union", "intersection")


def assert_same_as_naive(table, *, reps=6, seed=0, alphas=ALPHAS, lam="auto", knn=None, workers=1):
    result = evaluate(table, alphas=alphas, reps=reps, seed=seed, lam=lam, knn=knn, workers=workers,
                      methods=PAPER_METHODS)
    draws = draw_subsamples(table.m, table.n, reps=reps, seed=seed)
    gcp, power, n_selected = naive_protocol(table, draws, alphas=alphas, lam=lam, knn=knn)
    assert result.methods == PAPER_METHODS
    np.testing.assert_array_equal(result.n_selected, n_selected)
    np.testing.assert_array_equal(result.gcp, gcp)
    np.testing.assert_array_equal(result.power, power)
    return result


def test_exact_on_the_bundled_synthetic_table():
    result = assert_same_as_naive(load_scores(REPO_ROOT / "sample_data" / "synthetic_k4.csv"), reps=8, seed=11)
    assert (result.gcp > 0).any() and (result.power > 0).any()  # not a trivially empty comparison


def test_exact_at_paper_size_with_sixteen_models():
    table = table_from_frame(three_block(np.random.default_rng(5), n_models=16))
    assert_same_as_naive(table, reps=5, seed=3, workers=2)


@pytest.mark.parametrize("lam, knn", [(0.3, None), (0.8, 3), ("auto", 1), ("auto", 50)])
def test_exact_with_fixed_lambda_and_knn(lam, knn):
    table = table_from_frame(copula_mixture(np.random.default_rng(1), pool_size=500, eta=0.5))
    assert_same_as_naive(table, reps=4, seed=2, lam=lam, knn=knn)


def test_exact_when_jecs_falls_back_to_jmcs():
    # Every test item is far below the calibration scores: all max-p values are
    # 1/(m+1), no lambda has a tail, and JECS must return the JMCS selection.
    rng = np.random.default_rng(4)
    cal = 10 + rng.standard_normal((60, 3))
    test = rng.standard_normal((80, 3))
    members = np.zeros((80, 3), dtype=np.int8)
    members[:10, 0] = 1
    table = table_from_frame(wide_table(cal, test, members))
    result = assert_same_as_naive(table, reps=4)
    assert np.isnan(result.fit_lambda[0]).all()
    np.testing.assert_array_equal(result.n_selected[0], result.n_selected[1])


@settings(max_examples=25)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_models=st.integers(1, 4),
    n_cal=st.integers(2, 25),
    n_test=st.integers(2, 40),
    levels=st.integers(2, 6),
)
def test_exact_on_random_tables_with_heavy_ties(seed, n_models, n_cal, n_test, levels):
    # Integer scores on a few levels make ties between and within calibration
    # and test scores, which is where a vectorised count could drift.
    rng = np.random.default_rng(seed)
    cal = rng.integers(0, levels, (n_cal, n_models)).astype(float)
    members = (rng.random((n_test, n_models)) < 0.4).astype(np.int8)
    test = rng.integers(0, levels, (n_test, n_models)) + members * rng.integers(0, 2, (n_test, n_models))
    table = table_from_frame(wide_table(cal, test.astype(float), members))
    assert_same_as_naive(table, reps=3, seed=seed % 1000, alphas=(0.1, 0.5, 0.9))


def test_same_numbers_for_any_worker_count():
    table = load_scores(REPO_ROOT / "sample_data" / "synthetic_k4.csv")
    one = evaluate(table, reps=40, seed=9, workers=1)
    two = evaluate(table, reps=40, seed=9, workers=2)
    many = evaluate(table, reps=40, seed=9, workers=7)
    for other in (two, many):
        np.testing.assert_array_equal(one.gcp, other.gcp)
        np.testing.assert_array_equal(one.power, other.power)
        np.testing.assert_array_equal(one.fit_lambda, other.fit_lambda)
        pd.testing.assert_frame_equal(one.summary, other.summary)
