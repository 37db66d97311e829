"""The layers only point down: an AST scan of every import in the project's packages.

Layers, bottom to top (see ARCHITECTURE.md): jecs_core -> scoring -> jecs_build;
dashboard -> views -> app; jecs_cli mounts the command lines of all of them.
Imports inside functions count too: a lazy upward import is still upward.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ("jecs_core", "scoring", "jecs_build", "sample_data", "dashboard", "views", "app", "jecs_cli")

# What each layer must never import (project packages and heavy third-party ones).
FORBIDDEN = {
    "jecs_core": {"scoring", "jecs_build", "sample_data", "dashboard", "views", "app", "jecs_cli",
                  "streamlit", "plotly", "torch", "transformers", "ray"},
    "scoring": {"jecs_build", "sample_data", "dashboard", "views", "app", "jecs_cli", "streamlit", "plotly"},
    "jecs_build": {"dashboard", "views", "app", "jecs_cli", "streamlit"},
    "sample_data": {"scoring", "dashboard", "views", "app", "jecs_cli", "torch"},
    "dashboard": {"views", "app", "jecs_cli", "jecs_build"},
    "views": {"app", "jecs_cli", "jecs_build"},
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _sources() -> list[Path]:
    found = [ROOT / "app.py"]
    for package in PROJECT:
        folder = ROOT / package
        if folder.is_dir():
            found.extend(p for p in folder.rglob("*.py") if "real" not in p.relative_to(ROOT).parts[1:2])
    return found


def _imports(path: Path) -> list[tuple[str, int, bool]]:
    """(absolute module imported, line, at module level) for every import in ``path``."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    top_level = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno, id(node) in top_level) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.append((target, node.lineno, id(node) in top_level))
            # "from pkg import submodule" imports the submodule too.
            found.extend((f"{target}.{alias.name}", node.lineno, id(node) in top_level) for alias in node.names)
    return found


def test_layers_only_import_downward():
    problems = []
    for path in _sources():
        layer = _module_name(path).split(".")[0]
        banned = FORBIDDEN.get(layer, set())
        for target, line, _ in _imports(path):
            if target.split(".")[0] in banned:
                problems.append(f"{path.relative_to(ROOT)}:{line} ({layer}) imports {target}")
    assert not problems, "upward imports:\n" + "\n".join(sorted(set(problems)))


def _project_graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in _sources()}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for target, _, _top in _imports(path):
            if target in modules and target != name:
                graph[name].add(target)
    return graph


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_no_import_cycles_between_project_modules():
    graph = _project_graph()
    # A package's __init__ importing its own submodules is the normal shape, not a cycle.
    for name in graph:
        graph[name] = {t for t in graph[name] if not t.startswith(f"{name}.")}
    cycle = _find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_scan_catches_an_upward_import(tmp_path, monkeypatch):
    # The scan must be able to fail: a fake core module importing the dashboard is reported.
    # The fake project lives in tmp_path, so the package directory is never written to.
    (tmp_path / "jecs_core").mkdir()
    (tmp_path / "app.py").write_text("", encoding="utf-8")
    (tmp_path / "jecs_core" / "_layering_probe.py").write_text("def f():\n    import dashboard.compute\n", encoding="utf-8")
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    with pytest.raises(AssertionError, match="_layering_probe.py:2 .jecs_core. imports dashboard.compute"):
        test_layers_only_import_downward()


def test_the_cycle_finder_finds_a_cycle():
    assert _find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b"}, "b": set()}) is None


def _subpackage(module: str) -> str:
    """``jecs_core.evaluate.kernels`` -> ``jecs_core.evaluate``; a top-level module stands for itself."""
    parts = module.split(".")
    return ".".join(parts[:2])


def _subpackage_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    collapsed: dict[str, set[str]] = {}
    for name, targets in graph.items():
        edges = collapsed.setdefault(_subpackage(name), set())
        edges.update(_subpackage(t) for t in targets)
    for name, edges in collapsed.items():
        edges.discard(name)
        # A package importing its own top-level package (``jecs_core``) is the parent, not a sibling.
        edges.discard(name.split(".")[0])
    for target in {t for edges in collapsed.values() for t in edges}:
        collapsed.setdefault(target, set())
    return collapsed


def test_no_import_cycles_between_subpackages():
    cycle = _find_cycle(_subpackage_graph(_project_graph()))
    assert cycle is None, "import cycle between subpackages: " + " -> ".join(cycle)


def test_the_subpackage_scan_catches_a_loop():
    graph = {"jecs_core.evaluate.sweeps": {"jecs_core.diagnostics.twin"}, "jecs_core.diagnostics.twin": {"jecs_core.evaluate.draws"},
             "jecs_core.evaluate.draws": set()}
    assert _find_cycle(_subpackage_graph(graph)) == ["jecs_core.diagnostics", "jecs_core.evaluate", "jecs_core.diagnostics"]


def _private_reach_ins(path: Path) -> list[str]:
    """``from other_module import _name`` where ``other_module`` is another project module."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = package.split(".")
            base = base[: len(base) - node.level + 1]
            target = ".".join([*base, node.module] if node.module else base)
        else:
            target = node.module or ""
        if target.split(".")[0] not in PROJECT or target == module:
            continue
        for alias in node.names:
            # A package's own private modules (``from . import _params``) are its business.
            own_module = target == package and (ROOT / Path(*package.split(".")) / f"{alias.name}.py").exists()
            if alias.name.startswith("_") and not alias.name.startswith("__") and not own_module:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {target}.{alias.name}")
    return found


def test_no_module_imports_another_modules_private_names():
    problems = [line for path in _sources() for line in _private_reach_ins(path)]
    assert not problems, "private names imported across modules:\n" + "\n".join(sorted(problems))


def test_the_private_name_scan_can_fail(tmp_path, monkeypatch):
    (tmp_path / "jecs_core").mkdir()
    probe = tmp_path / "jecs_core" / "probe.py"
    probe.write_text("from .envelope import _check_knn\nfrom ._validation import check_knn\n", encoding="utf-8")
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    assert _private_reach_ins(probe) == ["jecs_core/probe.py:1 imports jecs_core.envelope._check_knn"]
