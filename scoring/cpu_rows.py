"""Row-parallel CPU work: one single-threaded torch worker per intra-op thread, each on its own rows.

The statistics are a dozen small ops per cache-sized block; split across torch's intra-op
threads, every op ends at a barrier, and on a busy machine a descheduled thread holds each
barrier for a scheduler slice. Giving every thread whole blocks of rows instead leaves one
join per batch. Each worker's torch runs on one thread, which needs a per-thread thread
count: true of the OpenMP backend (``omp_set_num_threads`` sets the calling thread's count),
so other backends keep the plain path.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import torch

_LOCK = threading.Lock()
# Keyed by process too: a forked child inherits the pool object but not its threads.
_POOLS: dict[tuple[int, int], ThreadPoolExecutor] = {}
_PER_THREAD_COUNT: list[bool] = []


def _one_thread() -> None:
    torch.set_num_threads(1)


def per_thread_count() -> bool:
    """Whether torch's CPU thread count is per OS thread here (the OpenMP backend), checked once."""
    if not _PER_THREAD_COUNT:
        _PER_THREAD_COUNT.append("parallel backend: OpenMP" in torch.__config__.parallel_info())
    return _PER_THREAD_COUNT[0]


def workers() -> int:
    """How many row workers a CPU call gets: torch's intra-op threads where the count is per thread, else 1."""
    threads = torch.get_num_threads()
    return threads if threads > 1 and per_thread_count() else 1


def _pool(size: int) -> ThreadPoolExecutor:
    key = (os.getpid(), size)
    with _LOCK:
        if key not in _POOLS:
            _POOLS[key] = ThreadPoolExecutor(size, thread_name_prefix="jecs-rows", initializer=_one_thread)
        return _POOLS[key]


def run_row_parts(fn: Callable[[int, int], None], n_rows: int, step: int, parts: int) -> None:
    """Call ``fn(start, stop)`` on ``parts`` contiguous row ranges (whole ``step``-row blocks each) in parallel.

    The workers run under the caller's grad and inference modes (both are per thread).

    Parameters
    ----------
    fn : callable
        Does the work of rows ``start:stop``; returns nothing.
    n_rows, step, parts : int
        Rows in all, rows per block, and how many ranges (at most one per block).

    Returns
    -------
    None
    """
    blocks, size = -(-n_rows // step), max(1, parts)
    parts = min(size, blocks)
    if parts <= 1:
        fn(0, n_rows)
        return
    bounds = [min(n_rows, (blocks * i // parts) * step) for i in range(parts + 1)]
    grad, inference = torch.is_grad_enabled(), torch.is_inference_mode_enabled()

    def part(start: int, stop: int) -> None:
        with torch.inference_mode(inference), torch.set_grad_enabled(grad):
            fn(start, stop)

    futures = [_pool(size).submit(part, a, b) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
    for future in futures:
        future.result()
