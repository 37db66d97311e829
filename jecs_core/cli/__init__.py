"""The core's subcommands (``select``, ``leaderboard``, ``evaluate``, ``sweep``, ``synth``) and the shared runner.

Each subcommand lives in its own module with a ``register(subparsers)`` function
that adds its parser and sets ``handler``.  The full ``jecs`` command line is
composed one layer up, in :mod:`jecs_cli`, which mounts these together with the
scoring engine's and the audit builder's commands; ``python -m jecs_core``
offers the core's commands alone (numpy / scipy / pandas only).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import warnings
from collections.abc import Sequence

from .. import __version__

# (module, attribute) of every core subcommand registrar, in help order.
CORE_REGISTRARS: tuple[tuple[str, str], ...] = (
    ("jecs_core.cli.select", "register"),
    ("jecs_core.cli.leaderboard", "register"),
    ("jecs_core.cli.evaluate", "register"),
    ("jecs_core.cli.synth", "register"),
)

DESCRIPTION = (
    "Joint Envelope Conformal Selection: pick one benchmark subset whose global "
    "contamination rate across K models stays below alpha."
)


class CommandError(Exception):
    """A user error a command reports as one line with exit code 2."""


def build_parser(
    registrars: Sequence[tuple[str, str]] = CORE_REGISTRARS,
    *,
    optional: Sequence[tuple[str, str]] = (),
    prog: str = "jecs",
) -> argparse.ArgumentParser:
    """A parser with the subcommands of ``registrars`` and then ``optional``.

    An ``optional`` registrar whose layer cannot be imported in this install (the
    package or one of its extras is missing) is left out; a required one raises.
    """
    parser = argparse.ArgumentParser(prog=prog, description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"jecs {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name, attr in registrars:
        getattr(importlib.import_module(module_name), attr)(subparsers)
    for module_name, attr in optional:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError:
            continue  # that layer (or an extra it needs) is not part of this install
        getattr(module, attr)(subparsers)
    return parser


def run(parser: argparse.ArgumentParser, argv=None) -> int:
    """Parse ``argv`` and run the chosen command; user errors are one line on stderr and exit 2."""
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        with warnings.catch_warnings():
            # Warnings the commands care about are printed as part of their summary.
            warnings.simplefilter("ignore")
            return int(args.handler(args) or 0)
    except (CommandError, ValueError, OSError) as exc:
        message = " ".join(str(exc).split())
        print(f"{parser.prog} {args.command}: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{parser.prog}: interrupted", file=sys.stderr)
        return 130


def main(argv=None) -> int:
    """The core's commands alone (``python -m jecs_core``); the full CLI is :func:`jecs_cli.main`."""
    return run(build_parser(), argv)
