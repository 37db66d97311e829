"""The options ``jecs evaluate`` and every ``jecs sweep`` share, range-checked so that an error names the flag."""

from __future__ import annotations

import argparse

from .._validation import check_alpha, check_fraction
from ..rules import METHODS
from .values import count, floats, number, once, parts


def _methods(text: str) -> list[str]:
    if text.strip() == "all":
        return list(METHODS)
    names = once(parts(text, "--methods"), text, "--methods")
    unknown = [name for name in names if name not in METHODS]
    if unknown:
        raise ValueError(f"--methods: unknown rule {unknown[0]!r}; expected comma-separated names among "
                         f"{','.join(METHODS)}, or all")
    return names


def _seed(text: str | None) -> int | None:
    return count(text, "--seed", minimum=0)


# Every repetition's outcome is kept (for the standard errors and --per-rep-out): 3.3 kB each for five rules at
# one alpha on the bundled sample (172 MB at 2,000 repetitions, 297 MB at 40,000), more with more alphas.
MAX_REPS = 100_000


def _reps(text: str) -> int:
    reps = count(text, "--reps")
    if reps > MAX_REPS:
        raise ValueError(f"--reps: at most {MAX_REPS:,} repetitions (each one's outcome is kept in memory, a few kB), "
                         f"got {reps:,}")
    return reps


def run_options(args: argparse.Namespace) -> dict:
    """Options shared by ``evaluate`` and every sweep, range-checked here so an error names the flag."""
    return {
        "alphas": [check_alpha(alpha, "--alphas") for alpha in floats(args.alphas, "--alphas")],
        "reps": _reps(args.reps),
        "seed": _seed(args.seed),
        "methods": _methods(args.methods),
        "draw_fraction": check_fraction(number(args.draw_fraction, "--draw-fraction"), "--draw-fraction",
                                        include_zero=False),
        "workers": count(args.workers, "--workers"),
    }
