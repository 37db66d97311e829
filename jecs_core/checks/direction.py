"""Scores that may run the other way: test items scoring mostly above the calibration members.

Calibration items are known members. With scores oriented "larger = more member-like", a test
member scores like a calibration member and a non-member scores lower, so the share of
(test, calibration) pairs in which the test item scores higher (the Mann-Whitney AUC) is at most
about 1/2. A share well above 1/2 means the test items score *above* the members: the usual cause
is a score where lower means member (a loss, a perplexity) read without ``--lower-is-member``;
the max-p values then pile up near 1 and every rule selects little or nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import rankdata

# A model is flagged when its AUC is at least this and REVERSED_Z standard errors above 1/2:
# a clear, not a marginal, excess (the exchangeable-null standard error shrinks with n and m).
REVERSED_AUC = 0.6
REVERSED_Z = 3.0
SWITCH_ADVICE = 'tick "Lower scores = member" with the Data page\'s upload, or pass --lower-is-member to the jecs command'


def _aucs(test: np.ndarray, calibration: np.ndarray) -> np.ndarray:
    """Per column, the share of (test, calibration) pairs with the test score higher, ties counting 1/2.

    The Mann-Whitney statistic from average ranks of the pooled column: one pass over all the
    models at once.
    """
    n, m = len(test), len(calibration)
    ranks = rankdata(np.vstack([test, calibration]), axis=0)
    return (ranks[:n].sum(axis=0) - n * (n + 1) / 2) / (n * m)


@dataclass(frozen=True)
class DirectionCheck:
    """Per-model AUC of test scores against calibration members, and the models that look reversed.

    Attributes
    ----------
    models : tuple of str
    auc : tuple of float
        Share of (test, calibration) pairs with the test item scoring higher; about 1/2 or below
        when the orientation is right.
    reversed_models : tuple of str
        Models whose AUC is at least ``REVERSED_AUC`` and ``REVERSED_Z`` standard errors above 1/2.
    share_pmax_high : float
        Share of test items whose scores are above the calibration median for every model
        (every p-value, the smallest included, is above 1/2, so max-p is too): the pile-up at 1
        a reversed score gives.
    """

    models: tuple[str, ...]
    auc: tuple[float, ...]
    reversed_models: tuple[str, ...]
    share_pmax_high: float

    @property
    def likely_reversed(self) -> bool:
        return bool(self.reversed_models)

    def warnings(self) -> list[str]:
        if not self.reversed_models:
            return []
        aucs = ", ".join(f"{m} {a:.2f}" for m, a in zip(self.models, self.auc) if m in self.reversed_models)
        return [f"warning: scores may run the other way (lower = member) for {len(self.reversed_models)} of "
                f"{len(self.models)} model(s): test items score above the calibration members (share of pairs "
                f"with the test item higher: {aucs}; 1/2 or below is expected), and {self.share_pmax_high:.0%} of "
                f"test items score above the calibration median under every model (every p-value above 1/2); "
                f"if lower scores mean member, {SWITCH_ADVICE}"]

    def to_dict(self) -> dict:
        return {"auc": dict(zip(self.models, self.auc)), "reversed_models": list(self.reversed_models),
                "share_pmax_high": self.share_pmax_high}


def score_direction(table) -> DirectionCheck:
    """Check each model of ``table`` (a :class:`jecs_core.ScoreTable`) for scores that run the other way.

    Parameters
    ----------
    table : ScoreTable
        Oriented as loaded (``lower_is_member`` already applied).

    Returns
    -------
    DirectionCheck

    Examples
    --------
    >>> import numpy as np, pandas as pd, jecs_core as jc
    >>> rng = np.random.default_rng(0)
    >>> frame = pd.DataFrame({"item_id": [f"i{j}" for j in range(300)], "split": ["calibration"] * 100 + ["test"] * 200,
    ...                       "score_a": np.r_[rng.normal(0, 1, 100), rng.normal(2, 1, 200)]})
    >>> score_direction(jc.table_from_frame(frame)).reversed_models
    ('a',)
    """
    n, m = table.n, table.m
    # Copies of a calibration row carry no new information: the standard error counts distinct rows,
    # so heavily duplicated calibration rows do not make a chance excess look significant.
    m = len(np.unique(table.calibration, axis=0)) if m else 0
    se = np.sqrt((n + m + 1) / (12.0 * n * m)) if n and m else np.inf
    aucs = tuple(float(a) for a in _aucs(table.test, table.calibration)) if n and table.m else (float("nan"),) * table.K
    flagged = tuple(name for name, auc in zip(table.models, aucs) if auc >= REVERSED_AUC and (auc - 0.5) / se >= REVERSED_Z)
    ordered = np.sort(table.calibration, axis=0) if table.m else np.zeros((1, table.K))
    # Half of each middle value, not their mean: scores near the float limit (1e308) must not overflow to inf.
    medians = ordered[(len(ordered) - 1) // 2] / 2 + ordered[len(ordered) // 2] / 2
    high = float(np.mean((table.test > medians).all(axis=1))) if n else 0.0
    return DirectionCheck(models=tuple(table.models), auc=aucs, reversed_models=flagged, share_pmax_high=high)
