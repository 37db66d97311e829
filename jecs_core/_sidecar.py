"""The sidecar JSON of a selection export: each rule's fit and the diagnostics as recorded, strict-JSON text, the sidecar's path.

Import them from :mod:`jecs_core.export`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

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


def _strict(value):
    """NaN and infinities as ``null`` (strict JSON); numpy scalars as Python numbers."""
    if isinstance(value, dict):
        return {str(k): _strict(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_strict(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not np.isfinite(value):
        return None
    return value


def sidecar_text(record: dict) -> str:
    """The sidecar JSON as written to disk (strict JSON: NaN/inf as null; the dashboard's download uses the same text)."""
    return json.dumps(_strict(record), indent=2, allow_nan=False) + "\n"


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
