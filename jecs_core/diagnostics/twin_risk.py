"""The matched-twin risk check: every rule's unconditional GCR on fresh tables like the audit.

The evaluation protocol re-draws 80% subsets of one fixed table, so its standard
error says nothing about how a rule does on the *next* audit of this kind.  Here
each replicate is a fresh synthetic table from the audit's twin
(:mod:`.twin_model`), under each exposure pattern; each rule runs through the
evaluator's path (:func:`jecs_core.evaluate.protocol.run_protocol`, one full draw
per table), so the GCR is a mean over tables with its standard error, and the
spread of GCP between tables is reported too.  Twin ``t`` of pattern ``j`` draws
from child ``(j, t)`` of the seed's SeedSequence.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..envelope import DEFAULT_LAMBDA_GRID
from ..evaluate._params import check_alphas, check_methods, check_progress, check_workers, rule_options
from ..evaluate.draws import draw_plan
from ..evaluate.protocol import run_protocol
from ..evaluate.summary import standard_error
from ..rules import REGISTRY, Guarantee
from ._common import as_table, check_count, check_seed, fmt
from .twin_model import PATTERNS, TwinModel, fit_twin

TWIN_COLUMNS = ("pattern", "method", "label", "guarantee", "valid", "alpha", "gcr", "gcr_se", "gcp_sd", "power",
                "power_se", "mean_selected", "over_target", "over_2se")


@dataclass(frozen=True)
class TwinEvaluation:
    """Result of :func:`twin_evaluate`.

    Attributes
    ----------
    summary : pandas.DataFrame
        One row per pattern x method x alpha (:data:`TWIN_COLUMNS`): ``gcr`` is the mean
        GCP over fresh twin tables, ``gcr_se`` its standard error, ``gcp_sd`` the
        between-table standard deviation of GCP, ``over_target`` is ``gcr > alpha`` and
        ``over_2se`` is ``gcr > alpha + 2 gcr_se``.
    model : TwinModel
        The fitted twin.
    gcp, power : numpy.ndarray, shape (patterns, methods, alphas, tables)
    methods, patterns : tuple of str
    alphas : tuple of float
    tables, seed : int
    seconds : float
        Wall time of the run.
    """

    summary: pd.DataFrame
    model: TwinModel
    gcp: np.ndarray
    power: np.ndarray
    methods: tuple[str, ...]
    patterns: tuple[str, ...]
    alphas: tuple[float, ...]
    tables: int
    seed: int
    seconds: float

    def safe(self, method: str) -> bool:
        """True when ``method``'s twin GCR is at most alpha + 2 SE in every pattern and alpha."""
        rows = self.summary[self.summary["method"] == method]
        if rows.empty:
            raise ValueError(f"method {method!r} was not run; this check has {list(self.methods)}")
        return not bool(rows["over_2se"].any())

    @property
    def asymptotic_safe(self) -> bool | None:
        """Whether every rule with only an asymptotic guarantee (the paper's JECS) looks safe; None if none ran."""
        names = [m for m in self.methods if REGISTRY[m].guarantee is Guarantee.ASYMPTOTIC]
        return None if not names else all(self.safe(m) for m in names)

    def to_dict(self) -> dict:
        rows = self.summary.to_dict(orient="records")
        return {"tables_per_pattern": self.tables, "seed": self.seed, "seconds": round(self.seconds, 3),
                "patterns": {p: PATTERNS[p] for p in self.patterns}, "model": self.model.to_dict(),
                "safe": {m: self.safe(m) for m in self.methods}, "asymptotic_rules_safe": self.asymptotic_safe,
                "rows": [{k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()} for row in rows]}

    def lines(self) -> list[str]:
        out = self.model.lines()
        out.append(f"twin GCR over {self.tables} fresh tables per pattern (mean GCP +- SE; * = above alpha + 2 SE):")
        for method in self.methods:
            cells = []
            for pattern in self.patterns:
                for _, row in self.summary[(self.summary["method"] == method)
                                           & (self.summary["pattern"] == pattern)].iterrows():
                    flag = "*" if row["over_2se"] else ""
                    cells.append(f"{pattern}@{row['alpha']:g} {fmt(row['gcr'])}+-{fmt(row['gcr_se'])}{flag}")
            out.append(f"  {REGISTRY[method].label}: " + "  ".join(cells))
        return out


