"""The selection export of the data contract: a plain CSV plus a sidecar JSON."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

from .compare import METHOD_LABELS, METHODS, Comparison
from .data import MEMBER_PREFIX, ScoreTable


def _check_method(method: str) -> None:
    if method not in METHODS and method != "all":
        raise ValueError(f"method must be one of {list(METHODS) + ['all']}, got {method!r}")


def selection_frame(table: ScoreTable, comparison: Comparison, method: str = "jecs") -> pd.DataFrame:
    """Every test item with ``item_id``, ``selected``, ``p_max``, ``p_tilde``, ``p_<model>`` and carried columns.

    With ``method="all"``, ``selected`` is the JECS selection and one
    ``selected_<method>`` column per rule is added.
    """
    _check_method(method)
    clash = [m for m in table.models if f"p_{m}" in ("p_max", "p_tilde")]
    if clash:
        raise ValueError(f"model name(s) {clash} would collide with the export's p_max / p_tilde columns; rename the score columns")
    primary = "jecs" if method == "all" else method
    out = pd.DataFrame({"item_id": table.test_ids})
    out["selected"] = comparison.selected(primary).astype(np.int8)
    if method == "all":
        for name in METHODS:
            out[f"selected_{name}"] = comparison.selected(name).astype(np.int8)
    out["p_max"] = comparison.p_max
    out["p_tilde"] = comparison.jecs.p_tilde
    for k, model in enumerate(table.models):
        out[f"p_{model}"] = comparison.pvalues[:, k]
    if table.test_members is not None:
        for k, model in enumerate(table.models):
            out[MEMBER_PREFIX + model] = table.test_members[:, k]
    for col in table.test_extra.columns:
        if col not in out.columns:
            out[col] = table.test_extra[col].to_numpy()
    return out


def selection_metadata(table: ScoreTable, comparison: Comparison, method: str = "jecs") -> dict:
    """The sidecar record: method, alpha, lambda, k_n, pi0_hat, input hash, package version, counts."""
    from . import __version__

    _check_method(method)
    jecs = comparison.jecs
    record = {
        "method": method,
        "method_label": "all four rules (selected = JECS)" if method == "all" else METHOD_LABELS[method],
        "alpha": comparison.alpha,
        "lambda": jecs.lam,
        "lambda_mode": jecs.fit.lambda_mode,
        "k_n": jecs.k_n,
        "g_hat": jecs.g_hat,
        "F_fit_lambda": jecs.F_fit_lambda,
        "pi0_hat": jecs.pi0_hat,
        "jecs_fallback_to_jmcs": jecs.fallback_to_jmcs,
        "n_test": table.n,
        "n_calibration": table.m,
        "models": list(table.models),
        "selected_counts": {name: int(comparison.selected(name).sum()) for name in METHODS},
        "invalid_baselines": ["union", "intersection"],
        "input_file": table.source,
        "input_sha256": table.source_sha256,
        "lower_is_member": table.flipped,
        "package": "jecs",
        "version": __version__,
        "created_utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    if comparison.contaminated is not None:
        record["metrics"] = {
            name: {"gcp": comparison.metrics(name).gcp, "power": comparison.metrics(name).power} for name in METHODS
        }
    return record


def sidecar_path(csv_path: str | Path) -> Path:
    """``selected.csv`` -> ``selected.json``."""
    return Path(csv_path).with_suffix(".json")


def write_selection(path: str | Path, table: ScoreTable, comparison: Comparison, method: str = "jecs") -> tuple[Path, Path]:
    """Write the selection CSV and its sidecar JSON; return both paths."""
    path = Path(path)
    if path.suffix.lower() == ".json":
        raise ValueError(f"out must be a .csv path (the sidecar .json is written beside it), got {path}")
    frame = selection_frame(table, comparison, method)
    meta = selection_metadata(table, comparison, method)
    if path.parent and not path.parent.exists():
        raise ValueError(f"out: directory {path.parent} does not exist")
    frame.to_csv(path, index=False)
    side = sidecar_path(path)
    side.write_text(json.dumps(meta, indent=2) + "\n")
    return path, side
