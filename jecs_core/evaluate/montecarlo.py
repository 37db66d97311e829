"""The Monte-Carlo evaluator: mean GCP and power (with standard errors) of every method.

Paper appendix "Evaluation protocol": on a fixed labelled table, each of
``reps`` repetitions draws 80% of the calibration set and 80% of the test set
without replacement, runs JECS, JMCS, union and intersection at every alpha,
and scores the selections against the true labels.  Means are reported with
standard errors ``std / sqrt(reps)`` (sample std, ``ddof = 1``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..compare import METHODS
from ..envelope import DEFAULT_LAMBDA_GRID
from . import _params
from .draws import DEFAULT_DRAW_FRACTION, DrawPlan, check_fraction, draw_plan
from .kernels import JECSSettings
from .protocol import ProtocolRuns, run_protocol
from .summary import SE_DDOF, summary_frame, summary_rows

DEFAULT_ALPHAS: tuple[float, ...] = (0.1, 0.2, 0.3)
DEFAULT_REPS = 500


@dataclass(frozen=True)
class Evaluation:
    """Result of :func:`evaluate`.

    Attributes
    ----------
    summary : pandas.DataFrame
        One row per method x alpha: ``method, label, valid, alpha, gcp, gcp_se,
        power, power_se, mean_selected, over_target, jecs_lambda_mean,
        jecs_fallback_rate, reps``.  ``over_target`` is ``gcp > alpha`` (mean GCP
        above the target); ``*_se`` is ``std(ddof=1) / sqrt(reps)`` (NaN when
        ``reps == 1``); the ``jecs_*`` columns (NaN on other methods) give the
        mean data-driven lambda and the share of repetitions where JECS fell
        back to JMCS.
    methods : tuple of str
    alphas : tuple of float
    gcp, power : numpy.ndarray of float, shape (methods, alphas, reps)
        Per-repetition GCP and power.
    n_selected : numpy.ndarray of int, shape (methods, alphas, reps)
    jecs_lambda, jecs_pi0 : numpy.ndarray of float, shape (reps,)
        JECS's chosen lambda (NaN on fallback to JMCS) and ``pi0_hat`` per repetition
        (all NaN when JECS was not among the methods).
    reps, seed : int
        Number of repetitions and the seed that reproduces the draws.
    draw_fraction : float
    n_test, n_calibration : int
        Full set sizes; ``n_test_drawn`` / ``n_calibration_drawn`` are drawn per repetition.
    models : tuple of str
    settings : JECSSettings
        The JECS options used (lambda rule, kNN size, lambda grid).
    """

    summary: pd.DataFrame
    methods: tuple[str, ...]
    alphas: tuple[float, ...]
    gcp: np.ndarray
    power: np.ndarray
    n_selected: np.ndarray
    jecs_lambda: np.ndarray
    jecs_pi0: np.ndarray
    reps: int
    seed: int
    draw_fraction: float
    n_test: int
    n_calibration: int
    n_test_drawn: int
    n_calibration_drawn: int
    models: tuple[str, ...]
    settings: JECSSettings
    se_ddof: int = SE_DDOF

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


def jecs_settings(*, lam="auto", knn: int | None = None, lambda_grid=DEFAULT_LAMBDA_GRID) -> JECSSettings:
    """Validated :class:`JECSSettings`."""
    return JECSSettings(_params.check_lam(lam), _params.check_knn(knn), _params.check_lambda_grid(lambda_grid))


def evaluation_from_runs(runs: ProtocolRuns, plan: DrawPlan, table, *, methods: tuple[str, ...], settings: JECSSettings,
                         setting_index: int = 0, draw_fraction: float) -> Evaluation:
    """Package the slots of one JECS setting of ``runs`` as an :class:`Evaluation`."""
    rows = [runs.slot(m, setting_index) for m in methods]
    gcp, power, n_selected = runs.gcp[rows], runs.power[rows], runs.n_selected[rows]
    lam = runs.jecs_lambda[setting_index]
    summary = summary_frame(
        [r for i, m in enumerate(methods) for r in summary_rows(m, runs.alphas, gcp[i], power[i], n_selected[i], lam)]
    )
    return Evaluation(
        summary=summary, methods=methods, alphas=runs.alphas, gcp=gcp, power=power, n_selected=n_selected,
        jecs_lambda=lam, jecs_pi0=runs.jecs_pi0[setting_index],
        reps=plan.reps, seed=plan.seed, draw_fraction=draw_fraction, n_test=table.n, n_calibration=table.m,
        n_test_drawn=plan.n_drawn, n_calibration_drawn=plan.m_drawn,
        models=table.models, settings=settings,
    )


def evaluate(
    table,
    *,
    alphas: Sequence[float] = DEFAULT_ALPHAS,
    reps: int = DEFAULT_REPS,
    seed: int | None = 0,
    methods: Sequence[str] = METHODS,
    lam="auto",
    knn: int | None = None,
    lambda_grid: Sequence[float] = DEFAULT_LAMBDA_GRID,
    draw_fraction: float = DEFAULT_DRAW_FRACTION,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
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
    methods : sequence of str
        Any of ``"jecs", "jmcs", "union", "intersection"``.
    lam, knn, lambda_grid
        JECS options, as in :func:`jecs_core.fit_jecs`.
    draw_fraction : float
        Share of calibration and of test items drawn per repetition (0.8 in the paper).
    workers : int, optional
        Threads; default every core.
    progress : callable, optional
        ``progress(done, total)`` in repetitions, called after each chunk.

    Returns
    -------
    Evaluation

    Raises
    ------
    ValueError
        Naming the argument, for an alpha outside (0, 1), ``reps < 1``, an
        unknown method, a table without labels, and so on.
    """
    table = _params.labelled_table(table)
    alphas = _params.check_alphas(alphas)
    reps = _params.check_reps(reps)
    seed = _params.check_seed(seed)
    methods = _params.check_methods(methods)
    settings = jecs_settings(lam=lam, knn=knn, lambda_grid=lambda_grid)
    draw_fraction = check_fraction(draw_fraction)
    workers = _params.check_workers(workers)
    progress = _params.check_progress(progress)

    plan = draw_plan(table.m, table.n, reps=reps, fraction=draw_fraction, seed=seed)
    runs = run_protocol(table, plan, alphas=alphas, methods=methods, settings=(settings,), workers=workers,
                        progress=progress)
    return evaluation_from_runs(runs, plan, table, methods=methods, settings=settings, draw_fraction=draw_fraction)
