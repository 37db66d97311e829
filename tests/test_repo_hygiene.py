"""Repository hygiene: a short README, comments without tracker history, a documented public API.

Each check is a function over text or objects, and each has a probe below showing it can fail.
"""

from __future__ import annotations

import doctest
import enum
import importlib
import inspect
import os
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import jecs_core

ROOT = Path(__file__).resolve().parents[1]
README_MAX_LINES = 250
MIN_EXAMPLES = 15
TEXT_SUFFIXES = {".py", ".md", ".sh", ".toml", ".txt", ".cfg", ".yml", ".yaml"}
SKIP_DIRS = {".git", "__pycache__", ".pytest_cache", ".hypothesis", "test-artifacts", ".jecs_cache", "build", "dist",
             ".venv", "node_modules"}
# Data shipped with its own provenance (third-party licence text), not the project's prose; and this
# file, whose probes below are made of the very phrases the check refuses.
SKIP_PATHS = ("sample_data/real/", "tests/test_repo_hygiene.py")

# Written in pieces so this file does not match its own patterns.
_NOTES = "METHOD" + "-NOTES"
HISTORY_PATTERNS = [
    (re.compile(r"\bissues?\s*#?\s*\d+", re.I), "tracker number"),
    (re.compile(re.escape(_NOTES)), "a notes file the repository does not contain"),
    (re.compile(r"\bkept for callers\b|\bfirst release\b", re.I), "history"),
    (re.compile(r"\b(?:it|this|that|which|they|we)\s+used\s+to\b|\bused\s+to\s+be\b", re.I), "history ('used to')"),
    (re.compile(r"\bpreviously\b", re.I), "history ('previously')"),
    (re.compile(r"\bnow\s+(?:imports|selects|runs|takes|uses|returns|reads|writes|checks|refuses|accepts|"
                r"gives|shows|prints|lives|works|calls|keeps)\b", re.I), "history ('now ...')"),
]
# Citing another project's tracker (lm-evaluation-harness, by its number) is a reference, not history.
OTHER_PROJECT = re.compile(r"(?:github\.com/|lm-evaluation-harness|streamlit|pytorch|torch|transformers|pandas|numpy|"
                           r"scipy|pytest|plotly|ray|pyarrow|playwright|chromium|hypothesis|[\w.-]+/[\w.-]+)\W{0,3}$", re.I)


