"""One malloc heap for every thread, where the C library allows it.

glibc gives each thread that allocates its own heap (an "arena"), up to eight per core. A block
freed in one arena serves only that arena's thread, so the short-lived column-sized arrays that
the p-values, the table checks and the export allocate side by side each leave their own freed
space behind, and the peak grows with the thread count. One arena lets each thread reuse what the
others freed: in ``jecs select`` at 10^6 x 16 (benchmarks/RESULTS.md) the peak fell by about
40 MiB and the run was no slower, as these threads allocate few, large blocks.
"""

from __future__ import annotations

import os
import sys

_M_ARENA_MAX = -8  # glibc's mallopt parameter number (malloc.h)


def _glibc():
    """The C library when it is glibc, else ``None`` (another platform, or musl: its malloc differs)."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        libc = ctypes.CDLL(None)
    except OSError:
        return None
    return libc if hasattr(libc, "gnu_get_libc_version") else None


def share_one_malloc_arena() -> bool:
    """Limit glibc's malloc to one arena for the threads that have not allocated yet.

    A no-op (``False``) off Linux, on another C library, or when the user set ``MALLOC_ARENA_MAX``
    (their setting wins). Call it before starting the threads it should cover.
    """
    if "MALLOC_ARENA_MAX" in os.environ:
        return False
    libc = _glibc()
    return bool(libc is not None and libc.mallopt(_M_ARENA_MAX, 1))

