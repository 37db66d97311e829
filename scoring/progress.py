"""A ``progress(done, total, message)`` callback drawn as one tqdm bar (CLI and build pipeline)."""

from __future__ import annotations

import sys


def tqdm_progress(*, desc: str = "", enabled: bool = True, mininterval: float = 0.5):
    """Return ``(progress, close)``: the engine's callback as a tqdm bar on stderr, and its closer."""
    if not enabled:
        return (lambda done, total, message: None), (lambda: None)
    from tqdm.auto import tqdm

    bars = []  # the bar is drawn on the first report, so an early error prints nothing else

    def progress(done: int, total: int, message: str) -> None:
        if not bars:
            bars.append(tqdm(total=total, unit="text", desc=desc, file=sys.stderr, dynamic_ncols=True,
                             mininterval=mininterval))
        bar = bars[0]
        bar.total = total
        if not desc:
            bar.set_description(message, refresh=False)
        bar.update(done - bar.n)

    def close() -> None:
        if bars:
            bars[0].close()

    return progress, close
