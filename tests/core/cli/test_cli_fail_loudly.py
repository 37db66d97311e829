"""The command line fails loudly: broken imports raise, missing extras are named, warnings are shown once."""

from __future__ import annotations

import argparse
import sys
import warnings

import pytest

from jecs_core.cli import build_parser, run


@pytest.fixture
def layer(tmp_path, monkeypatch):
    """Write a fake optional layer module with the given body; returns its name."""
    monkeypatch.syspath_prepend(str(tmp_path))

    def write(name: str, body: str) -> str:
        (tmp_path / f"{name}.py").write_text(body + "\ndef register(subparsers):\n    subparsers.add_parser('fake')\n",
                                             encoding="utf-8")
        sys.modules.pop(name, None)
        return name

    return write


def test_a_typo_in_an_optional_layer_raises(layer):
    name = layer("layer_with_typo", "import jecs_core.no_such_module")
    with pytest.raises(ModuleNotFoundError, match="no_such_module"):
        build_parser((), optional=((name, "register"),))


def test_a_missing_extra_is_named_with_the_install_line(layer):
    name = layer("layer_needing_ray", "raise ModuleNotFoundError(\"No module named 'ray'\", name='ray')")
    parser = build_parser((), optional=((name, "register"),))
    assert "pip install 'jecs[distributed]'" in " ".join(parser.format_help().split())
    assert "fake" not in parser.format_help()


def test_a_layer_not_installed_is_left_out_quietly():
    parser = build_parser((), optional=(("no_such_layer_package.cli", "register"),))
    assert "not available" not in parser.format_help()


def test_warnings_are_shown_once_as_one_line(capsys):
    def handler(args):
        for _ in range(3):
            warnings.warn("the table is small\n  (30 rows)", UserWarning, stacklevel=1)
        return 0

    parser = argparse.ArgumentParser(prog="jecs")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("demo").set_defaults(handler=handler)
    assert run(parser, ["demo"]) == 0
    assert capsys.readouterr().err.splitlines() == ["jecs demo: warning: the table is small (30 rows)"]
