"""Scores that may run the other way: test items scoring mostly above the calibration members.

Calibration items are known members. With scores oriented "larger = more member-like", a test
member scores like a calibration member and a non-member scores lower, so the share of
(test, calibration) pairs in which the test item scores higher (the Mann-Whitney AUC) is at most
about 1/2. A share well above 1/2 means the test items score *above* the members: the usual cause
is a score where lower means member (a loss, a perplexity) read without ``--lower-is-member``;
the max-p values then pile up near 1 and every rule selects little or nothing.

The same comparison runs the checks of :mod:`jecs_core.checks.splits` (splits that are not
comparable, one-value columns), which share its sorted calibration scores.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._blocks import row_blocks
from .._rank import count_at_most
from .duplicates import row_labels
from .splits import SplitCheck, compare_splits

# Calibration sizes from which the bucket table beats two binary searches per test score.
_BUCKETS_FROM = 1024
# A model is flagged when its AUC is at least this and REVERSED_Z standard errors above 1/2:
# a clear, not a marginal, excess (the exchangeable-null standard error shrinks with n and m).
REVERSED_AUC = 0.6
REVERSED_Z = 3.0
UNDO_ADVICE = ("these scores were read with lower = member (--lower-is-member, or \"Lower scores = member\" on the "
               "Data page): if larger scores mean member, leave that option out")
SWITCH_ADVICE = 'tick "Lower scores = member" with the Data page\'s upload, or pass --lower-is-member to the jecs command'


def _aucs(test: np.ndarray, ordered: np.ndarray) -> np.ndarray:
    """Per column, the share of (test, calibration) pairs with the test score higher, ties counting 1/2.

    ``ordered`` holds each model's calibration scores sorted, one row per model (K, m). Per test
    score, the calibration scores below it and those equal to it are counted (bucket table or binary
    search): exact, without ranking the pooled column.
    """
    n, m = test.shape[0], ordered.shape[1]
    out = np.empty(ordered.shape[0])
    for k, column in enumerate(ordered):
        scores = test[:, k]
        if m >= _BUCKETS_FROM and np.isfinite(column[[0, -1]]).all():
            # The p-values' bucket table: #{cal <= t}, and #{cal < t} = m - #{-cal <= -t}.
            at_most = count_at_most(column, scores) - 1
            below = m - (count_at_most(-column[::-1], -scores) - 1)
        else:  # a small calibration set: the table's set-up would cost more than the searches
            below = np.searchsorted(column, scores, side="left")
            at_most = np.searchsorted(column, scores, side="right")
        out[k] = (below.sum(dtype=np.float64) + 0.5 * (at_most - below).sum(dtype=np.float64)) / (n * m)
    return out


def _aucs_from_pvalues(test: np.ndarray, ordered: np.ndarray, pvalues: np.ndarray) -> np.ndarray:
    """:func:`_aucs` from the plain conformal p-values: ``p (m + 1) - 1`` is already #{cal <= t}.

    Only the test scores equal to a calibration score need a search (to count the calibration
    scores equal to them); a test score with none equal counts #{cal < t} = #{cal <= t}.
    """
    n, m = test.shape[0], ordered.shape[1]
    out = np.zeros(ordered.shape[0])
    for rows in row_blocks(n):  # small buffers beside the scores and p-values
        for k, column in enumerate(ordered):
            scores = test[rows, k]
            at_most = np.rint(pvalues[rows, k] * (m + 1)).astype(np.int64) - 1  # exact: p = (1 + count) / (m + 1)
            tied = np.flatnonzero((at_most > 0) & (column[np.maximum(at_most - 1, 0)] == scores))
            equal = at_most[tied] - np.searchsorted(column, scores[tied], side="left")
            out[k] += at_most.sum(dtype=np.float64) - 0.5 * equal.sum(dtype=np.float64)
    return out / (n * m)


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
    flipped: bool = False  # the table was read with lower = member: the advice is then to undo that
    splits: SplitCheck | None = None  # whether the splits are comparable (jecs_core.checks.splits)

    @property
    def likely_reversed(self) -> bool:
        return bool(self.reversed_models)

    def warnings(self) -> list[str]:
        """One line per finding: reversed scores, then the splits' checks (:class:`SplitCheck`)."""
        splits = [] if self.splits is None else self.splits.warnings(reversed_models=self.reversed_models)
        return [*self._reversed_lines(), *splits]

    def _reversed_lines(self) -> list[str]:
        if not self.reversed_models:
            return []
        aucs = ", ".join(f"{m} {a:.2f}" for m, a in zip(self.models, self.auc) if m in self.reversed_models)
        other = "larger" if self.flipped else "lower"
        rescaled = [] if self.splits is None else [m for m in self.reversed_models if m in self.splits.rescaled_models]
        some = len(self.reversed_models) < len(self.models)
        if self.flipped and some:
            others = ", ".join(m for m in self.models if m not in self.reversed_models)
            advice = (f"{UNDO_ADVICE}; if lower scores mean member for {others} only, leave that option out and "
                      f"negate the scores of {others} in the file instead")
        elif self.flipped:
            advice = UNDO_ADVICE
        elif some:
            named = ", ".join(self.reversed_models)
            advice = (f"if lower scores mean member for {named} only, negate the scores of {named} in the file "
                      f"(--lower-is-member turns every model); if for every model, {SWITCH_ADVICE}")
        else:
            advice = f"if lower scores mean member, {SWITCH_ADVICE}"
        if rescaled:  # a second cause: a loss column's members are packed tightly too, so it does not replace the first
            advice += (f"; the two splits' scores of {', '.join(rescaled)} also differ in spread "
                       f"({self.splits.spread_text(rescaled)}): if one split was scored by another model, score or "
                       "run, or rescaled, fix that first")
        # The share above the median under every model speaks for all models reversed; beside some, it reads as
        # evidence against the warning, so it is said only then.
        every = ("" if some else f", and {self.share_pmax_high:.0%} of test items score above the calibration median "
                 "under every model (every p-value above 1/2)")
        return [f"warning: scores may run the other way ({other} = member) for {len(self.reversed_models)} of "
                f"{len(self.models)} model(s): test items score above the calibration members (share of pairs "
                f"with the test item higher: {aucs}; 1/2 or below is expected){every}; " + advice]

    def to_dict(self) -> dict:
        return {"auc": dict(zip(self.models, self.auc)), "reversed_models": list(self.reversed_models),
                "share_pmax_high": self.share_pmax_high,
                **({} if self.splits is None else {"splits": self.splits.to_dict()})}


