"""The selection export of the data contract (CSV + sidecar JSON) as download bytes.

Both files come from :func:`jecs_core.write_selection` itself, written to a temporary folder
and read back, so a download is byte-for-byte what ``jecs select --out`` writes (spreadsheet-safe
text cells by default; the sidecar differs only by its timestamp and the options recorded).
"""

from __future__ import annotations

import json
import re
import tempfile
from dataclasses import replace
from pathlib import Path, PurePath

from jecs_core import Comparison, ScoreTable, get_rule, write_selection
from jecs_core.export import sidecar_path, sidecar_text


def file_names(data_name: str, method: str, alpha: float) -> tuple[str, str]:
    """``("jecs_selection_<data>_<method>_alpha0.10.csv", "<same stem>.json")``."""
    slug = re.sub(r"[^A-Za-z0-9]+", "-", data_name).strip("-").lower() or "data"
    csv_name = f"jecs_selection_{slug}_{method}_alpha{alpha:.2f}.csv"
    return csv_name, sidecar_path(csv_name).name


def export_files(table: ScoreTable, comparison: Comparison, method: str, *, options: dict | None = None,
                 diagnostics: dict | None = None, post_hoc=None) -> tuple[bytes, bytes]:
    """``(csv, json)`` bytes exactly as :func:`jecs_core.write_selection` writes them.

    The sidecar names the input by its file name (with its SHA-256), never by the server's path to it.
    ``post_hoc`` (a :class:`dashboard.report.PostHocContext`) sets δ and, for the rule a hand edit
    started from, records the hand-edited set's bound and ids and any commit of α in the sidecar.
    """
    delta = 0.1 if post_hoc is None else post_hoc.delta
    if table.source:
        table = replace(table, source=PurePath(str(table.source).replace("\\", "/")).name)
    with tempfile.TemporaryDirectory(prefix="jecs-export-") as folder:
        csv_path, json_path = write_selection(Path(folder) / "selection.csv", table, comparison, method, options=options,
                                              diagnostics=diagnostics, post_hoc_delta=delta)
        csv, side = csv_path.read_bytes(), json_path.read_bytes()
    if post_hoc is not None:
        from .report import apply_to_sidecar

        record = apply_to_sidecar(json.loads(side), table, comparison, method, post_hoc)
        side = sidecar_text(record).encode("utf-8")
    return csv, side


def csv_bytes(table: ScoreTable, comparison: Comparison, method: str, *, options: dict | None = None) -> bytes:
    """The selection CSV: every test item, ``selected`` (0/1), p-values and carried columns.

    It holds the rule's selection; a hand edit is recorded in the sidecar (``hand_edited``: the ids added and removed).
    """
    return export_files(table, comparison, method, options=options)[0]


def ids_bytes(table: ScoreTable, comparison: Comparison, method: str) -> bytes:
    """The selected test items' ids, one per line in table order (UTF-8): the clean subset to evaluate on.

    The selection CSV holds the same ids with ``selected`` = 1; this file is for tools that take a list.
    """
    return "".join(f"{item}\n" for item in table.test_ids[comparison.selected(method)]).encode("utf-8")


def ids_fit_lines(table: ScoreTable) -> bool:
    """Whether every test id fits on one line of the ids file (an id holding a line break would read as two)."""
    joined = "".join(map(str, table.test_ids))
    return "\n" not in joined and "\r" not in joined


def json_bytes(table: ScoreTable, comparison: Comparison, method: str, *, options: dict | None = None,
               diagnostics: bool = False, post_hoc=None) -> bytes:
    """The sidecar JSON: the rule and its guarantee, alpha, options, warnings, counts, input hash, version.

    ``diagnostics=True`` records the label-free audit diagnostics under ``"diagnostics"``, as
    ``jecs select`` does (computed here, about a second); ``post_hoc`` as in :func:`export_files`.
    """
    record = None
    if diagnostics:
        from .report import audit_diagnostics_or_none

        # The diagnostics judge the paper's JECS: they take its options, never another rule's (or --cluster).
        found = audit_diagnostics_or_none(table, alpha=comparison.alpha, **get_rule("jecs").accepted(options or {}))
        record = None if found is None else found.to_dict()
    return export_files(table, comparison, method, options=options, diagnostics=record, post_hoc=post_hoc)[1]
