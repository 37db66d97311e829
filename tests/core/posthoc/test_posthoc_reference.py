"""The closed form against closed testing enumerated over every subset, and the template against sanssouci."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from jecs_core.posthoc import fit_post_hoc, hommel_h, post_hoc_bound, simes_template_bound
from jecs_core.posthoc.closed_simes import TIE


def _simes_rejects(values, delta):
    q = np.sort(values)
    return bool(np.any(q.size * q <= np.arange(1, q.size + 1) * delta * (1 + TIE)))


def _closed_testing(p, delta):
    """Bound for every set: the largest subset of S whose intersection closed testing keeps."""
    n = p.size
    subsets = [frozenset(c) for r in range(1, n + 1) for c in itertools.combinations(range(n), r)]
    local = {s: _simes_rejects(p[list(s)], delta) for s in subsets}
    kept = [s for s in subsets if not all(local[t] for t in subsets if s <= t)]
    return {s: max((len(k) for k in kept if k <= s), default=0) for s in subsets + [frozenset()]}


def _hommel_brute(p, delta):
    q = np.sort(p)
    return max(i for i in range(q.size + 1) if i == 0 or not _simes_rejects(q[q.size - i:], delta))


@pytest.mark.parametrize("seed", range(12))
def test_closed_form_equals_enumerated_closed_testing(seed):
    rng = np.random.default_rng(seed)
    for _ in range(6):
        n = int(rng.integers(1, 8))
        m = int(rng.choice([4, 9, 19, 99]))
        # half on the conformal grid j / (m + 1), where exact ties with delta k / i occur
        p = rng.integers(1, m + 2, size=n) / (m + 1) if rng.random() < 0.5 else rng.uniform(size=n) ** 2
        delta = float(rng.choice([0.05, 0.1, 0.2, 0.25, 0.5]))
        fit = fit_post_hoc(p, delta=delta)
        assert fit.h == _hommel_brute(p, delta)
        for members, expected in _closed_testing(p, delta).items():
            mask = np.zeros(n, dtype=bool)
            mask[list(members)] = True
            assert fit.bound(mask) == expected, (p, delta, sorted(members))


def test_hommel_h_on_larger_tables_matches_the_definition():
    rng = np.random.default_rng(7)
    for _ in range(40):
        n = int(rng.integers(1, 300))
        p = np.sort(np.where(rng.random(n) < 0.5, rng.integers(1, 52, n) / 51, rng.uniform(size=n) ** 3))
        assert hommel_h(p, 0.1) == _hommel_brute(p, 0.1)


def test_template_matches_sanssouci_and_is_never_tighter_than_closed_testing():
    sanssouci = pytest.importorskip("sanssouci")
    rng = np.random.default_rng(3)
    for _ in range(60):
        n = int(rng.integers(2, 400))
        p = rng.uniform(size=n) ** 4
        mask = rng.random(n) < 0.6
        if not mask.any():
            continue
        template = simes_template_bound(p, mask, delta=0.1)
        assert template == sanssouci.max_fp(p[mask], sanssouci.linear_template(0.1, n, n))
        assert post_hoc_bound(p, mask, delta=0.1) <= template


def test_granularity_floor_of_perfectly_clean_items():
    # n / (delta (m + 1)) thresholds are out of reach of 1 / (m + 1): the template keeps 49 of
    # 1000 perfect items; with 300 items that look contaminated, closed testing's h is about 300.
    m, n_clean = 200, 700
    p = np.concatenate([np.full(n_clean, 1 / (m + 1)), np.linspace(0.2, 1.0, 300)])
    mask = np.arange(p.size) < n_clean
    assert simes_template_bound(p, mask, delta=0.1) == 49
    fit = fit_post_hoc(p, delta=0.1)
    assert 300 <= fit.h < 330
    assert fit.bound(mask) == int(np.ceil(fit.h / (0.1 * (m + 1)) * (1 - 1e-12))) - 1
