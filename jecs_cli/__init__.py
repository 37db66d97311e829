"""The ``jecs`` command line: every layer's subcommands mounted on one parser.

This package sits above all the others: the core (``select``, ``evaluate``,
``synth``), the scoring engine (``score``), the audit builder (``build-sample``)
and the report (``report``) each offer a ``register(subparsers)``; this module
only lists them.  A layer that is not installed (no torch, no plotly) simply has
no command here.
"""

from __future__ import annotations

from jecs_core.cli import CORE_REGISTRARS, build_parser, run

# Commands of the optional layers, in help order.
OPTIONAL_REGISTRARS: tuple[tuple[str, str], ...] = (
    ("scoring.cli", "register"),
    ("jecs_build.cli", "register"),
    ("dashboard.report_cli", "register"),
)


def main(argv=None) -> int:
    """Run ``jecs``; returns the exit code (0 ok, 2 bad input, 130 interrupted)."""
    return run(build_parser(CORE_REGISTRARS, optional=OPTIONAL_REGISTRARS), argv)
