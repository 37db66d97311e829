"""Sensitivity sweeps (paper, section "Sensitivity analysis").

Each sweep returns a tidy :class:`pandas.DataFrame`, one row per setting x
method x alpha, with the columns ``parameter`` (what was swept), ``setting``
(a label: ``"0.5"``, ``"auto"``, ``"K=4"`` ...), ``value`` (the numeric setting,
NaN for a data-driven/default one) followed by the evaluator's summary columns
(mean GCP and power with standard errors ``std(ddof=1) / sqrt(reps)``).

* :func:`sweep_lambda` and :func:`sweep_knn` vary a shared rule option on one
  table; every setting sees the same repetitions, and rules that do not take
  the option are computed once and repeated on every setting, as a reference
  line.  By default they run the rules that take the option plus every
  finite-sample-valid rule; any registered rule can be named.
* :func:`sweep_tables` runs one seed over a list of tables, one per setting (the
  settings share their subsample draws); :mod:`jecs_core.evaluate.table_sweeps`
  builds those lists for K and rho.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from .._validation import check_at_most_n, check_lambda
from ..envelope import DEFAULT_LAMBDA_GRID
from . import _params
from ._params import RuleOptions, rule_options
from .defaults import DEFAULT_SWEEP_ALPHAS, DEFAULT_SWEEP_KNNS, DEFAULT_SWEEP_LAMBDAS, methods_taking
from .draws import DEFAULT_DRAW_FRACTION, check_fraction, draw_plan
from .montecarlo import DEFAULT_REPS
from .protocol import ProtocolRuns, run_protocol
from .summary import summary_frame, summary_rows

LEADING_COLUMNS = ("parameter", "setting", "value")


def setting_label(value) -> str:
    """A setting's label in the sweep's rows: ``0.5``, ``4``, ``auto``."""
    return f"{value:g}" if isinstance(value, float) else str(value)


def _rows(runs: ProtocolRuns, parameter: str, entries: Sequence[tuple[str, float]]) -> list[dict]:
    """Summary rows of every (setting, method) of ``runs``; ``entries`` label the settings."""
    rows = []
    for c, (label, value) in enumerate(entries):
        for i, method in enumerate(runs.methods):
            lam = runs.fit_lambda[i, c] if runs.reports_lambda[i] else None
            for row in summary_rows(method, runs.alphas, runs.gcp[i, c], runs.power[i, c], runs.n_selected[i, c], lam):
                rows.append({"parameter": parameter, "setting": label, "value": value, **row})
    return rows


def _fixed_options(swept: str, values_name: str, options: dict, **named) -> dict:
    """The rule options every setting shares; the swept one is given as the sweep's values, never fixed."""
    if swept in options:
        raise ValueError(f"{swept}: this sweep varies it; give its values as {values_name}")
    return {**named, **options}


def _common(table, alphas, reps, seed, methods, draw_fraction, workers, progress):
    return (
        _params.labelled_table(table), _params.check_alphas(alphas), _params.check_reps(reps), _params.check_seed(seed),
        _params.check_methods(methods), check_fraction(draw_fraction), _params.check_workers(workers),
        _params.check_progress(progress),
    )


def _warn_fixed_above_drawn(options: RuleOptions, plan, draw_fraction: float) -> None:
    """As :func:`jecs_core.evaluate.evaluate` warns: a fixed count (``knn``) above the items a repetition draws."""
    for name, value in _params.bounded_counts(options).items():
        _params.warn_above_drawn([value], plan.n_drawn, draw_fraction, name)


