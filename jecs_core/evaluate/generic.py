"""The generic per-repetition path: any registered rule, one repetition at a time.

Each repetition computes its p-values with the library's one p-value function
(:func:`jecs_core.conformal_pvalues` on the drawn calibration and test rows,
which is what :func:`jecs_core.table_pvalues` does on the subsampled table),
prepares every rule once (``Rule.prepare(pvalues, **rule.accepted(options))``,
alpha-free) and selects at each alpha; GCP and power are counted by
:func:`jecs_core.gcp` / :func:`jecs_core.power`.  This is the protocol as the
paper states it, for any rule the registry holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..conformal import conformal_pvalues
from ..data import ScoreTable
from ..metrics import gcp, power
from ..results import SelectionResult
from ..rules import REGISTRY, declared_options
from .draws import Draws
from .outcome import Outcome, empty_arrays


class _Collector:
    """Fills one rule's (A, R) arrays and its per-repetition fit values."""

    def __init__(self, n_alphas: int, reps: int):
        self.gcp, self.power, self.n_selected = empty_arrays(n_alphas, reps)
        self.lam = np.full(reps, np.nan)
        self.pi0 = np.full(reps, np.nan)
        self.reports_lambda = self.reports_pi0 = False

    def record_fit(self, r: int, result: SelectionResult) -> None:
        """The alpha-free fit values of repetition ``r``, read off one of its results: the ``lambda``
        row of ``fit_summary()`` and ``pi0_hat`` (both ``None`` where the rule has none)."""
        lam = next((row.value for row in result.fit_summary() if row.key == "lambda"), None)
        pi0 = result.pi0_hat
        self.reports_lambda |= result.fits_lambda
        self.reports_pi0 |= pi0 is not None
        self.lam[r] = np.nan if lam is None else float(lam)
        self.pi0[r] = np.nan if pi0 is None else float(pi0)

    def outcome(self) -> Outcome:
        return Outcome(self.gcp, self.power, self.n_selected,
                       self.lam if self.reports_lambda else None, self.pi0 if self.reports_pi0 else None)


def _within_drawn(options: Mapping, n_drawn: int) -> dict:
    """``options`` with a count of test items (``knn``) cut to the ``n_drawn`` items of a repetition, as the
    batched kernels cut it (the tail holds no more): both paths give one result, and the evaluator warns."""
    declared = declared_options()
    return {name: min(value, n_drawn) if declared[name][0].at_most_n and isinstance(value, int) else value
            for name, value in options.items()}


def generic_outcomes(table: ScoreTable, draws: Draws, alphas: Sequence[float],
                     jobs: Sequence[tuple[str, Mapping]]) -> list[Outcome]:
    """Run ``jobs`` (rule name, accepted options) on every repetition of ``draws``.

    Parameters
    ----------
    table : ScoreTable
        Labelled table (``contaminated`` known).
    draws : Draws
        Calibration and test rows of each repetition.
    alphas : sequence of float
    jobs : sequence of (str, mapping)
        Registered rule name and the options it accepts.

    Returns
    -------
    list of Outcome, one per job
    """
    collectors = [_Collector(len(alphas), draws.reps) for _ in jobs]
    jobs = [(name, _within_drawn(options, draws.test.shape[1])) for name, options in jobs]
    contaminated = table.contaminated
    for r in range(draws.reps):
        test_rows = draws.test[r]
        pvalues = conformal_pvalues(table.test[test_rows], table.calibration[draws.calibration[r]])
        hit = contaminated[test_rows]
        for (name, options), out in zip(jobs, collectors):
            fitted = REGISTRY[name].prepare(pvalues, **options)
            for a, alpha in enumerate(alphas):
                result = fitted.select(alpha)
                if a == 0:
                    out.record_fit(r, result)
                chosen = np.asarray(result.selected, dtype=bool)
                out.gcp[a, r] = gcp(chosen, hit)
                out.power[a, r] = power(chosen, hit)
                out.n_selected[a, r] = int(chosen.sum())
    return [c.outcome() for c in collectors]
