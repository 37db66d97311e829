"""jecs_core's public names load on first use, and every one of them resolves."""

from __future__ import annotations

import subprocess
import sys

import pytest

import jecs_core


def _fresh(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout


def test_every_name_in_all_resolves_in_a_fresh_interpreter():
    out = _fresh("import jecs_core as jc\n"
                 "missing = [n for n in jc.__all__ if getattr(jc, n, None) is None]\n"
                 "print(len(jc.__all__), missing)")
    assert out.split(" ", 1)[1].strip() == "[]" and int(out.split(" ", 1)[0]) > 50


def test_the_lazy_table_and_all_list_the_same_names():
    lazy = set(jecs_core._MODULE_OF)
    public = set(jecs_core.__all__) - {"__version__"}
    assert lazy == public, (sorted(public - lazy), sorted(lazy - public))
    assert len(jecs_core.__all__) == len(set(jecs_core.__all__))


@pytest.mark.parametrize("name", sorted(jecs_core._MODULE_OF))
def test_each_name_is_the_defining_modules_object(name):
    import importlib

    module = importlib.import_module(f"jecs_core.{jecs_core._MODULE_OF[name]}")
    assert getattr(jecs_core, name) is getattr(module, name)


def test_import_defers_the_heavy_libraries():
    out = _fresh("import sys, jecs_core\n"
                 "print(sorted({m.split('.')[0] for m in sys.modules} & {'numpy', 'scipy', 'pandas', 'pyarrow'}))")
    assert out.strip() == "[]"


def test_selecting_from_pvalues_needs_neither_pandas_nor_scipy_stats():
    # The selection rules and the p-values are the library's hot path; pandas is for tables and
    # scipy.stats takes most of a second to import.
    out = _fresh("import sys, numpy, jecs_core\n"
                 "p = numpy.random.default_rng(0).uniform(size=(50, 3))\n"
                 "for name in ('storey-maxp', 'jmcs', 'jecs', 'union', 'intersection'):\n"
                 "    jecs_core.select(p, alpha=0.2, method=name)\n"
                 "jecs_core.conformal_pvalues(numpy.zeros((4, 3)), numpy.ones((9, 3)))\n"
                 "print(sorted({'pandas', 'scipy.stats'} & set(sys.modules)))")
    assert out.strip() == "[]"


def test_subpackages_and_unknown_names():
    assert jecs_core.evaluate.evaluate.__module__.startswith("jecs_core.evaluate")
    assert "select" in dir(jecs_core)
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        jecs_core.no_such_name  # noqa: B018
    from jecs_core import select, table_pvalues  # noqa: F401  (from-imports go through the same hook)


@pytest.mark.parametrize("package", ["jecs_core.evaluate", "jecs_core.shift"])
def test_lazy_subpackages_resolve_every_public_name_to_its_module(package):
    import importlib

    found = importlib.import_module(package)
    assert set(found._MODULE_OF) == set(found.__all__)
    for name, module in found._MODULE_OF.items():
        assert getattr(found, name) is getattr(importlib.import_module(f"{package}.{module}"), name), name
    submodule = {"jecs_core.evaluate": "protocol", "jecs_core.shift": "check"}[package]  # reached as an attribute
    assert getattr(found, submodule).__name__ == f"{package}.{submodule}"
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        found.no_such_name  # noqa: B018


def test_the_parsers_constants_load_without_the_evaluator_or_the_shift_methods():
    out = _fresh("import sys\n"
                 "from jecs_core.evaluate.defaults import DEFAULT_SWEEP_LAMBDAS, methods_taking\n"
                 "from jecs_core.shift.methods import SHIFT_METHODS\n"
                 "print(sorted({'pandas', 'scipy', 'jecs_core.evaluate.montecarlo', 'jecs_core.shift.choose'} & set(sys.modules)))")
    assert out.strip() == "[]"