def score_direction(table, *, pvalues: np.ndarray | None = None) -> DirectionCheck:
    """Check each model of ``table`` (a :class:`jecs_core.ScoreTable`) for scores that run the other way.

    Parameters
    ----------
    table : ScoreTable
        Oriented as loaded (``lower_is_member`` already applied).
    pvalues : numpy.ndarray, shape (n, K), optional
        The table's plain conformal p-values (:func:`jecs_core.table_pvalues` without covariates
        or ``rng``) when the caller has them: each test score's count of calibration scores at or
        below it is read from them instead of searched for again (a few times faster). Other
        p-values (randomized, covariate-aware) give wrong counts: leave them out.

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
    if pvalues is not None and np.shape(pvalues) != (n, table.K):
        raise ValueError(f"pvalues must have the table's shape (n, K) = ({n}, {table.K}), got {np.shape(pvalues)}")
    # Copies of a calibration row carry no new information: the standard error counts distinct rows,
    # so heavily duplicated calibration rows do not make a chance excess look significant.
    m = int(row_labels(table.calibration).max()) + 1 if m else 0
    se = np.sqrt((n + m + 1) / (12.0 * n * m)) if n and m else np.inf
    # One model's sorted calibration scores per row: contiguous for the searches and the medians.
    ordered = np.sort(np.ascontiguousarray(table.calibration.T), axis=1) if table.m else np.zeros((table.K, 1))
    if not (n and table.m):
        aucs = (float("nan"),) * table.K
    elif pvalues is None:
        aucs = tuple(float(a) for a in _aucs(table.test, ordered))
    else:
        aucs = tuple(float(a) for a in _aucs_from_pvalues(table.test, ordered, np.asarray(pvalues, dtype=np.float64)))
    flagged = tuple(name for name, auc in zip(table.models, aucs) if auc >= REVERSED_AUC and (auc - 0.5) / se >= REVERSED_Z)
    # Half of each middle value, not their mean: scores near the float limit (1e308) must not overflow to inf.
    width = ordered.shape[1]
    medians = ordered[:, (width - 1) // 2] / 2 + ordered[:, width // 2] / 2
    high = float(np.mean((table.test > medians).all(axis=1))) if n else 0.0
    return DirectionCheck(models=tuple(table.models), auc=aucs, reversed_models=flagged, share_pmax_high=high,
                          flipped=bool(table.flipped), splits=compare_splits(table, ordered))
