"""Waiting in a helper thread without outliving an interrupted command.

A helper thread that waits on a future the main thread fills is stuck for ever when a Ctrl-C
ends the main thread before it fills it; the interpreter's exit then joins that thread and the
command hangs instead of exiting.
"""

from __future__ import annotations

import threading
from concurrent import futures

# Seconds between looks at the main thread while waiting.
_POLL = 0.1


def result_while_main_runs(future: futures.Future, *, poll: float = _POLL):
    """``future.result()``, or ``futures.CancelledError`` once the main thread has ended without filling it.

    Examples
    --------
    >>> done = futures.Future()
    >>> done.set_result(3)
    >>> result_while_main_runs(done)
    3
    """
    main = threading.main_thread()
    while True:
        try:
            return future.result(timeout=poll)
        except futures.TimeoutError:
            if _exiting(main):  # nobody will fill it
                raise futures.CancelledError("the command ended before this result was filled") from None


def _exiting(main: threading.Thread) -> bool:
    # The interpreter's exit joins the executors' threads before it marks the main thread ended, so
    # the main thread still looks alive then; threading's own shutdown flag (set first, and what
    # concurrent.futures relies on to refuse new work at exit) tells. Where it is missing, the main
    # thread's end is the sign.
    return bool(getattr(threading, "_SHUTTING_DOWN", False)) or not main.is_alive()
