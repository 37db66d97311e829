"""Stress tables for the post-hoc bound, beyond the validity study's grid (used by posthoc_study.py).

Each case draws fresh conformal tables where the bound's assumptions are tightest or least covered
by the grid: every item contaminated in exactly one of K correlated models (the null counts are a sum
of several calibration urns), all items null with one model (the urn law is exact, so the share
approaches its error level), tiny and huge calibration sets, low contamination, rounded scores with
ties.  A table violates when some nested top-r set of max-p (which holds every step-up rule's
selection at every alpha) holds more contaminated items than its bound.
"""

from __future__ import annotations

import numpy as np

from jecs_core.posthoc import fit_post_hoc

# name: (n, m, K, correlation, signal mu, exposure, score rounding or None)
CASES = {
    "split K=2, corr 0.5, m=30": (300, 30, 2, 0.5, 4.0, "split", None),
    "split K=8, corr 0.9, m=40": (800, 40, 8, 0.9, 5.0, "split", None),
    "split K=4, corr 0.2, m=200": (500, 200, 4, 0.2, 6.0, "split", None),
    "all null K=1, m=10": (200, 10, 1, 0.0, 0.0, "all", None),
    "all null K=1, m=500, n=50": (50, 500, 1, 0.0, 0.0, "all", None),
    "all null K=3, corr 0.99": (400, 50, 3, 0.99, 0.0, "all", None),
    "5% contaminated, K=1, m=100": (1000, 100, 1, 0.0, 3.0, 0.05, None),
    "ties (scores to 0.1), K=2": (300, 60, 2, 0.3, 2.0, 0.3, 10),
}


def _members(rng, n, k, exposure):
    if exposure == "split":
        members = np.zeros((n, k), dtype=bool)
        members[np.arange(n), rng.integers(0, k, n)] = True
        return members
    if exposure == "all":
        return np.ones((n, k), dtype=bool)
    return rng.random((n, k)) < exposure


def stress_case(name: str, tables: int, seed: int, delta: float) -> dict:
    """Share of violating tables for one case, with the shipped bound (calibration size known)."""
    n, m, k, corr, mu, exposure, rounding = CASES[name]
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(tables):
        members = _members(rng, n, k, exposure)

        def noise(rows):
            return np.sqrt(corr) * rng.standard_normal((rows, 1)) + np.sqrt(1 - corr) * rng.standard_normal((rows, k))

        cal, test = mu + noise(m), mu * members + noise(n)
        if rounding:
            cal, test = np.round(cal * rounding) / rounding, np.round(test * rounding) / rounding
        p = np.column_stack([(1.0 + np.searchsorted(np.sort(cal[:, j]), test[:, j], side="right")) / (m + 1)
                             for j in range(k)])
        fit = fit_post_hoc(p, delta=delta, calibration_size=m)
        bad = members.any(axis=1)[np.argsort(fit.p_max, kind="stable")]
        hits += bool(np.any(np.concatenate([[0], np.cumsum(bad)]) > fit.top_set_bounds))
    return {"case": name, "n": n, "m": m, "K": k, "tables": tables, "violated": hits / tables,
            "limit": delta + 2 * np.sqrt(delta * (1 - delta) / tables)}
