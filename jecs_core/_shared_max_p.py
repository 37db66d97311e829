"""One max-p vector and its sorted copy per p-value matrix, shared by the rules fitted on it together.

JMCS, storey-maxp, the paper's JECS and the windowed rule each start from the items' max-p values
and their ascending sort. :func:`jecs_core.compare.compare_pvalues` fits several of them on one
matrix: inside :func:`sharing_max_p` they read the same two read-only vectors instead of each
validating the matrix, taking its row maxima and sorting them again (at 10^6 items, 8 MB and a
sort each).
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

from ._counting_sort import sorted_values
from .selection import max_p

# [matrix, (p_max, sorted) or None] while a block shares; per thread and per task, as a ContextVar is.
_SHARED: ContextVar[list | None] = ContextVar("jecs_shared_max_p", default=None)


@contextmanager
def sharing_max_p(pvalues):
    """Within the block, :func:`sorted_max_p` of this very array (``is``, not equal values) is computed once.

    A block inside another one on the same array shares the outer block's vectors. A thread started
    with a copy of the context (``contextvars.copy_context().run``) shares them too.
    """
    shared = _SHARED.get()
    if shared is not None and shared[0] is pvalues:
        yield
        return
    token = _SHARED.set([pvalues, None])
    try:
        yield
    finally:
        _SHARED.reset(token)


def sorted_max_p(pvalues) -> tuple[np.ndarray, np.ndarray]:
    """The per-item maximum of ``pvalues`` (validated as a p-value matrix) and its ascending sort.

    Both are read-only: a rule's fit keeps them, and inside :func:`sharing_max_p` other fits
    hold the same arrays.
    """
    shared = _SHARED.get()
    if shared is None or shared[0] is not pvalues:
        return _computed(pvalues)
    if shared[1] is None:
        shared[1] = _computed(pvalues)
    return shared[1]


def is_shared(pvalues) -> bool:
    """True inside a :func:`sharing_max_p` block that holds this very array (its owner keeps it unchanged)."""
    shared = _SHARED.get()
    return shared is not None and shared[0] is pvalues


def shared_p_max(pvalues) -> np.ndarray | None:
    """The read-only max-p vector of ``pvalues`` when a :func:`sharing_max_p` block holds this very
    array, else ``None`` (the caller takes its own maximum: no sort it does not need)."""
    shared = _SHARED.get()
    return None if shared is None or shared[0] is not pvalues else sorted_max_p(pvalues)[0]


def _computed(pvalues) -> tuple[np.ndarray, np.ndarray]:
    p_max = max_p(pvalues)
    ordered = sorted_values(p_max)
    p_max.flags.writeable = False
    ordered.flags.writeable = False
    return p_max, ordered
