"""Simultaneous validity on fresh conformal tables: every explored set within its bound, w.p. >= 1 - delta.

The explored family per table: the selection of each finite-sample rule at every alpha of a grid,
and every nested top-r set of max-p (what an auditor dragging the slider can reach).
"""

from __future__ import annotations

import numpy as np
import pytest

from jecs_core.posthoc import fit_post_hoc
from jecs_core.rules import get_rule

ALPHAS = np.linspace(0.01, 0.5, 25)
RULES = ("storey-maxp", "jmcs")


def _violated(p, contaminated, delta, calibration_size=None):
    """True when some explored set holds more contaminated items than its bound."""
    fit = fit_post_hoc(p, delta=delta, calibration_size=calibration_size)
    order = np.argsort(fit.p_max, kind="stable")
    in_top = np.concatenate([[0], np.cumsum(contaminated[order])])
    if np.any(in_top > fit.top_set_bounds):
        return True
    for name in RULES:
        rule = get_rule(name).prepare(p)
        for alpha in ALPHAS:
            mask = rule.select(alpha).selected
            if (mask & contaminated).sum() > fit.bound(mask):
                return True
    return False


# (pool, models, mu, correlation, one model exposed): signal strong / weak, correlated, single-model
CONFIGS = [
    (300, 4, 3.0, 0.0, False),
    (300, 4, 1.0, 0.5, False),
    (600, 8, 2.0, 0.8, True),
    (200, 16, 4.0, 0.3, False),
]


@pytest.mark.parametrize("urn", [False, True], ids=["closed-testing", "with-urn"])
@pytest.mark.parametrize("config", CONFIGS)
def test_share_of_tables_with_any_violation_within_delta(config, urn, fresh_tables):
    pool, models, mu, corr, single = config
    delta, reps = 0.1, 300
    m = int(0.3 * pool) if urn else None  # the fixture's calibration size
    rng = np.random.default_rng(hash(config) % 2**32)
    hits = np.array([_violated(p, bad, delta, m) for p, bad in fresh_tables(rng, reps, pool, models, mu, corr, single)])
    se = np.sqrt(delta * (1 - delta) / reps)
    assert hits.mean() <= delta + 2 * se, hits.mean()


def test_the_check_has_teeth_on_all_null_tables():
    # Every item contaminated and every p-value uniform: closed testing is then nearly exact, so the
    # share is close to delta; a bound at twice the level would fail the check above.
    rng = np.random.default_rng(11)
    delta, reps, n = 0.2, 600, 100
    hits = np.array([_violated(rng.uniform(size=(n, 1)), np.ones(n, dtype=bool), delta) for _ in range(reps)])
    se = np.sqrt(delta * (1 - delta) / reps)
    assert delta - 3 * se <= hits.mean() <= delta + 2 * se


def test_the_urn_bound_is_close_to_delta_on_all_null_conformal_tables():
    # All items null, one model: the urn law holds exactly, so the share sits near (below) delta.
    rng = np.random.default_rng(12)
    delta, reps, n, m = 0.2, 600, 150, 60
    hits = []
    for _ in range(reps):
        cal = np.sort(rng.standard_normal(m))
        p = (1.0 + np.searchsorted(cal, rng.standard_normal(n), side="right")) / (m + 1)
        hits.append(_violated(p[:, None], np.ones(n, dtype=bool), delta, m))
    se = np.sqrt(delta * (1 - delta) / reps)
    assert delta / 3 <= np.mean(hits) <= delta + 2 * se
