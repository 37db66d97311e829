"""The ``jecs`` command line (also ``python -m jecs_core``).

Each subcommand lives in its own module with a ``register(subparsers)``
function that adds its parser and sets ``handler``.  Commands whose module is
optional (scoring needs torch) are still listed; their heavy imports happen
only when they run.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import warnings

from .. import __version__

# (module, attribute) of every subcommand registrar, in help order.
_REGISTRARS = (
    ("jecs_core.cli.select", "register"),
    ("jecs_core.cli.evaluate", "register"),
    ("jecs_core.cli.synth", "register"),
    ("scoring.cli", "register"),
    ("sample_data.build_cli", "register"),
)


class CommandError(Exception):
    """A user error a command reports as one line with exit code 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jecs",
        description="Joint Envelope Conformal Selection: pick one benchmark subset whose global "
        "contamination rate across K models stays below alpha.",
    )
    parser.add_argument("--version", action="version", version=f"jecs {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name, attr in _REGISTRARS:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:  # that command is not part of this install
                continue
            raise
        getattr(module, attr)(subparsers)
    return parser


def main(argv=None) -> int:
    """Run the CLI; returns the exit code (0 ok, 2 bad input)."""
    parser = build_parser()
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
        print(f"jecs {args.command}: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("jecs: interrupted", file=sys.stderr)
        return 130