def _sweep_settings(table, parameter: str, entries: Sequence[tuple[str, float, RuleOptions]], *, alphas, reps, seed,
                    methods, draw_fraction, workers, progress) -> pd.DataFrame:
    """One protocol run with several option settings; rows for every setting."""
    table, alphas, reps, seed, methods, draw_fraction, workers, progress = _common(
        table, alphas, reps, seed, methods, draw_fraction, workers, progress)
    labels = [label for label, _, _ in entries]
    twice = sorted({label for label in labels if labels.count(label) > 1})
    if twice:  # one row per setting: a repeat would print once and be written twice
        raise ValueError(f"{parameter}s: setting(s) {twice} given more than once; give each once")
    for _, value, _ in (entries if parameter == "knn" else ()):
        if not np.isnan(value):  # the automatic k_n is NaN here
            check_at_most_n(int(value), table.n, "knns")
    settings = [_params.check_within_table(s, table.n) for _, _, s in entries]  # a fixed knn, as evaluate
    plan = draw_plan(table.m, table.n, reps=reps, fraction=draw_fraction, seed=seed)
    if parameter == "knn":  # the automatic k_n is NaN here, above no count
        _params.warn_above_drawn([v for _, v, _ in entries], plan.n_drawn, draw_fraction, "knns")
    else:
        _warn_fixed_above_drawn(settings[0], plan, draw_fraction)
    runs = run_protocol(table, plan, alphas=alphas, methods=methods, settings=settings, workers=workers, progress=progress)
    return summary_frame(_rows(runs, parameter, [(label, value) for label, value, _ in entries]), LEADING_COLUMNS)


def sweep_lambda(table, *, lambdas: Sequence[float] = DEFAULT_SWEEP_LAMBDAS, include_auto: bool = True,
                 lambda_grid: Sequence[float] = DEFAULT_LAMBDA_GRID, knn: int | None = None,
                 alphas: Sequence[float] = DEFAULT_SWEEP_ALPHAS, reps: int = DEFAULT_REPS, seed: int | None = 0,
                 methods: Sequence[str] | None = None, draw_fraction: float = DEFAULT_DRAW_FRACTION,
                 workers: int | None = None, progress: Callable[[int, int], None] | None = None,
                 **options) -> pd.DataFrame:
    """GCP and power against a fixed right-tail threshold lambda, plus the data-driven choice.

    Parameters
    ----------
    table : ScoreTable or pandas.DataFrame
        Labelled score table.
    lambdas : sequence of float
        Fixed lambdas in (0, 1) (the paper sweeps 0.3 ... 0.9).
    include_auto : bool
        Add the data-driven lambda over ``lambda_grid`` (setting ``"auto"``, value NaN).
    lambda_grid : sequence of float
        Grid of the data-driven choice.
    knn : int, optional
        kNN size for every setting (default ``ceil(sqrt(m_R))``).
    alphas, reps, seed, draw_fraction, workers, progress
        As in :func:`jecs_core.evaluate.evaluate` (default alpha 0.1).
    methods : sequence of str, optional
        Registered rule names; default the rules that take ``lam`` plus every
        finite-sample-valid rule (:func:`methods_taking`).
    **options
        Further declared rule options (e.g. ``storey_lam``), the same in every setting.

    Returns
    -------
    pandas.DataFrame
        One row per setting x method x alpha: ``parameter, setting, value``, then ``gcp, power, ...``.

    Examples
    --------
    >>> import jecs_core as jc
    >>> from sample_data import SAMPLE_DIR
    >>> table = jc.load_scores(SAMPLE_DIR / "synthetic_k4.csv")
    >>> frame = jc.sweep_lambda(table, lambdas=[0.3, 0.7], reps=5, methods=["jecs"], seed=0)
    >>> frame["setting"].tolist(), frame["gcp"].round(3).tolist()
    (['0.3', '0.7', 'auto'], [0.054, 0.039, 0.05])
    """
    fixed = _fixed_options("lam", "lambdas", options, knn=knn)
    lambdas = tuple(check_lambda(v, "lambdas") for v in lambdas)
    entries = [(setting_label(lam), lam, rule_options(lam=lam, **fixed)) for lam in lambdas]
    if include_auto:
        entries.append(("auto", np.nan, rule_options(lam="auto", lambda_grid=lambda_grid, **fixed)))
    methods = methods_taking("lam") if methods is None else methods
    if not entries:
        raise ValueError("lambdas must hold at least one value (or include_auto=True)")
    return _sweep_settings(table, "lambda", entries, alphas=alphas, reps=reps, seed=seed, methods=methods,
                           draw_fraction=draw_fraction, workers=workers, progress=progress)


