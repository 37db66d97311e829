"""Run the paper's evaluation protocol: every repetition, every alpha, every rule, every option setting.

Rules run through the generic per-repetition path (:mod:`.generic`), or through
their batched accelerator (:data:`.accelerators.ACCELERATORS`) when one exists:
the same numbers, faster.  A rule that does not take a swept option is run once
and its results shared by every setting.  Repetitions are processed in chunks
by a thread pool; the heavy numpy calls release the GIL, and since every
repetition's draws come from its own seeded stream, the numbers do not depend
on the worker count or the chunking.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, as_completed, wait
from dataclasses import dataclass

import numpy as np

from ..data import ScoreTable
from ..selection import JECSFallbackWarning
from ._params import RuleOptions
from .accelerators import ACCELERATORS, Batch
from .draws import DrawPlan, Draws
from .generic import generic_outcomes
from .kernels import prepare
from .outcome import Outcome

# Largest boolean temporary per chunk (R x K x A x n cells of the per-model step-up);
# about 16 MB keeps a chunk's working set modest on small machines.
_CHUNK_CELLS = 16_000_000
# Enough chunks per worker to balance the load and to report progress smoothly.
_CHUNKS_PER_WORKER = 4


@dataclass(frozen=True)
class ProtocolRuns:
    """Per-repetition results of one protocol run.

    Attributes
    ----------
    methods : tuple of str
    alphas : tuple of float
    gcp, power : numpy.ndarray of float, shape (M, C, A, R)
        Methods x option settings x alphas x repetitions.
    n_selected : numpy.ndarray of int, shape (M, C, A, R)
    fit_lambda, fit_pi0 : numpy.ndarray of float, shape (M, C, R)
        The lambda and ``pi0_hat`` of each rule's alpha-free fit (NaN where a rule
        reports none, and lambda NaN where the paper's JECS fell back to JMCS).
    reports_lambda : tuple of bool
        Per method: whether its fit reports a lambda at all.
    """

    methods: tuple[str, ...]
    alphas: tuple[float, ...]
    gcp: np.ndarray
    power: np.ndarray
    n_selected: np.ndarray
    fit_lambda: np.ndarray
    fit_pi0: np.ndarray
    reports_lambda: tuple[bool, ...]

    def index(self, method: str) -> int:
        """Row of ``method`` in the arrays."""
        if method not in self.methods:
            raise ValueError(f"no results for {method!r}; this run had {list(self.methods)}")
        return self.methods.index(method)


def _jobs(methods: Sequence[str], settings: Sequence[RuleOptions]) -> tuple[list[tuple[str, tuple]], np.ndarray]:
    """Unique (method, accepted options) runs, and the job of each (method, setting)."""
    jobs: list[tuple[str, tuple]] = []
    where = np.empty((len(methods), len(settings)), dtype=np.intp)
    for i, method in enumerate(methods):
        for c, options in enumerate(settings):
            key = (method, options.for_rule(method))
            if key not in jobs:
                jobs.append(key)
            where[i, c] = jobs.index(key)
    return jobs, where


def _chunk(table: ScoreTable, prepared, draws: Draws, alphas: np.ndarray, jobs, accelerate: bool) -> list[Outcome]:
    """Every job on the repetitions of ``draws``."""
    fast = [j for j, (name, _) in enumerate(jobs) if accelerate and name in ACCELERATORS]
    slow = [j for j in range(len(jobs)) if j not in fast]
    out: list[Outcome | None] = [None] * len(jobs)
    if fast:
        batch = Batch(prepared, draws, alphas)
        for j in fast:
            name, options = jobs[j]
            out[j] = ACCELERATORS[name](batch, dict(options))
    if slow:
        found = generic_outcomes(table, draws, alphas, [(jobs[j][0], dict(jobs[j][1])) for j in slow])
        for j, outcome in zip(slow, found):
            out[j] = outcome
    return out


def chunk_size(reps: int, n_alpha: int, n_drawn: int, n_models: int, workers: int) -> int:
    """Repetitions per chunk: bounded by memory, small enough to balance ``workers``."""
    by_memory = max(1, _CHUNK_CELLS // max(1, n_alpha * n_drawn * n_models))
    by_balance = max(1, math.ceil(reps / (workers * _CHUNKS_PER_WORKER)))
    return min(by_memory, by_balance)


def _assemble(methods, alphas, where: np.ndarray, pieces, reps: int) -> ProtocolRuns:
    """Stitch the chunks' per-job outcomes into (M, C, ...) arrays."""
    shape = where.shape + (len(alphas), reps)
    arrays = {"gcp": np.empty(shape), "power": np.empty(shape), "n_selected": np.empty(shape, dtype=np.int64),
              "fit_lambda": np.full(where.shape + (reps,), np.nan), "fit_pi0": np.full(where.shape + (reps,), np.nan)}
    reports = [False] * len(methods)
    for (start, stop), outcomes in pieces:
        for (i, c), j in np.ndenumerate(where):
            got = outcomes[j]
            arrays["gcp"][i, c, :, start:stop] = got.gcp
            arrays["power"][i, c, :, start:stop] = got.power
            arrays["n_selected"][i, c, :, start:stop] = got.n_selected
            if got.fit_lambda is not None:
                arrays["fit_lambda"][i, c, start:stop] = got.fit_lambda
                reports[i] = True
            if got.fit_pi0 is not None:
                arrays["fit_pi0"][i, c, start:stop] = got.fit_pi0
    return ProtocolRuns(tuple(methods), tuple(float(a) for a in alphas), reports_lambda=tuple(reports), **arrays)


