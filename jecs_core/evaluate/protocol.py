"""Run the paper's evaluation protocol: every repetition, every alpha, every method.

One conformal pass per repetition serves all alphas and methods: the counts
are computed once, the JECS fit (alpha-free) once per JECS setting, and each
step-up handles all alphas against one sorted array.  Repetitions are
processed in chunks (whole-array numpy work per chunk) by a thread pool; the
heavy numpy calls release the GIL, so the cores are used, and since all random
draws are made beforehand the numbers do not depend on the worker count.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass

import numpy as np

from ..data import ScoreTable
from .draws import DrawPlan, Draws
from .kernels import (
    JECSSettings,
    Prepared,
    conformal_counts,
    fit_jecs_batch,
    max_p_order,
    metrics_from_rstar,
    per_model_selections,
    prepare,
    step_numerators,
    step_thresholds,
    step_up,
)

# Largest boolean temporary per chunk (R x K x A x n cells of the per-model step-up);
# about 16 MB keeps a chunk's working set modest on small machines.
_CHUNK_CELLS = 16_000_000
# Enough chunks per worker to balance the load and to report progress smoothly.
_CHUNKS_PER_WORKER = 4


@dataclass(frozen=True)
class ProtocolRuns:
    """Per-repetition results of one protocol run.

    ``slots`` names the rows of the arrays: ``("jecs", c)`` for JECS with
    ``settings[c]``, and ``("jmcs", None)``, ``("union", None)``,
    ``("intersection", None)``.

    Attributes
    ----------
    slots : tuple of (str, int or None)
    alphas : tuple of float
    gcp, power : numpy.ndarray of float, shape (S, A, R)
    n_selected : numpy.ndarray of int, shape (S, A, R)
    jecs_lambda, jecs_pi0 : numpy.ndarray of float, shape (C, R)
        Chosen lambda (NaN where JECS fell back to JMCS) and ``pi0_hat``
        (NaN everywhere when JECS was not run).
    jecs_knn : numpy.ndarray of float, shape (C, R)
        ``k_n`` used (0 on fallback; NaN everywhere when JECS was not run).
    """

    slots: tuple[tuple[str, int | None], ...]
    alphas: tuple[float, ...]
    gcp: np.ndarray
    power: np.ndarray
    n_selected: np.ndarray
    jecs_lambda: np.ndarray
    jecs_pi0: np.ndarray
    jecs_knn: np.ndarray

    def slot(self, method: str, setting: int | None = None) -> int:
        """Row of ``method`` (and JECS ``setting``) in the arrays."""
        key = (method, setting if method == "jecs" else None)
        if key not in self.slots:
            raise ValueError(f"no results for {method!r} (setting {setting}); run had {list(self.slots)}")
        return self.slots.index(key)


def _slots(methods: Sequence[str], n_settings: int) -> tuple[tuple[str, int | None], ...]:
    out: list[tuple[str, int | None]] = []
    for method in methods:
        if method == "jecs":
            out.extend(("jecs", c) for c in range(n_settings))
        else:
            out.append((method, None))
    return tuple(out)


def _chunk(prep: Prepared, draws: Draws, alphas: np.ndarray, settings: Sequence[JECSSettings],
           slots: Sequence[tuple[str, int | None]]) -> dict[str, np.ndarray]:
    """All slots for the repetitions of ``draws``; arrays (S, A, Rc) and (C, Rc)."""
    m_drawn, n_drawn = draws.calibration.shape[1], draws.test.shape[1]
    counts = conformal_counts(prep, draws.calibration, draws.test)
    contaminated = prep.contaminated[draws.test]
    numerators = step_numerators(alphas, n_drawn)
    # BH (pi0 = 1), as storey_bh computes it: alpha r / (1.0 n).
    bh = step_thresholds(numerators, 1.0 * n_drawn)
    reps, n_alpha = draws.reps, alphas.shape[0]
    gcp = np.empty((len(slots), n_alpha, reps))
    power = np.empty_like(gcp)
    n_selected = np.empty(gcp.shape, dtype=np.int64)
    diag = {k: np.full((len(settings), reps), np.nan) for k in ("lam", "pi0", "knn")}

    methods = {name for name, _ in slots}
    order = max_p_order(counts, contaminated, m_drawn) if methods & {"jecs", "jmcs"} else None
    composed = per_model_selections(counts, bh, m_drawn) if methods & {"union", "intersection"} else None
    n_pure = n_drawn - contaminated.sum(axis=1)
    for s, (name, setting) in enumerate(slots):
        if name in ("union", "intersection"):
            r_star, g, p = _mask_metrics(composed[0] if name == "union" else composed[1], contaminated, n_pure)
        else:
            if name == "jmcs":
                r_star = step_up(order.sorted_p, bh)
            else:
                fit = fit_jecs_batch(order.sorted_p, settings[setting])
                r_star = step_up(fit.sorted_p_tilde, step_thresholds(numerators, fit.pi0_hat * n_drawn))
                diag["lam"][setting], diag["pi0"][setting], diag["knn"][setting] = fit.lam, fit.pi0_hat, fit.k_n
            g, p = metrics_from_rstar(r_star, order)
        gcp[s], power[s], n_selected[s] = g.T, p.T, r_star.T
    return {"gcp": gcp, "power": power, "n_selected": n_selected, **diag}


def _mask_metrics(chosen: np.ndarray, contaminated: np.ndarray, n_pure: np.ndarray):
    """Selection size, GCP and power of (R, A, n) selection masks, as metrics.gcp / metrics.power count them."""
    size = chosen.sum(axis=2)
    hits = (chosen & contaminated[:, None, :]).sum(axis=2)
    return size, hits / np.maximum(1, size), (size - hits) / np.maximum(1, n_pure)[:, None]


def chunk_size(reps: int, n_alpha: int, n_drawn: int, n_models: int, workers: int) -> int:
    """Repetitions per chunk: bounded by memory, small enough to balance ``workers``."""
    by_memory = max(1, _CHUNK_CELLS // max(1, n_alpha * n_drawn * n_models))
    by_balance = max(1, math.ceil(reps / (workers * _CHUNKS_PER_WORKER)))
    return min(by_memory, by_balance)


def run_protocol(
    table: ScoreTable,
    plan: DrawPlan,
    *,
    alphas: Sequence[float],
    methods: Sequence[str],
    settings: Sequence[JECSSettings] = (JECSSettings(),),
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
    progress_offset: int = 0,
    progress_total: int | None = None,
) -> ProtocolRuns:
    """Evaluate every repetition of ``plan`` (arguments are assumed validated).

    Each chunk draws its own repetitions' subsets (per-repetition streams, so
    the chunking does not change them) and is then processed whole-array.

    ``progress(done, total)`` is called from the calling thread after each
    chunk; ``progress_offset`` / ``progress_total`` let a sweep report one
    running count over several protocol runs.
    """
    prep = prepare(table)
    alpha_arr = np.asarray(alphas, dtype=float)
    slots = _slots(methods, len(settings))
    reps = plan.reps
    size = chunk_size(reps, len(alphas), plan.n_drawn, table.K, workers)
    bounds = [(start, min(reps, start + size)) for start in range(0, reps, size)]
    out = {
        "gcp": np.empty((len(slots), len(alphas), reps)),
        "power": np.empty((len(slots), len(alphas), reps)),
        "n_selected": np.empty((len(slots), len(alphas), reps), dtype=np.int64),
        "lam": np.full((len(settings), reps), np.nan),
        "pi0": np.full((len(settings), reps), np.nan),
        "knn": np.full((len(settings), reps), np.nan),
    }
    total = progress_total if progress_total is not None else reps

    def work(bound: tuple[int, int]) -> tuple[tuple[int, int], dict[str, np.ndarray]]:
        return bound, _chunk(prep, plan.draw(*bound), alpha_arr, settings, slots)

    def finished():
        if workers == 1 or len(bounds) == 1:
            yield from map(work, bounds)
            return
        with ThreadPoolExecutor(max_workers=workers) as pool:
            for future in as_completed([pool.submit(work, b) for b in bounds]):
                yield future.result()

    done = 0
    for bound, result in finished():  # in the calling thread, so callbacks may touch UI state
        for key, value in result.items():
            out[key][..., bound[0]:bound[1]] = value
        done += bound[1] - bound[0]
        if progress is not None:
            progress(progress_offset + done, total)
    return ProtocolRuns(
        slots=slots,
        alphas=tuple(float(a) for a in alphas),
        gcp=out["gcp"],
        power=out["power"],
        n_selected=out["n_selected"],
        jecs_lambda=out["lam"],
        jecs_pi0=out["pi0"],
        jecs_knn=out["knn"],
    )
