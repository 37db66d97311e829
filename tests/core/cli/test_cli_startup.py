"""``jecs --help`` answers from the command index; a command imports only the layer that registers it."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

import jecs_cli
from jecs_core.cli import CORE_REGISTRARS, build_parser


def _commands(parser: argparse.ArgumentParser) -> list[tuple[str, str]]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return [(choice.dest, choice.help) for choice in sub._choices_actions]


def test_the_index_matches_the_full_parser():
    full = build_parser(CORE_REGISTRARS, optional=jecs_cli.OPTIONAL_REGISTRARS)
    assert _commands(jecs_cli.index_parser()) == _commands(full)
    modules = {module for module, _ in (*CORE_REGISTRARS, *jecs_cli.OPTIONAL_REGISTRARS)}
    assert {module for _, _, module, _ in jecs_cli.COMMANDS} == modules


def _loaded_after(*args: str) -> set[str]:
    code = ("import sys, jecs_cli\n"
            "try:\n"
            f"    jecs_cli.main({list(args)!r})\n"
            "except SystemExit:\n"
            "    pass\n"
            "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(done.stderr.strip().splitlines()[-1].split())


@pytest.mark.parametrize("args", [("--help",), ("--version",), ("-h",)])
def test_help_and_version_import_no_layer(args):
    loaded = _loaded_after(*args)
    assert not loaded & {"numpy", "pandas", "scipy", "pyarrow", "scoring", "dashboard", "jecs_build", "plotly"}


def test_a_core_command_leaves_the_other_layers_alone():
    loaded = _loaded_after("synth", "--help")
    assert not loaded & {"scoring", "dashboard", "jecs_build", "plotly", "torch"}


# Every command's --help is read before any work: it loads the command's parser, not the libraries
# its handler runs on (pandas and pyarrow alone take a third of a second to import).
HEAVY = {"pandas", "pyarrow", "scipy", "sklearn", "torch", "transformers", "plotly", "streamlit", "ray"}


@pytest.mark.parametrize("command", [("select",), ("leaderboard",), ("evaluate",), ("sweep", "lambda"), ("sweep", "rho"),
                                     ("synth",), ("score",), ("report",), ("build-sample",)])
def test_each_commands_help_imports_no_heavy_library(command):
    if not any(name == command[0] and jecs_cli._installed(module, needs) for name, _, module, needs in jecs_cli.COMMANDS):
        pytest.skip(f"the layer of `jecs {command[0]}` is not installed here")
    loaded = _loaded_after(*command, "--help")
    assert not loaded & HEAVY, sorted(loaded & HEAVY)


def test_help_and_errors_still_come_from_argparse(capsys):
    with pytest.raises(SystemExit) as exit_info:
        jecs_cli.main(["--help"])
    assert exit_info.value.code == 0 and "build-sample" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        jecs_cli.main(["no-such-command"])
    assert "invalid choice" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        jecs_cli.main(["select", "--help"])
    assert "usage: jecs select" in capsys.readouterr().out
    assert jecs_cli.main([]) == 2  # no command: the full help, exit 2


def test_a_command_whose_layer_looks_missing_goes_to_the_full_parser(monkeypatch, capsys):
    built = []
    monkeypatch.setattr(jecs_cli, "_installed", lambda module, needs: False)
    monkeypatch.setattr("jecs_core.cli.build_parser", lambda *a, **k: built.append(a) or build_parser(*a, **k))
    with pytest.raises(SystemExit):
        jecs_cli.main(["synth", "--help"])
    assert "usage: jecs synth" in capsys.readouterr().out
    assert built == [(CORE_REGISTRARS,)]  # the full parser, not the one-layer one