def _twin_rows(pattern: str, methods, alphas, gcp: np.ndarray, power: np.ndarray, size: np.ndarray) -> list[dict]:
    """Summary rows of one pattern; arrays (M, A, T)."""
    rows = []
    gcp_se, power_se = standard_error(gcp), standard_error(power)
    for i, method in enumerate(methods):
        rule = REGISTRY[method]
        for a, alpha in enumerate(alphas):
            mean = float(gcp[i, a].mean())
            se = float(gcp_se[i, a])
            rows.append({"pattern": pattern, "method": method, "label": rule.label,
                         "guarantee": rule.guarantee.value, "valid": rule.valid, "alpha": float(alpha),
                         "gcr": mean, "gcr_se": se, "gcp_sd": float(gcp[i, a].std(ddof=1)) if gcp.shape[2] > 1
                         else np.nan, "power": float(power[i, a].mean()), "power_se": float(power_se[i, a]),
                         "mean_selected": float(size[i, a].mean()), "over_target": bool(mean > alpha),
                         "over_2se": bool(mean > alpha + 2 * (0.0 if np.isnan(se) else se))})
    return rows


def _run_twins(model: TwinModel, patterns, tables: int, seed: int, *, alphas, methods, options, workers: int,
               progress) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """GCP, power and selection size of every (pattern, twin), arrays (P, M, A, T).

    Twin ``(j, t)`` draws from its own stream, so the numbers do not depend on ``workers``;
    ``progress`` is called from the calling thread.
    """
    shape = (len(patterns), len(methods), len(alphas), tables)
    gcp, power, size = np.empty(shape), np.empty(shape), np.empty(shape)
    plan = draw_plan(model.m, model.n, reps=1, fraction=1.0, seed=0)  # one full draw: the twin table itself

    def one(job: tuple[int, int]):
        j, t = job
        twin = model.sample(np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(j, t))), patterns[j])
        return job, run_protocol(twin, plan, alphas=alphas, methods=methods, settings=(options,))

    jobs = [(j, t) for j in range(len(patterns)) for t in range(tables)]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        done = pool.map(one, jobs) if workers > 1 else map(one, jobs)
        for count, ((j, t), runs) in enumerate(done, start=1):
            gcp[j, ..., t], power[j, ..., t] = runs.gcp[:, 0, :, 0], runs.power[:, 0, :, 0]
            size[j, ..., t] = runs.n_selected[:, 0, :, 0]
            if progress is not None:
                progress(count, len(jobs))
    return gcp, power, size


def twin_evaluate(table, *, alphas: Sequence[float] = (0.1, 0.2, 0.3), tables: int = 200, seed: int | None = 0,
                  methods: Sequence[str] | None = None, patterns: Sequence[str] = tuple(PATTERNS), lam="auto",
                  knn: int | None = None, lambda_grid: Sequence[float] = DEFAULT_LAMBDA_GRID,
                  model: TwinModel | None = None, workers: int | None = None,
                  progress: Callable[[int, int], None] | None = None, **options) -> TwinEvaluation:
    """Unconditional GCR and power of every rule on fresh synthetic twins of ``table``.

    Parameters
    ----------
    table : ScoreTable or pandas.DataFrame
        The audit; labels are not needed (the twins carry their own).
    alphas : sequence of float
        Target levels in (0, 1).
    tables : int
        Fresh twin tables per exposure pattern (>= 2).
    seed : int or None
        Seed of the twins; ``None`` draws fresh entropy (kept in ``.seed``).
    methods : sequence of str, optional
        Registered rule names; default every registered rule.
    patterns : sequence of str
        Exposure patterns, keys of :data:`PATTERNS`.
    lam, knn, lambda_grid, **options
        The declared rule options (e.g. ``storey_lam``); each rule takes the ones it declares.
    model : TwinModel, optional
        A twin already fitted on ``table`` (:func:`fit_twin`); fitted here when omitted.
    workers : int, optional
        Threads; default every core.  The numbers do not depend on it.
    progress : callable, optional
        ``progress(done, total)`` in twin tables.
    """
    started = time.perf_counter()
    table = as_table(table)
    alphas, methods = check_alphas(alphas), check_methods(methods)
    tables = check_count(tables, "tables", 2)
    options = rule_options(lam=lam, knn=knn, lambda_grid=lambda_grid, **options)
    patterns = tuple(patterns)
    if not patterns or any(p not in PATTERNS for p in patterns):
        raise ValueError(f"patterns must be a non-empty subset of {list(PATTERNS)}, got {list(patterns)}")
    progress = check_progress(progress)
    seed = int(np.random.SeedSequence(check_seed(seed)).entropy)
    model = fit_twin(table) if model is None else model
    workers = check_workers(workers)
    gcp, power, size = _run_twins(model, patterns, tables, seed, alphas=alphas, methods=methods, options=options,
                                  workers=workers, progress=progress)
    rows = [r for j, p in enumerate(patterns) for r in _twin_rows(p, methods, alphas, gcp[j], power[j], size[j])]
    return TwinEvaluation(pd.DataFrame(rows, columns=list(TWIN_COLUMNS)), model, gcp, power, methods, patterns,
                          alphas, tables, seed, time.perf_counter() - started)
