"""docs/CLI-REFERENCE.md is what the parsers say: every command's every argument, current."""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

import pytest

from jecs_cli import COMMANDS
from jecs_cli.reference import reference_markdown

ROOT = Path(__file__).resolve().parents[3]
REFERENCE = ROOT / "docs" / "CLI-REFERENCE.md"


def _every_layer_installed() -> bool:
    return all(importlib.util.find_spec(name) is not None for name in ("torch", "transformers", "plotly", "peft"))


def test_the_reference_is_current():
    if not _every_layer_installed():
        pytest.skip("the reference lists every layer's commands; this install lacks an optional layer (pip install -e '.[all]')")
    written = REFERENCE.read_text(encoding="utf-8")
    assert written == reference_markdown(), (
        "docs/CLI-REFERENCE.md is out of date: python -m jecs_cli.reference > docs/CLI-REFERENCE.md")


def test_every_command_and_option_has_a_row():
    page = REFERENCE.read_text(encoding="utf-8")
    for name, *_ in COMMANDS:
        assert f"## `jecs {name}`" in page, name
    for option in ("--alpha", "--lower-is-member", "--token-budget", "--lambda-grid", "--pairwise-out", "--per-rep-out"):
        assert f"| `{option}` |" in page, option


def test_rows_show_values_defaults_and_expanded_help():
    parser = argparse.ArgumentParser(prog="toy")
    sub = parser.add_subparsers().add_parser("run", help="run the toy")
    sub.add_argument("table", metavar="TABLE", help="input table")
    sub.add_argument("--mode", choices=("a", "b"), default="a", help="mode (default %(default)s; 100%% sure)")
    sub.add_argument("--items", nargs="+", required=True, help="items | pipes")
    sub.add_argument("--quiet", action="store_true", help="say\n  nothing")
    page = reference_markdown(parser)
    assert "## `jecs run`\n\nRun the toy.\n" in page
    assert "| `table` (positional) | `TABLE` |  | input table |" in page
    assert "| `--mode` | `a`, `b` | `a` | mode (default a; 100% sure) |" in page
    assert "| `--items` | `ITEMS` ... | required | items \\| pipes |" in page
    assert "| `--quiet` | (flag) |  | say nothing |" in page