def run_protocol(
    table: ScoreTable,
    plan: DrawPlan,
    *,
    alphas: Sequence[float],
    methods: Sequence[str],
    settings: Sequence[RuleOptions] = (RuleOptions(),),
    workers: int = 1,
    accelerate: bool = True,
    progress: Callable[[int, int], None] | None = None,
    progress_offset: int = 0,
    progress_total: int | None = None,
) -> ProtocolRuns:
    """Evaluate every repetition of ``plan`` (arguments are assumed validated).

    ``accelerate=False`` runs every rule through the generic path.
    ``progress(done, total)`` is called from the calling thread after each
    chunk; ``progress_offset`` / ``progress_total`` let a sweep report one
    running count over several protocol runs.
    """
    jobs, where = _jobs(methods, settings)
    prepared = prepare(table) if accelerate and any(name in ACCELERATORS for name, _ in jobs) else None
    alpha_arr = np.asarray(alphas, dtype=float)
    reps = plan.reps
    size = chunk_size(reps, len(alphas), plan.n_drawn, table.K, workers)
    bounds = ((start, min(reps, start + size)) for start in range(0, reps, size))  # drawn as needed
    total = progress_total if progress_total is not None else reps

    def work(bound: tuple[int, int]):
        return bound, _chunk(table, prepared, plan.draw(*bound), alpha_arr, jobs, accelerate)

    def finished():
        if workers == 1 or reps <= size:
            yield from map(work, bounds)
            return
        # A window of chunks in flight, not all of them queued: an interrupt (Ctrl-C) waits only for those.
        pool, pending = ThreadPoolExecutor(max_workers=workers), set()
        try:
            for bound in bounds:
                pending.add(pool.submit(work, bound))
                if len(pending) >= 2 * workers:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    yield from (future.result() for future in done)
            yield from (future.result() for future in as_completed(pending))
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    pieces, done = [], 0
    with warnings.catch_warnings():
        # A fallback to JMCS is counted per repetition (fallback_rate), not warned about 500 times.
        warnings.simplefilter("ignore", JECSFallbackWarning)
        for bound, outcomes in finished():  # in the calling thread, so callbacks may touch UI state
            pieces.append((bound, outcomes))
            done += bound[1] - bound[0]
            if progress is not None:
                progress(progress_offset + done, total)
    return _assemble(methods, alphas, where, pieces, reps)
