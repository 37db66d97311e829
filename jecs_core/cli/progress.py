"""A progress bar on stderr for the commands that run for seconds to hours (``evaluate``, ``sweep``,
``select`` on a large table, ``score``).

The bar is drawn only when stderr is a terminal, so logs, pipes and CI output stay free of it, and
``--no-progress`` turns it off there too. It goes to stderr and is cleared when the work is done:
the tables on stdout stay the same, bar or no bar.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator

Progress = Callable[..., None]  # progress(done, total) or progress(done, total, what)


def add_progress_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-progress", action="store_true",
                        help="draw no progress bar (one is drawn on stderr only when stderr is a terminal)")


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # a replaced or closed stream
        return False


@contextlib.contextmanager
def progress_bar(args: argparse.Namespace, *, desc: str, unit: str, rate: bool = True) -> Iterator[Progress | None]:
    """Yield a ``progress(done, total, what=None)`` callback that draws a bar on stderr, or ``None`` when none is wanted.

    ``desc`` names the work and ``unit`` what ``done`` counts (``"rep"``, ``"table"``); ``what``, when
    given, names the part under way and is shown at once. ``rate=False`` leaves out the rate and the
    time left, which say nothing for a few steps of unequal length. The bar appears at the first
    report, so a command that fails before its work starts prints only its error.
    """
    if getattr(args, "no_progress", False) or not _is_terminal(sys.stderr):
        yield None
        return
    with tqdm_bar(desc=desc, unit=unit, rate=rate) as progress:
        yield progress


@contextlib.contextmanager
def tqdm_bar(*, desc: str, unit: str, rate: bool = True, mininterval: float = 0.2, leave: bool = False) -> Iterator[Progress]:
    """Yield a ``progress(done, total, what=None)`` callback drawn as one tqdm bar on stderr, always.

    What :func:`progress_bar` draws on a terminal; a long pipeline writing to a log file asks for it
    itself (with a long ``mininterval`` and ``leave=True``). A new ``what`` is shown at once; repeated
    reports of the same part are drawn at most every ``mininterval`` seconds.
    """
    stream = sys.stderr
    from tqdm import tqdm  # imported on use: a piped command and every --help stay without it

    layout = None if rate else "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}]"
    bars, shown = [], [desc]

    def progress(done: int, total: int, what: str | None = None) -> None:
        # ``what`` may hold a file or model name: control characters are shown escaped, never sent to the terminal.
        label = desc if what is None else f"{desc}: {what if what.isprintable() else ascii(what)}"
        if not bars:
            bars.append(tqdm(total=total, desc=label, unit=unit, file=stream, leave=leave, dynamic_ncols=True,
                             mininterval=mininterval, bar_format=layout))
        bar = bars[0]
        bar.total = total
        if label != shown[0]:  # the new part's name and its count in one redraw
            shown[0] = label
            bar.set_description(label, refresh=False)
            bar.n = done
            bar.refresh()
        else:
            bar.update(done - bar.n)

    try:
        yield progress
    finally:
        if bars:
            bars[0].close()


def steps(progress: Progress | None, total: int) -> Callable[[str], None]:
    """``step(what)`` for work done in ``total`` named steps: each call counts the step before it as
    done and shows ``what`` as the one under way; it does nothing when ``progress`` is ``None``."""
    started = 0

    def step(what: str) -> None:
        nonlocal started
        if progress is not None:
            progress(min(started, total), total, what)
        started += 1

    return step
