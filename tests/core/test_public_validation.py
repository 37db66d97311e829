"""The layers above jecs_core reach its argument checks through the public jecs_core.validation,
never through a private module of the core."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import jecs_core._validation as private
from jecs_core import validation

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("scoring", "dashboard", "views", "jecs_build", "jecs_cli")


def _private_core_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [node.module or ""] if isinstance(node, ast.ImportFrom) else \
            [a.name for a in node.names] if isinstance(node, ast.Import) else []
        found += [n for n in names if n.startswith("jecs_core.") and any(p.startswith("_") for p in n.split(".")[1:])]
    return found


def test_no_layer_above_the_core_imports_a_private_core_module():
    files = [ROOT / "app.py", *(f for layer in LAYERS for f in sorted((ROOT / layer).rglob("*.py")))]
    offenders = {str(f.relative_to(ROOT)): got for f in files if (got := _private_core_imports(f))}
    assert not offenders, offenders


def test_the_probe_sees_a_private_import(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("from jecs_core._validation import check_alpha\nimport jecs_core.io\n", encoding="utf-8")
    assert _private_core_imports(probe) == ["jecs_core._validation"]


@pytest.mark.parametrize("name", validation.__all__)
def test_the_public_checks_are_the_cores_own(name):
    assert getattr(validation, name) is getattr(private, name)


def test_review_refusals_name_the_argument():
    import numpy as np

    import jecs_core as jc

    p = np.ma.masked_array([0.01, 0.5, 0.02], mask=[False, True, False])
    with pytest.raises(ValueError, match=r"^p_max has masked values; fill or drop the masked values first$|"
                       r"^pvalues has masked values; fill or drop the masked values first$"):
        jc.select(p, alpha=0.1)
    with pytest.raises(ValueError, match=r"^path must be a file path \(str or pathlib.Path\), got int$"):
        jc.load_scores(123)
