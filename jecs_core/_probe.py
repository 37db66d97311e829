"""Branches whose faster side depends on the machine, chosen by timing both once per process.

numpy sorts floats with SIMD sorting networks where the CPU and the numpy build have them (numpy 2
on x86-64 with AVX2 or AVX-512, for one) and with scalar code elsewhere, several times slower; two
of the core's shortcuts avoid a sort and pay only on the scalar side (``benchmarks/RESULTS.md``,
"Counting or numpy's sort, chosen per machine"). Each side gives the same result, so the choice
moves only time.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

# A shortcut is taken only when it is clearly faster: near a tie the plain way is kept.
MARGIN = 0.8
ROUNDS = 3


def _seconds(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def shortcut_pays(shortcut: Callable[[], object], plain: Callable[[], object]) -> bool:
    """Whether ``shortcut()``'s best time is under ``MARGIN`` times ``plain()``'s, over ``ROUNDS`` interleaved calls.

    Examples
    --------
    >>> shortcut_pays(lambda: sum(range(10)), lambda: sum(range(10**6)))
    True
    """
    shortcut_times, plain_times = [], []
    for _ in range(ROUNDS):
        plain_times.append(_seconds(plain))
        shortcut_times.append(_seconds(shortcut))
    return min(shortcut_times) < MARGIN * min(plain_times)


def scrambled_uniforms(size: int, seed: int) -> np.ndarray:
    """``size`` distinct-looking floats in [0, 1) in no order, from an integer hash (no ``numpy.random`` to import).

    Examples
    --------
    >>> values = scrambled_uniforms(1000, 7)
    >>> bool(values.min() >= 0.0 and values.max() < 1.0), np.unique(values).size
    (True, 1000)
    """
    mixed = (np.arange(size, dtype=np.uint64) + np.uint64(seed)) * np.uint64(6364136223846793005)
    mixed += np.uint64(1442695040888963407)
    mixed ^= mixed >> np.uint64(29)
    return (mixed >> np.uint64(11)).astype(np.float64) / 2.0**53
