"""The sidecar JSON of a selection export: each rule's fit and the diagnostics as recorded, strict-JSON text, the sidecar's path,
the check that a comparison belongs to its table.

Import them from :mod:`jecs_core.export`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .io import check_output_path
from .rules import REGISTRY

if TYPE_CHECKING:
    from .compare import Comparison


def _fit_of(result) -> dict | None:
    """A rule's fit as the sidecar records it: its ``fit_summary()`` rows by key, and why it fell back."""
    fields = {row.key: row.value for row in result.fit_summary()}
    if result.fallback_reason is not None:
        fields["fallback_reason"] = result.fallback_reason
    return fields or None


def fit_fields(comparison: Comparison, primary: str) -> dict:
    """Fit scalars (lambda, k_n, ...): every rule's under ``fits``; at the top level the chosen rule's,
    else those of the first rule that fits lambda from the data (the paper's JECS), so readers of the top-level ``lambda`` keep finding the envelope's."""
    fits = {name: fit for name in comparison.methods if (fit := _fit_of(comparison.result(name))) is not None}
    if not fits:
        return {}
    if "lambda" in fits.get(primary, {}):
        top = primary
    else:
        fitted = [name for name in fits if "lam" in REGISTRY[name].option_names and "lambda" in fits[name]]
        top = (fitted or [primary if primary in fits else next(iter(fits))])[0]
    return {**fits[top], "fit_method": top, "fits": fits}


def sidecar_path(csv_path: str | Path) -> Path:
    """``selected.csv`` -> ``selected.json``."""
    return Path(csv_path).with_suffix(".json")


def check_pair(table, comparison) -> None:
    """``comparison`` was run on ``table``: its p-values have the table's (n, K), or it belongs to another table."""
    from .compare import Comparison  # loaded already: the export imports both
    from .data import ScoreTable

    if not isinstance(table, ScoreTable):
        raise TypeError(f"table must be a ScoreTable (from load_scores or table_from_frame), got {type(table).__name__}")
    if not isinstance(comparison, Comparison):
        raise TypeError(f"comparison must be a Comparison (from compare_methods), got {type(comparison).__name__}")
    if np.shape(comparison.pvalues) != (table.n, table.K):
        raise ValueError(f"comparison must be run on this table: its p-values have shape {np.shape(comparison.pvalues)}, "
                         f"not the table's (n, K) = ({table.n}, {table.K}) test items and models")


def plain(value, *, strict: bool = False):
    """``value`` with numpy scalars and arrays as Python numbers and lists (``json.dumps`` takes them).

    ``strict``: also NaN and infinities as ``None`` and keys as text, for strict JSON (the sidecar file).
    """
    if isinstance(value, dict):
        return {(str(k) if strict else plain(k)): plain(v, strict=strict) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        items = [plain(v, strict=strict) for v in value]
        return items if strict or isinstance(value, list) else tuple(items)
    if isinstance(value, (np.generic, np.ndarray)):
        return plain(value.tolist(), strict=strict)
    if strict and isinstance(value, float) and not np.isfinite(value):
        return None
    return value


def sidecar_text(record: dict) -> str:
    """The sidecar JSON as written to disk (strict JSON: NaN/inf as null; the dashboard's download uses the same text)."""
    return json.dumps(plain(record, strict=True), indent=2, allow_nan=False) + "\n"


def check_selection_paths(path: str | Path, *, inputs=(), what: str = "path") -> tuple[Path, Path]:
    """The CSV path and its sidecar, refused as :func:`~jecs_core.io.check_output_path` refuses them (``.csv``)."""
    inputs = [p for p in inputs if p and Path(p).exists()]
    path = check_output_path(path, suffixes=(".csv",), inputs=inputs, what=what)
    # A scores file's <stem>.provenance.json is read with it (the report shows it): an input too.
    records = [Path(p).with_suffix(".provenance.json") for p in inputs]
    return path, check_output_path(sidecar_path(path), suffixes=(".json",), what="sidecar",
                                   inputs=[*inputs, *(r for r in records if r.exists())])


def diagnostics_record(diagnostics: dict, shift: dict | None) -> dict:
    """The diagnostics as recorded, with the p-values they read: always the plain ones.

    Beside a covariate-aware selection (``options["shift"]``) the record also carries the sentence
    :func:`jecs_core.diagnostics.plain_basis` prints, so the sidecar alone says the two differ.
    """
    from .diagnostics import plain_basis  # loaded already: the caller computed the diagnostics

    record = {**diagnostics, "pvalues": "plain"}
    note = plain_basis(None if shift is None else shift.get("method"))
    if note is not None:
        record["pvalues_note"] = note
    return record