def sweep_knn(table, *, knns: Sequence[int | None] = DEFAULT_SWEEP_KNNS, lam="auto",
              lambda_grid: Sequence[float] = DEFAULT_LAMBDA_GRID, alphas: Sequence[float] = DEFAULT_SWEEP_ALPHAS,
              reps: int = DEFAULT_REPS, seed: int | None = 0, methods: Sequence[str] | None = None,
              draw_fraction: float = DEFAULT_DRAW_FRACTION, workers: int | None = None,
              progress: Callable[[int, int], None] | None = None, **options) -> pd.DataFrame:
    """GCP and power against the kNN size ``k_n`` of the boundary density.

    Parameters
    ----------
    table : ScoreTable or pandas.DataFrame
        Labelled score table.
    knns : sequence of int or None
        kNN sizes (each clipped to the tail size, as in the library); ``None`` is
        the default ``ceil(sqrt(m_R))`` (setting ``"auto"``, value NaN).
    lam, lambda_grid
        Lambda rule used for every setting.
    alphas, reps, seed, draw_fraction, workers, progress
        As in :func:`jecs_core.evaluate.evaluate`.
    methods : sequence of str, optional
        Registered rule names; default the rules that take ``knn`` plus every
        finite-sample-valid rule.
    **options
        Further declared rule options (e.g. ``storey_lam``), the same in every setting.

    Returns
    -------
    pandas.DataFrame
        One row per setting x method x alpha: ``parameter, setting, value``, then ``gcp, power, ...``.

    Examples
    --------
    >>> import jecs_core as jc
    >>> from sample_data import SAMPLE_DIR
    >>> table = jc.load_scores(SAMPLE_DIR / "synthetic_k4.csv")
    >>> frame = jc.sweep_knn(table, knns=[5, None], reps=5, methods=["jecs"], seed=0)
    >>> frame["setting"].tolist(), frame["value"].tolist(), frame["power"].round(3).tolist()
    (['5', 'auto'], [5.0, nan], [0.968, 0.949])
    """
    fixed = _fixed_options("knn", "knns", options, lam=lam, lambda_grid=lambda_grid)
    methods = methods_taking("knn") if methods is None else methods
    entries = []
    for knn in knns:
        knn = _params.check_knn(knn, "knns")
        label, value = ("auto", np.nan) if knn is None else (str(knn), float(knn))
        entries.append((label, value, rule_options(knn=knn, **fixed)))
    if not entries:
        raise ValueError("knns must hold at least one value")
    return _sweep_settings(table, "knn", entries, alphas=alphas, reps=reps, seed=seed, methods=methods,
                           draw_fraction=draw_fraction, workers=workers, progress=progress)


def sweep_tables(
    tables: Sequence[tuple[str, float, object]],
    parameter: str,
    *,
    alphas: Sequence[float] = DEFAULT_SWEEP_ALPHAS,
    reps: int = DEFAULT_REPS,
    seed: int | None = 0,
    methods: Sequence[str] | None = None,
    lam="auto",
    knn: int | None = None,
    lambda_grid: Sequence[float] = DEFAULT_LAMBDA_GRID,
    draw_fraction: float = DEFAULT_DRAW_FRACTION,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    **options,
) -> pd.DataFrame:
    """Evaluate a list of ``(setting label, value, table)`` with one seed; rows for every table.

    ``methods=None`` runs every registered rule; ``progress(done, total)`` counts
    repetitions over all tables; ``options`` are further declared rule options (e.g. ``storey_lam``).
    """
    if not tables:
        raise ValueError(f"the {parameter} sweep needs at least one setting")
    checked = [(label, value, _params.labelled_table(t)) for label, value, t in tables]
    _, alphas, reps, seed, methods, draw_fraction, workers, progress = _common(
        checked[0][2], alphas, reps, seed, methods, draw_fraction, workers, progress)
    options = rule_options(lam=lam, knn=knn, lambda_grid=lambda_grid, **options)
    if seed is None:  # one entropy for all settings keeps their draws common
        seed = int(np.random.SeedSequence().entropy)
    rows = []
    for t, (label, value, table) in enumerate(checked):
        _params.check_within_table(options, table.n)
        plan = draw_plan(table.m, table.n, reps=reps, fraction=draw_fraction, seed=seed)
        _warn_fixed_above_drawn(options, plan, draw_fraction)
        runs = run_protocol(table, plan, alphas=alphas, methods=methods, settings=(options,), workers=workers,
                            progress=progress, progress_offset=t * reps, progress_total=len(checked) * reps)
        rows += _rows(runs, parameter, [(label, value)])
    return summary_frame(rows, LEADING_COLUMNS)
