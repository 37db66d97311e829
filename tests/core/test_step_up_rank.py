"""The bucketed step-up rank equals the one from a full sort, bit for bit."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jecs_core._step_up import _SORT_BELOW, step_up_rank
from jecs_core.multitest import column_step_up, step_up_sorted, storey_bh


def _by_sorting(values, alpha, pi0):
    ordered = np.sort(values)
    r_star = step_up_sorted(ordered, alpha, pi0)
    return r_star, (float(ordered[r_star - 1]) if r_star else 0.0)


def _table(seed: int, n: int, kind: str) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "conformal":  # ties: (1 + count) / (m + 1)
        m = int(rng.integers(5, 400))
        signal = rng.random(n) < rng.random()
        return (1 + rng.binomial(m, np.where(signal, rng.random() * 0.05, 0.5))) / (m + 1)
    if kind == "beta":
        return rng.beta(rng.uniform(0.05, 1.0), 1.0, n)
    if kind == "edges":  # exact zeros, the r = n threshold itself and values just around it
        return rng.choice(np.array([0.0, 0.1, np.nextafter(0.1, 0), np.nextafter(0.1, 1), 1e-300, 1.0]), n)
    return rng.random(n)


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.sampled_from([0, 1, 7, _SORT_BELOW - 1, _SORT_BELOW + 3, 30_000]),
       kind=st.sampled_from(["conformal", "beta", "edges", "uniform"]),
       alpha=st.sampled_from([0.1, 0.05, 0.3, 0.9, 1e-6]), pi0=st.sampled_from([1.0, 0.5, 0.97]))
def test_equals_a_full_sort(seed, n, kind, alpha, pi0):
    values = _table(seed, n, kind)
    assert step_up_rank(values, alpha, pi0) == _by_sorting(values, alpha, pi0)


@pytest.mark.parametrize("alpha", [0.1, 0.2])
def test_many_candidates_that_mostly_fail(alpha):
    # Uniform p-values: thousands of values below alpha, almost none passing, so the walk goes down
    # through many buckets before it finds the crossing (or none).
    rng = np.random.default_rng(3)
    values = np.concatenate([rng.random(200_000), rng.random(40) * 1e-7])
    assert step_up_rank(values, alpha, 1.0) == _by_sorting(values, alpha, 1.0)
    assert step_up_rank(values, alpha, 1.0)[0] >= 40


def test_columns_match_storey_bh_on_a_large_tied_table():
    rng = np.random.default_rng(7)
    m = 5_000
    p = (1 + rng.binomial(m, rng.choice([0.001, 0.5], size=(60_000, 3)))) / (m + 1)
    chosen = column_step_up(p, alpha=0.1, pi0=0.8)
    for k in range(3):
        np.testing.assert_array_equal(chosen[:, k], storey_bh(p[:, k], alpha=0.1, pi0=0.8).selected)
    assert chosen.any() and not chosen.all()