def history_problems(text: str, name: str = "<text>") -> list[str]:
    """``name:line: phrase (why)`` for every tracker number or history phrase in ``text``."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for pattern, why in HISTORY_PATTERNS:
            for match in pattern.finditer(line):
                if why == "tracker number" and OTHER_PROJECT.search(line[: match.start()]):
                    continue
                found.append(f"{name}:{number}: {match.group(0)!r} ({why})")
    return found


def _skipped_dir(folder: Path) -> bool:
    # A virtual environment inside the checkout (any name: `python -m venv .v`) holds other projects' files.
    return (folder.name in SKIP_DIRS or folder.name.endswith(".egg-info") or folder.name == "site-packages"
            or (folder / "pyvenv.cfg").is_file())


def _text_files(root: Path = ROOT) -> list[Path]:
    files = []
    for top, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not _skipped_dir(Path(top) / d)]
        for name in names:
            path = Path(top) / name
            rel = path.relative_to(root).as_posix()
            if path.is_file() and not rel.startswith(SKIP_PATHS) and (path.suffix in TEXT_SUFFIXES or rel == ".ci/run"):
                files.append(path)
    return sorted(files)


def test_a_virtual_environment_inside_the_checkout_is_not_scanned(tmp_path):
    for venv in (".v", "env"):  # any name: what marks a virtual environment is its pyvenv.cfg
        (tmp_path / venv / "lib" / "site-packages").mkdir(parents=True)
        (tmp_path / venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
        (tmp_path / venv / "lib" / "site-packages" / "other.py").write_text("# previously\n")
        (tmp_path / venv / "bin").mkdir()
        (tmp_path / venv / "bin" / "tool.py").write_text("# previously\n")  # outside site-packages too
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mine.py").write_text("x = 1\n")
    assert [p.relative_to(tmp_path).as_posix() for p in _text_files(tmp_path)] == ["pkg/mine.py"]


def _sections(doc: str | None) -> set[str]:
    """Numpydoc section titles: a line followed by a line of dashes."""
    return set(re.findall(r"^\s*([A-Z][\w ]*)\n\s*-{3,}\s*$", doc or "", re.M))


def numpydoc_problems(names, namespace) -> list[str]:
    """Public names whose docstring lacks the numpydoc sections their kind needs."""
    problems = []
    for name in names:
        obj = getattr(namespace, name)
        doc = inspect.getdoc(obj) if callable(obj) else None
        sections = _sections(doc)
        if inspect.isclass(obj):
            if issubclass(obj, (BaseException, enum.Enum)):
                if not doc:
                    problems.append(f"{name}: no docstring")
            elif not {"Parameters", "Attributes"} & sections:
                problems.append(f"{name}: class without a Parameters or Attributes section")
        elif callable(obj):
            missing = [s for s in ("Parameters", "Returns") if s not in sections]
            if "Returns" in missing and "Yields" in sections:
                missing.remove("Returns")
            if "Parameters" in missing and not inspect.signature(obj).parameters:
                missing.remove("Parameters")
            if missing:
                problems.append(f"{name}: no {' or '.join(missing)} section")
    return problems


def _core_modules() -> list:
    modules = [jecs_core]
    for info in pkgutil.walk_packages(jecs_core.__path__, "jecs_core."):
        modules.append(importlib.import_module(info.name))
    return modules


def _doctests() -> list[doctest.DocTest]:
    finder = doctest.DocTestFinder(exclude_empty=True)
    tests = {}
    for module in _core_modules():
        for test in finder.find(module):
            if test.examples:
                tests[test.name] = test
    return list(tests.values())


def runnable_examples(tests) -> list[str]:
    """Names of docstrings with at least one example that runs and shows its output (not skipped)."""
    return sorted(t.name for t in tests if any(e.want and not e.options.get(doctest.SKIP) for e in t.examples))


# ------------------------------------------------------------------------------------ the checks

def test_readme_is_short():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; move detail to docs/ (limit {README_MAX_LINES})"


def test_no_tracker_numbers_or_history_in_code_tests_and_docs():
    found = [p for path in _text_files()
             for p in history_problems(path.read_text(encoding="utf-8", errors="replace"), path.relative_to(ROOT).as_posix())]
    assert not found, "comments explain, git remembers:\n" + "\n".join(found)


def test_every_public_name_has_numpydoc_sections():
    problems = numpydoc_problems(jecs_core.__all__, jecs_core)
    assert not problems, "jecs_core.__all__ without numpydoc sections:\n" + "\n".join(problems)


def test_enough_runnable_examples():
    found = runnable_examples(_doctests())
    assert len(found) >= MIN_EXAMPLES, f"{len(found)} runnable Examples in jecs_core (want {MIN_EXAMPLES}): {found}"


def test_the_doctests_pass_and_the_test_command_runs_them():
    command = "python -m pytest --doctest-modules jecs_core"
    script = (ROOT / "scripts" / "test.sh").read_text(encoding="utf-8")
    assert command in script, f"scripts/test.sh must run the doctests of jecs_core ({command})"
    # The same command in a fresh interpreter, with pyproject's doctest flags.
    run = subprocess.run([sys.executable, *command.split()[1:], "-q", "-p", "no:cacheprovider"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and re.search(r"\d+ passed", run.stdout), run.stdout[-3000:] + run.stderr[-2000:]


def test_conformance_cases_run_without_skips():
    run = subprocess.run([sys.executable, "-m", "pytest", "tests/conformance", "-q", "-rs", "-p", "no:cacheprovider"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert re.search(r"\d+ passed", run.stdout) and "skipped" not in run.stdout, run.stdout[-2000:]


def mirror_problems(package: Path, tests: Path) -> list[str]:
    """Subpackages of ``package`` without a test folder of the same name under ``tests``."""
    subpackages = sorted(p.parent.name for p in package.glob("*/__init__.py"))
    return [f"{package.name}/{name}/ has no {tests.relative_to(ROOT)}/{name}/" for name in subpackages
            if not (tests / name).is_dir()]


def test_tests_core_mirrors_the_subpackages_of_jecs_core():
    problems = mirror_problems(ROOT / "jecs_core", ROOT / "tests" / "core")
    assert not problems, "tests/core mirrors jecs_core:\n" + "\n".join(problems)


def broken_links(markdown: Path) -> list[str]:
    """Relative links of a Markdown file that point at nothing in the repository."""
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", markdown.read_text(encoding="utf-8"))
    return [f"{markdown.relative_to(ROOT)} -> {t}" for t in targets
            if not re.match(r"[a-z]+://", t) and not (markdown.parent / t).exists()]


def test_links_in_the_docs_resolve():
    pages = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", *sorted((ROOT / "docs").glob("*.md")),
             ROOT / "views" / "README.md", ROOT / "scoring" / "README.md"]
    found = [link for page in pages for link in broken_links(page)]
    assert not found, "links to missing files:\n" + "\n".join(found)


# ------------------------------------------------------------------------------------ the probes

@pytest.mark.parametrize("text", [
    # Built from parts so this file itself cites no issue number.
    "# fixed in iss" + "ue 12", "see Iss" + "ue #7's grid", "(METHOD" + "-NOTES, 'BH')", "# Kept for callers of the first release.",
    "the page used to be slow", "which previously failed", "The frame now imports every module",
])
def test_the_history_check_catches(text):
    assert history_problems(text)


@pytest.mark.parametrize("text", [
    "lm-evaluation-harness iss" + "ue #1056 asks for per-model accuracy", "streamlit/streamlit iss" + "ue 9876",
    "the neighbours used to estimate the density", "the result is now the active data set",
    "datetime.now(timezone.utc)", "a tissue 12 cm wide",
])
def test_the_history_check_lets_through(text):
    assert not history_problems(text)


def test_the_numpydoc_check_catches_missing_sections():
    class Space:
        pass

    def documented(x):
        """Doc.

        Parameters
        ----------
        x : int

        Returns
        -------
        int
        """
        return x

    def bare(x):
        """Doc without sections."""
        return x

    class Result:
        """A result without an Attributes section."""

    Space.documented, Space.bare, Space.Result = staticmethod(documented), staticmethod(bare), Result
    assert numpydoc_problems(["documented", "bare", "Result"], Space) == [
        "bare: no Parameters or Returns section", "Result: class without a Parameters or Attributes section"]


def test_the_example_counter_ignores_skipped_and_silent_examples():
    parser = doctest.DocTestParser()
    runnable = parser.get_doctest(">>> 1 + 1\n2\n", {}, "a", None, 0)
    skipped = parser.get_doctest(">>> import math\n>>> load('x')  # doctest: +SKIP\n3\n", {}, "b", None, 0)
    assert runnable_examples([runnable, skipped]) == ["a"]


def test_the_mirror_check_catches_a_missing_folder(tmp_path, monkeypatch):
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    (tmp_path / "pkg" / "rules").mkdir(parents=True)
    (tmp_path / "pkg" / "rules" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "tests" / "core").mkdir(parents=True)
    assert mirror_problems(tmp_path / "pkg", tmp_path / "tests" / "core") == ["pkg/rules/ has no tests/core/rules/"]
    (tmp_path / "tests" / "core" / "rules").mkdir()
    assert mirror_problems(tmp_path / "pkg", tmp_path / "tests" / "core") == []


def test_the_link_check_catches_a_missing_file(tmp_path, monkeypatch):
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    (tmp_path / "here.md").write_text("x", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text("[ok](here.md) [web](https://example.org) [gone](docs/GONE.md#part)", encoding="utf-8")
    assert broken_links(page) == ["page.md -> docs/GONE.md"]
