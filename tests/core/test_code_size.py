"""Small files with one job: no source file over 300 lines, no function over 60 lines of code.

Lines of code exclude blank lines, comment-only lines and docstrings.
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("jecs_core", "jecs_cli", "scoring", "jecs_build", "sample_data", "dashboard", "views", "benchmarks", "scripts")
MAX_FILE_LINES = 300
MAX_FUNCTION_CODE_LINES = 60


def _sources() -> list[Path]:
    files = [ROOT / "app.py"]
    for package in PACKAGES:
        if (ROOT / package).is_dir():
            files.extend(sorted((ROOT / package).rglob("*.py")))
    return files


def _code_lines(source: str) -> set[int]:
    """Line numbers that hold code (not blank, not only a comment, not part of a docstring)."""
    lines: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                        tokenize.ENCODING, tokenize.ENDMARKER):
            continue
        lines.update(range(tok.start[0], tok.end[0] + 1))
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
                    and isinstance(body[0].value.value, str):
                lines.difference_update(range(body[0].lineno, body[0].end_lineno + 1))
    return lines


def long_functions(path: Path) -> list[str]:
    source = path.read_text(encoding="utf-8")
    code = _code_lines(source)
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            n = len([line for line in code if node.lineno <= line <= node.end_lineno])
            if n > MAX_FUNCTION_CODE_LINES:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}() has {n} lines of code")
    return found


def test_no_source_file_over_300_lines():
    too_long = [f"{p.relative_to(ROOT)} ({n} lines)" for p in _sources()
                if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_FILE_LINES]
    assert not too_long, "files over 300 lines: " + ", ".join(too_long)


def test_no_function_over_60_lines_of_code():
    found = [problem for path in _sources() for problem in long_functions(path)]
    assert not found, "functions over 60 lines of code:\n" + "\n".join(found)


def test_the_counter_counts_code_not_docstrings(tmp_path, monkeypatch):
    # The probe lives in tmp_path, so the package directory is never written to.
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    body = "\n".join(f"    x{i} = {i}" for i in range(61))
    (tmp_path / "jecs_core").mkdir()
    probe = tmp_path / "jecs_core" / "_size_probe.py"
    probe.write_text(f'def f():\n    """Doc.\n\n    More doc.\n    """\n    # a comment\n\n{body}\n', encoding="utf-8")
    assert long_functions(probe) == ["jecs_core/_size_probe.py:1 f() has 62 lines of code"]
    short = "\n".join(body.splitlines()[:59])  # 59 body lines + the def line = 60
    probe.write_text(f'def f():\n    """Doc."""\n{short}\n', encoding="utf-8")
    assert long_functions(probe) == []
