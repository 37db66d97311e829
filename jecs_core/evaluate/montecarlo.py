"""The Monte-Carlo evaluator: mean GCP and power (with standard errors) of every registered rule.

Paper appendix "Evaluation protocol": on a fixed labelled table, each of
``reps`` repetitions draws 80% of the calibration set and 80% of the test set
without replacement, runs the chosen rules at every alpha, and scores the
selections against the true labels.  Means are reported with standard errors
``std / sqrt(reps)`` (sample std, ``ddof = 1``).  Those standard errors cover the
subsampling noise on this one table only; :func:`jecs_core.diagnostics.twin_evaluate`
estimates the unconditional rate over fresh tables like it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validation import check_bool
from ..envelope import DEFAULT_LAMBDA_GRID
from . import _params
from ._params import RuleOptions
from .draws import DEFAULT_DRAW_FRACTION, DrawPlan, check_fraction, draw_plan
from .protocol import ProtocolRuns, run_protocol
from .summary import SE_DDOF, SE_SCOPE_NOTE, summary_frame, summary_rows

DEFAULT_ALPHAS: tuple[float, ...] = (0.1, 0.2, 0.3)
DEFAULT_REPS = 500


@dataclass(frozen=True)
class Evaluation:
    """Result of :func:`evaluate`.

    Attributes
    ----------
    summary : pandas.DataFrame
        One row per method x alpha: ``method, label, guarantee, valid, alpha, gcp,
        gcp_se, power, power_se, mean_selected, over_target, lambda_mean,
        fallback_rate, reps``.  Label, guarantee and ``valid`` (finite-sample
        guarantee) come from the rule registry.  ``over_target`` is ``gcp > alpha``
        (mean GCP above the target); ``*_se`` is ``std(ddof=1) / sqrt(reps)`` (NaN
        when ``reps == 1``) and covers subsampling noise on this table only (see
        :attr:`se_note`); ``lambda_mean`` / ``fallback_rate`` (NaN for rules whose
        fit reports no lambda) give the mean chosen lambda and the share of
        repetitions where the fit had none (the paper's JECS falling back to JMCS).
    methods : tuple of str
    alphas : tuple of float
    gcp, power : numpy.ndarray of float, shape (methods, alphas, reps)
        Per-repetition GCP and power.
    n_selected : numpy.ndarray of int, shape (methods, alphas, reps)
    fit_lambda, fit_pi0 : numpy.ndarray of float, shape (methods, reps)
        Each rule's chosen lambda and ``pi0_hat`` per repetition (NaN where the
        rule reports none, lambda NaN where the paper's JECS fell back to JMCS).
    reps, seed : int
        Number of repetitions and the seed that reproduces the draws.
    draw_fraction : float
    n_test, n_calibration : int
        Full set sizes; ``n_test_drawn`` / ``n_calibration_drawn`` are drawn per repetition.
    models : tuple of str
    options : RuleOptions
        The declared rule options used; each rule took the ones it declares.
    """

    summary: pd.DataFrame
    methods: tuple[str, ...]
    alphas: tuple[float, ...]
    gcp: np.ndarray
    power: np.ndarray
    n_selected: np.ndarray
    fit_lambda: np.ndarray
    fit_pi0: np.ndarray
    reps: int
    seed: int
    draw_fraction: float
    n_test: int
    n_calibration: int
    n_test_drawn: int
    n_calibration_drawn: int
    models: tuple[str, ...]
    options: RuleOptions
    se_ddof: int = SE_DDOF

    def __post_init__(self):
        # Computed for this evaluation alone: read-only, so the figures and exports drawn from it agree.
        for values in (self.gcp, self.power, self.n_selected, self.fit_lambda, self.fit_pi0):
            if values.flags.writeable:
                values.setflags(write=False)

    @property
    def se_note(self) -> str:
        """What the standard errors cover (and what they do not), in one sentence."""
        return SE_SCOPE_NOTE

    def per_rep_frame(self) -> pd.DataFrame:
        """The raw arrays in long form: one row per method x alpha x repetition."""
        n_m, n_a, n_r = self.gcp.shape
        return pd.DataFrame({
            "method": np.repeat(self.methods, n_a * n_r),
            "alpha": np.tile(np.repeat(self.alphas, n_r), n_m),
            "rep": np.tile(np.arange(n_r), n_m * n_a),
            "gcp": self.gcp.ravel(),
            "power": self.power.ravel(),
            "n_selected": self.n_selected.ravel(),
        })


def evaluation_from_runs(runs: ProtocolRuns, plan: DrawPlan, table, *, options: RuleOptions,
                         draw_fraction: float) -> Evaluation:
    """Package a single-setting protocol run as an :class:`Evaluation`."""
    gcp, power, n_selected = runs.gcp[:, 0], runs.power[:, 0], runs.n_selected[:, 0]
    rows = []
    for i, method in enumerate(runs.methods):
        lam = runs.fit_lambda[i, 0] if runs.reports_lambda[i] else None
        rows += summary_rows(method, runs.alphas, gcp[i], power[i], n_selected[i], lam)
    return Evaluation(
        summary=summary_frame(rows), methods=runs.methods, alphas=runs.alphas, gcp=gcp, power=power,
        n_selected=n_selected, fit_lambda=runs.fit_lambda[:, 0], fit_pi0=runs.fit_pi0[:, 0],
        reps=plan.reps, seed=plan.seed, draw_fraction=draw_fraction, n_test=table.n, n_calibration=table.m,
        n_test_drawn=plan.n_drawn, n_calibration_drawn=plan.m_drawn, models=table.models, options=options,
    )


def evaluate(
    table,
    *,
    alphas: Sequence[float] = DEFAULT_ALPHAS,
    reps: int = DEFAULT_REPS,
    seed: int | None = 0,
    methods: Sequence[str] | None = None,
    lam="auto",
    knn: int | None = None,
    lambda_grid: Sequence[float] = DEFAULT_LAMBDA_GRID,
    draw_fraction: float = DEFAULT_DRAW_FRACTION,
    workers: int | None = None,
    accelerate: bool = True,
    progress: Callable[[int, int], None] | None = None,
    **options,
) -> Evaluation:
    """Mean GCP and power of each method at each alpha over repeated subsamples.

    Parameters
    ----------
    table : ScoreTable or pandas.DataFrame
        A labelled score table (``member_<model>`` columns required).
    alphas : sequence of float
        Target levels, each in (0, 1).
    reps : int
        Repetitions (500 in the paper).
    seed : int or None
        Seed of the subsample draws; the result is a pure function of it,
        whatever ``workers`` is.  ``None`` draws fresh entropy (kept in ``.seed``).
    methods : sequence of str, optional
        Names in :data:`jecs_core.METHODS`; default every registered rule.
    lam, knn, lambda_grid
        The paper JECS's options (as in :func:`jecs_core.select`).
    draw_fraction : float
        Share of calibration and of test items drawn per repetition (0.8 in the paper).
    workers : int, optional
        Threads; default every core.
    accelerate : bool
        Use a rule's batched kernel when it has one (same numbers, faster);
        ``False`` runs every rule through the generic per-repetition path.
    progress : callable, optional
        ``progress(done, total)`` in repetitions, called after each chunk.
    **options
        Further declared rule options (e.g. ``storey_lam``).  Each rule gets only the
        options it declares (:meth:`jecs_core.Rule.accepted`).

    Returns
    -------
    Evaluation

    Raises
    ------
    ValueError
        Naming the argument, for an alpha outside (0, 1), ``reps < 1``, an
        unknown method, a table without labels, and so on.

    Examples
    --------
    >>> import jecs_core as jc
    >>> from jecs_core.evaluate import evaluate
    >>> from sample_data import SAMPLE_DIR
    >>> table = jc.load_scores(SAMPLE_DIR / "synthetic_k4.csv")
    >>> ev = evaluate(table, alphas=[0.1], reps=5, methods=["jmcs", "jecs"], seed=0)
    >>> ev.gcp.shape, ev.summary["method"].tolist()
    ((2, 1, 5), ['jecs', 'jmcs'])
    >>> ev.summary["gcp"].round(3).tolist(), ev.summary["power"].round(3).tolist()
    ([0.05, 0.04], [0.949, 0.886])
    """
    table = _params.labelled_table(table)
    alphas = _params.check_alphas(alphas)
    reps = _params.check_reps(reps)
    seed = _params.check_seed(seed)
    methods = _params.check_methods(methods)
    options = _params.check_within_table(_params.rule_options(lam=lam, knn=knn, lambda_grid=lambda_grid, **options),
                                         table.n)
    draw_fraction = check_fraction(draw_fraction)
    workers = _params.check_workers(workers)
    progress = _params.check_progress(progress)

    accelerate = check_bool(accelerate, "accelerate")

    plan = draw_plan(table.m, table.n, reps=reps, fraction=draw_fraction, seed=seed)
    for name, value in _params.bounded_counts(options).items():
        _params.warn_above_drawn([value], plan.n_drawn, draw_fraction, name)
    runs = run_protocol(table, plan, alphas=alphas, methods=methods, settings=(options,), workers=workers,
                        accelerate=accelerate, progress=progress)
    return evaluation_from_runs(runs, plan, table, options=options, draw_fraction=draw_fraction)
