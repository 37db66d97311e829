"""The ``jecs`` command line: every layer's subcommands mounted on one parser.

This package sits above all the others: the core (``select``, ``evaluate``,
``synth``), the scoring engine (``score``), the audit builder (``build-sample``)
and the report (``report``) each offer a ``register(subparsers)``; this module
only lists them.  A layer that is not installed (no torch, no plotly) simply has
no command here.

Start-up stays cheap: ``jecs --help`` and ``jecs --version`` are answered from the
index below without importing any layer, and a command imports only the layer that
registers it.  ``tests/core/cli/test_cli_startup.py`` checks the index against the
full parser, so a command or help line that changes in a layer fails there.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys

# Commands of the optional layers, in help order.
OPTIONAL_REGISTRARS: tuple[tuple[str, str], ...] = (
    ("scoring.cli", "register"),
    ("jecs_build.cli", "register"),
    ("dashboard.report_cli", "register"),
)

# (command, help line, registrar module, packages the module needs at import), in help order.
COMMANDS: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("select", "select a shared clean subset from a score table", "jecs_core.cli.select", ()),
    ("leaderboard", "rank the models on the clean subset, beside the full benchmark", "jecs_core.cli.leaderboard",
     ()),
    ("evaluate", "Monte-Carlo GCP and power of every registered rule on a labelled score table",
     "jecs_core.cli.evaluate", ()),
    ("sweep", "sensitivity sweeps of GCP and power: lambda, knn, k (models) or rho (training fraction)",
     "jecs_core.cli.evaluate", ()),
    ("synth", "write the paper's synthetic setup as a labelled score table", "jecs_core.cli.synth", ()),
    ("score", "score texts under K local causal LMs (needs torch + transformers)", "scoring.cli", ()),
    ("build-sample", "build a real labelled sample: K LoRA fine-tunes with controlled contamination",
     "jecs_build.cli", ()),
    ("report", "write a self-contained HTML audit report (settings, data, diagnostics, figures, provenance)",
     "dashboard.report_cli", ("plotly",)),
)


def _installed(module: str, needs: tuple[str, ...]) -> bool:
    """Whether the layer could be imported, found without importing it."""
    try:
        return all(importlib.util.find_spec(name) is not None for name in (module.split(".")[0], *needs))
    except (ImportError, ValueError):
        return False


def index_parser() -> argparse.ArgumentParser:
    """The top-level parser with every installed command's name and help line, no layer imported."""
    from jecs_core import __version__
    from jecs_core.cli import DESCRIPTION, OneLineParser

    parser = OneLineParser(prog="jecs", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"jecs {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, help_line, module, needs in COMMANDS:
        if _installed(module, needs):
            subparsers.add_parser(name, help=help_line)
    return parser


def main(argv=None) -> int:
    """Run ``jecs``; returns the exit code (0 ok, 2 bad input, 130 interrupted)."""
    try:
        return _main(argv)
    except KeyboardInterrupt:  # Ctrl-C while the layers import (seconds): no traceback, the usual exit code
        print("jecs: interrupted", file=sys.stderr)
        return 130


def _main(argv) -> int:
    # The layers are imported here, inside main's KeyboardInterrupt guard, not at module import.
    from jecs_core.cli import CORE_REGISTRARS, build_parser, command_in, prepare_process, run

    run_as_program = argv is None  # a host program calling main(list) keeps its own process settings
    argv = sys.argv[1:] if argv is None else list(argv)
    command = command_in(argv)
    if run_as_program:
        prepare_process(command)
    known = {name: (module, needs) for name, _, module, needs in COMMANDS}
    before = argv[:argv.index(command)] if command is not None else argv
    if before and set(before) <= {"-h", "--help", "--version"}:
        return run(index_parser(), argv)
    if command in known and _installed(*known[command]):
        module = known[command][0]
        core = tuple(entry for entry in CORE_REGISTRARS if entry[0] == module)
        optional = tuple(entry for entry in OPTIONAL_REGISTRARS if entry[0] == module)
        return run(build_parser(core, optional=optional), argv)
    # No command, one the index does not know or one whose layer is missing: the full parser
    # answers (and lists the commands this install has).
    return run(build_parser(CORE_REGISTRARS, optional=OPTIONAL_REGISTRARS), argv)
