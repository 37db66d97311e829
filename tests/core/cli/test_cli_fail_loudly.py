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


def _parser_with(handler) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="jecs")
    subparsers = parser.add_subparsers(dest="command")
    subparsers.add_parser("fake").set_defaults(handler=handler)
    return parser


def test_a_command_missing_an_extra_at_run_time_names_the_install_line(capsys):
    def handler(args):
        raise ModuleNotFoundError("No module named 'torch'", name="torch")

    assert run(_parser_with(handler), ["fake"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "jecs fake: error: needs torch" in err and "pip install 'torch==2.13.0' 'jecs[scoring]'" in err


def test_a_command_with_a_broken_import_at_run_time_still_raises():
    def handler(args):
        import jecs_core.no_such_module  # noqa: F401

    with pytest.raises(ModuleNotFoundError, match="no_such_module"):
        run(_parser_with(handler), ["fake"])


def test_jecs_score_without_torch_is_one_line(tmp_path, monkeypatch, capsys):
    pytest.importorskip("scoring")
    from jecs_cli import main

    texts = tmp_path / "t.csv"
    texts.write_text("item_id,split,text\na,test,hello\n", encoding="utf-8")
    for name in [m for m in sys.modules if m == "torch" or m.startswith(("torch.", "scoring.loading"))]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch -> ModuleNotFoundError, as on a machine without it
    assert main(["score", "--texts", str(texts), "--model", f"m={tmp_path}", "--out", str(tmp_path / "o.csv")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs torch" in err and "jecs[scoring]" in err
