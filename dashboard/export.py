"""The selection export of the data contract (CSV + sidecar JSON) as download bytes.

Built only from :func:`jecs_core.selection_frame` and :func:`jecs_core.selection_metadata`,
and written by :func:`jecs_core.io.write_table` (spreadsheet-safe by default: text cells that
start with ``= + - @`` cannot run as formulas), so a download is byte-for-byte what
``jecs select --out`` writes (bar the sidecar's timestamp).
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

from jecs_core import Comparison, ScoreTable, selection_frame, selection_metadata
from jecs_core.export import sidecar_path
from jecs_core.io import write_table


def file_names(data_name: str, method: str, alpha: float) -> tuple[str, str]:
    """``("jecs_selection_<data>_<method>_alpha0.10.csv", "<same stem>.json")``."""
    slug = re.sub(r"[^A-Za-z0-9]+", "-", data_name).strip("-").lower() or "data"
    csv_name = f"jecs_selection_{slug}_{method}_alpha{alpha:.2f}.csv"
    return csv_name, sidecar_path(csv_name).name


def csv_bytes(table: ScoreTable, comparison: Comparison, method: str) -> bytes:
    """The selection CSV: every test item, ``selected`` (0/1), p-values and carried columns."""
    frame = selection_frame(table, comparison, method)
    with tempfile.TemporaryDirectory(prefix="jecs-export-") as folder:
        path = write_table(frame, Path(folder) / "selection.csv", spreadsheet_safe=True)
        return path.read_bytes()


def json_bytes(table: ScoreTable, comparison: Comparison, method: str) -> bytes:
    """The sidecar JSON: method, alpha, lambda, k_n, pi0_hat, input hash, package version, counts."""
    return (json.dumps(selection_metadata(table, comparison, method), indent=2) + "\n").encode("utf-8")
