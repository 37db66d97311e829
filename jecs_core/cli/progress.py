"""A progress bar on stderr for the commands that run for seconds to minutes (``evaluate``, ``sweep``).

The bar is drawn only when stderr is a terminal, so logs, pipes and CI output stay free of it, and
``--no-progress`` turns it off there too. It goes to stderr and is cleared when the work is done:
the tables on stdout stay the same, bar or no bar.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator

Progress = Callable[[int, int], None]


def add_progress_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-progress", action="store_true",
                        help="draw no progress bar (one is drawn on stderr only when stderr is a terminal)")


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # a replaced or closed stream
        return False


@contextlib.contextmanager
def progress_bar(args: argparse.Namespace, *, desc: str, unit: str) -> Iterator[Progress | None]:
    """Yield a ``progress(done, total)`` callback that draws a bar on stderr, or ``None`` when none is wanted.

    ``desc`` names the work and ``unit`` what ``done`` counts (``"rep"``, ``"table"``). The bar
    appears at the first report, so a command that fails before its work starts prints only its error.
    """
    stream = sys.stderr
    if getattr(args, "no_progress", False) or not _is_terminal(stream):
        yield None
        return
    from tqdm import tqdm  # imported on use: a piped command and every --help stay without it

    bars = []

    def progress(done: int, total: int) -> None:
        if not bars:
            bars.append(tqdm(total=total, desc=desc, unit=unit, file=stream, leave=False, dynamic_ncols=True,
                             mininterval=0.2))
        bar = bars[0]
        bar.total = total
        bar.update(done - bar.n)

    try:
        yield progress
    finally:
        if bars:
            bars[0].close()
