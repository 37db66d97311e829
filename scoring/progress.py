"""A ``progress(done, total, message)`` callback drawn as one tqdm bar (CLI and build pipeline)."""

from __future__ import annotations

import sys


def tqdm_progress(*, desc: str = "", enabled: bool = True, mininterval: float = 0.5):
    """Return ``(progress, close)``: the engine's callback as a tqdm bar on stderr, and its closer."""
    if not enabled:
        return (lambda done, total, message: None), (lambda: None)
    from tqdm.auto import tqdm

    bar = tqdm(total=0, unit="text", desc=desc, file=sys.stderr, dynamic_ncols=True, mininterval=mininterval)

    def progress(done: int, total: int, message: str) -> None:
        bar.total = total
        if not desc:
            bar.set_description(message, refresh=False)
        bar.update(done - bar.n)

    return progress, bar.close
