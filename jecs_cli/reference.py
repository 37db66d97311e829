"""docs/CLI-REFERENCE.md: every command's every argument, written from the parsers themselves.

``python -m jecs_cli.reference > docs/CLI-REFERENCE.md`` rewrites it;
``tests/core/cli/test_cli_reference.py`` fails when the file and the parsers differ, so an option
added to a command cannot be left out of the documentation.
"""

from __future__ import annotations

import argparse
import sys

HEADER = """# Command-line reference

Every argument of every `jecs` command, as its `--help` gives it (written from the parsers by
`python -m jecs_cli.reference > docs/CLI-REFERENCE.md`; a test checks that it is current). What the
commands do and print is in [CLI.md](CLI.md).
"""


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """``(name, help line, parser)`` of each subcommand, in help order."""
    found = []
    for action in parser._actions:  # argparse keeps subcommands in a private action; there is no public accessor
        if isinstance(action, argparse._SubParsersAction):
            lines = {choice.dest: choice.help or "" for choice in action._choices_actions}
            found += [(name, lines.get(name, ""), sub) for name, sub in action.choices.items()]
    return found


def _cell(text) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _value(action: argparse.Action) -> str:
    if action.nargs == 0:
        return "(flag)"
    if action.choices is not None:
        return ", ".join(f"`{choice}`" for choice in action.choices)
    return f"`{action.metavar or action.dest.upper()}`" + (" ..." if action.nargs in ("+", "*") else "")


def _default(action: argparse.Action) -> str:
    default = action.default
    if action.nargs == 0 or default is None or default is argparse.SUPPRESS or action.required:
        return "required" if action.required and action.option_strings else ""
    if isinstance(default, (list, tuple)):
        default = ",".join(map(str, default))
    return f"`{default}`"


def _help(action: argparse.Action, prog: str) -> str:
    # As --help shows it: argparse's own expansion (%(default)s, %% and the like).
    return _cell(argparse.HelpFormatter(prog)._expand_help(action) if action.help else "")


def _section(path: str, line: str, parser: argparse.ArgumentParser) -> list[str]:
    out = [f"## `{path}`", ""]
    if line:
        out += [line[0].upper() + line[1:] + ".", ""]
    rows = [action for action in parser._actions
            if action.help is not argparse.SUPPRESS and not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction))]
    if rows:
        out += ["| argument | value | default | meaning |", "| --- | --- | --- | --- |"]
        for action in rows:
            name = ", ".join(f"`{s}`" for s in action.option_strings) or f"`{action.dest}` (positional)"
            out.append(f"| {name} | {_value(action)} | {_default(action)} | {_help(action, parser.prog)} |")
        out.append("")
    for name, sub_line, sub in _subcommands(parser):
        out += _section(f"{path} {name}", sub_line, sub)
    return out


def reference_markdown(parser: argparse.ArgumentParser | None = None) -> str:
    """The reference page for ``parser`` (default: the full ``jecs`` parser of this install).

    Examples
    --------
    >>> page = reference_markdown()
    >>> "## `jecs select`" in page and "| `--alpha` |" in page
    True
    """
    if parser is None:
        from jecs_core.cli import CORE_REGISTRARS, build_parser

        from . import OPTIONAL_REGISTRARS

        parser = build_parser(CORE_REGISTRARS, optional=OPTIONAL_REGISTRARS)
    lines = [HEADER]
    for name, line, sub in _subcommands(parser):
        lines += _section(f"jecs {name}", line, sub)
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    sys.stdout.write(reference_markdown())
