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


# Third-party packages that come with an optional extra, and that extra.
EXTRAS = {"torch": "scoring", "transformers": "scoring", "accelerate": "scoring", "gguf": "scoring",
          "peft": "scoring", "safetensors": "scoring", "ray": "distributed",
          "streamlit": "app", "plotly": "app", "datasketch": "text"}


class CommandError(Exception):
    """A user error a command reports as one line with exit code 2."""


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose usage errors are one line, as every other error of the commands.

    argparse prints the whole usage block before its error (a dozen lines for ``jecs select``);
    here the line names the argument and what was expected, and points to ``--help`` for the rest.
    Sub-command parsers made by :meth:`add_subparsers` are of this class too.

    Examples
    --------
    >>> import contextlib, io
    >>> parser = OneLineParser(prog="jecs toy")
    >>> _ = parser.add_argument("--alpha", type=float)
    >>> err = io.StringIO()
    >>> with contextlib.redirect_stderr(err), contextlib.suppress(SystemExit):
    ...     parser.parse_args(["--alpha", "x"])
    >>> err.getvalue()
    "jecs toy: error: argument --alpha: invalid float value: 'x' (jecs toy --help lists the options)\\n"
    """

    def __init__(self, *args, **kwargs):
        # No prefixes of long options: in `jecs sweep knn`, --knn was read as --knns and replaced the list.
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())} ({self.prog} --help lists the options)\n")


def build_parser(
    registrars: Sequence[tuple[str, str]] = CORE_REGISTRARS,
    *,
    optional: Sequence[tuple[str, str]] = (),
    prog: str = "jecs",
) -> argparse.ArgumentParser:
    """A parser with the subcommands of ``registrars`` and then ``optional``.

    An ``optional`` registrar whose layer is not part of this install is left out; one that
    misses a package of an optional extra is left out with one line in the help naming the
    extra to install (:data:`EXTRAS`). Any other import error (a typo, a broken module) raises.
    """
    parser = OneLineParser(prog=prog, description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"jecs {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name, attr in registrars:
        getattr(importlib.import_module(module_name), attr)(subparsers)
    missing = []
    for module_name, attr in optional:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            root = (exc.name or "").split(".")[0]
            if root == module_name.split(".")[0]:
                continue  # that layer is not part of this install
            if root not in EXTRAS:
                raise
            missing.append(f"{module_name.split('.')[0]} needs {root}: pip install 'jecs[{EXTRAS[root]}]'")
            continue
        getattr(module, attr)(subparsers)
    if missing:
        parser.epilog = "not available in this install: " + "; ".join(missing)
    return parser


def _innermost(parser: argparse.ArgumentParser, argv) -> argparse.ArgumentParser:
    """The deepest subcommand parser ``argv`` names (``jecs sweep lambda``), else ``parser``."""
    words = list(sys.argv[1:] if argv is None else argv)
    while True:
        choices = next((action.choices for action in parser._actions
                        if isinstance(action, argparse._SubParsersAction)), None)
        chosen = next((word for word in words if choices and word in choices), None)
        if chosen is None:
            return parser
        parser, words = choices[chosen], words[words.index(chosen) + 1:]


def run(parser: argparse.ArgumentParser, argv=None) -> int:
    """Parse ``argv`` and run the chosen command; user errors are one line on stderr and exit 2."""
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # the subcommand's own usage names its options, not the top level's
        _innermost(parser, argv).error(f"unrecognized arguments: {' '.join(unknown)}")
    for name, value in vars(args).items():  # an empty file name would read as "not asked for"
        if (name == "out" or name.endswith("_out") or name == "lm_eval_samples") and value is not None \
                and not str(value).strip():
            _innermost(parser, argv).error(f"argument --{name.replace('_', '-')}: give a file name, got {value!r}")
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            return int(args.handler(args) or 0)
    except (CommandError, ValueError, OSError) as exc:
        message = " ".join(str(exc).split())
        print(f"{parser.prog} {args.command}: error: {message}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:  # a command whose optional extra is not installed: say which one
        root = (exc.name or "").split(".")[0]
        if root not in EXTRAS:
            raise  # a typo or a broken module: fail visibly
        # torch pinned, as the README installs it: an unpinned one may pull gigabytes of CUDA packages.
        pin = "'torch==2.13.0' " if EXTRAS[root] == "scoring" else ""
        print(f"{parser.prog} {args.command}: error: needs {root}, which this install lacks: "
              f"python -m pip install {pin}'jecs[{EXTRAS[root]}]' (from a checkout: python -m pip install {pin}-e "
              f"'.[{EXTRAS[root]}]')", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{parser.prog}: interrupted", file=sys.stderr)
        return 130
    finally:
        _show_warnings(f"{parser.prog} {args.command}", caught)


# Warnings the commands print themselves, as (module, class).
_QUIET = (("jecs_core.selection", "JECSFallbackWarning"), ("jecs_core.leaderboard.board", "LeaderboardWarning"))


def _show_warnings(prefix: str, caught) -> None:
    """Each distinct warning once, as one line on stderr (the summary on stdout stays parseable).

    Left out: the warnings the commands print themselves (JECS's fallback to JMCS is in the
    fit line; the leaderboard prints its own warnings one line each).
    """
    # Read from the loaded modules, not imported: a warning class can only have been raised if its
    # module was loaded, and an import here could run inside an import the user just interrupted.
    quiet = tuple(cls for cls in (getattr(sys.modules.get(module), name, None) for module, name in _QUIET) if cls)
    seen = set()
    for found in caught:
        line = " ".join(str(found.message).split())
        if issubclass(found.category, quiet) or line in seen:
            continue
        seen.add(line)
        print(f"{prefix}: warning: {line}", file=sys.stderr)


def command_in(argv) -> str | None:
    """The command word of ``argv``: its first argument that is not an option."""
    return next((arg for arg in argv if not arg.startswith("-")), None)


def prepare_process(command: str | None) -> None:
    """Process-wide settings for ``command``, applied before any import starts a thread.

    Both entry points call it only when they run as the program (``jecs ...``, ``python -m
    jecs_core ...``: ``main()`` without an argument list), never inside a host program that calls
    ``main(argv)``.

    ``select`` runs its p-values, table checks and export in threads that allocate few, large
    blocks: one malloc arena for all of them lowers its peak memory (:mod:`jecs_core._memory`).
    Other commands keep the C library's default (torch's many small allocations, for one, would
    contend for a single arena).
    """
    if command == "select":
        from .._memory import share_one_malloc_arena

        share_one_malloc_arena()


def main(argv=None) -> int:
    """The core's commands alone (``python -m jecs_core``); the full CLI is :func:`jecs_cli.main`."""
    if argv is None:  # run as the program; a host program calling main(list) keeps its own process settings
        argv = sys.argv[1:]
        prepare_process(command_in(argv))
    return run(build_parser(), argv)
