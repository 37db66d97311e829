"""The README's examples work: its Python blocks run, its `jecs` commands parse, the fast ones run.

The Python blocks of docs/*.md run too, their `jecs` commands parse, and the printed output they show
is what the command prints.

Everything runs in a temporary directory that sees the shipped ``sample_data/``, so the examples
read the same paths a newcomer types and write nothing into the checkout.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from jecs_cli import OPTIONAL_REGISTRARS, main
from jecs_core.cli import CORE_REGISTRARS, build_parser

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
# Commands that run in seconds on the shipped samples; the others (models and results files a user
# brings) are only parsed.
RUN = ("select", "sweep", "leaderboard")


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.S | re.M)


def jecs_commands(text: str) -> list[str]:
    """Every command of a bash block that calls ``jecs``: continued lines joined, without a trailing comment
    or the ``[optional]`` parts a synopsis shows."""
    lines = [line.split("  #")[0].strip() for block in blocks(text, "bash")
             for line in re.sub(r"\\\n\s*", " ", block).splitlines()]
    return [re.sub(r"\s*\[[^\[\]]*\]", "", line) for line in lines if line.startswith("jecs ")]


DOC_COMMANDS = [(path.name, command) for path in sorted((ROOT / "docs").glob("*.md"))
                for command in jecs_commands(path.read_text(encoding="utf-8"))]


@pytest.fixture
def sample_dir(tmp_path, monkeypatch):
    (tmp_path / "sample_data").symlink_to(ROOT / "sample_data", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_readme_has_examples_to_check():
    assert len(blocks(README, "python")) >= 2
    assert {shlex.split(c)[1] for c in jecs_commands(README)} >= {"select", "sweep", "leaderboard"}


@pytest.mark.parametrize("index", range(len(blocks(README, "python"))))
def test_python_example_runs(index, sample_dir):
    code = blocks(README, "python")[index]
    with contextlib.redirect_stdout(io.StringIO()) as out:
        exec(compile(code, f"README.md python block {index + 1}", "exec"), {"__name__": "readme"})
    assert out.getvalue().strip(), "the example prints what it shows"


DOC_BLOCKS = [(path.name, i) for path in sorted((ROOT / "docs").glob("*.md"))
              for i, _ in enumerate(blocks(path.read_text(encoding="utf-8"), "python"))]


@pytest.mark.parametrize(("doc", "index"), DOC_BLOCKS)
def test_docs_python_example_runs(doc, index, sample_dir):
    code = blocks((ROOT / "docs" / doc).read_text(encoding="utf-8"), "python")[index]
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, f"docs/{doc} python block {index + 1}", "exec"), {"__name__": "doc"})


@pytest.mark.parametrize("command", jecs_commands(README) + [command for _, command in DOC_COMMANDS])
def test_cli_example_parses(command):
    parser = build_parser(CORE_REGISTRARS, optional=OPTIONAL_REGISTRARS)
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            parser.parse_args(shlex.split(command)[1:])
    except SystemExit as exit_:
        pytest.fail(f"README command does not parse ({exit_.code}): {command}\n{err.getvalue()}")


@pytest.mark.parametrize("command", [c for c in jecs_commands(README)
                                     if shlex.split(c)[1] in RUN and "sample_data/" in c])
def test_fast_cli_example_runs(command, sample_dir):
    with contextlib.redirect_stdout(io.StringIO()) as out, contextlib.redirect_stderr(io.StringIO()) as err:
        code = main(shlex.split(command)[1:])
    assert code == 0, f"{command}\n{err.getvalue()}"
    assert out.getvalue().strip()


def test_the_readme_select_output_is_what_jecs_prints(sample_dir):
    # The printed table in "Quick start 2" must be the command's real output, line for line.
    shown = blocks(README, "text")[0].strip().splitlines()
    with contextlib.redirect_stdout(io.StringIO()) as out, contextlib.redirect_stderr(io.StringIO()):
        main(["select", "sample_data/synthetic_k4.csv", "--alpha", "0.1", "--no-diagnostics"])
    printed = out.getvalue().splitlines()
    assert [line for line in shown if line not in printed] == []


def test_the_evaluation_doc_output_is_what_jecs_prints(sample_dir):
    # docs/EVALUATION.md shows `jecs evaluate`'s whole output under its command: line for line.
    text = (ROOT / "docs" / "EVALUATION.md").read_text(encoding="utf-8")
    command = next(c for _, c in DOC_COMMANDS if c.startswith("jecs evaluate "))
    fenced = re.findall(r"^```[a-z]*\n(.*?)^```\n", text, re.S | re.M)  # every block, in order
    shown = next(block for block in fenced if block.startswith("input: ")).strip().splitlines()
    with contextlib.redirect_stdout(io.StringIO()) as out, contextlib.redirect_stderr(io.StringIO()):
        assert main([*shlex.split(command)[1:], "--no-progress"]) == 0
    assert out.getvalue().strip().splitlines() == shown
