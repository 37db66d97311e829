"""The selection export of the data contract: a CSV of every test item plus a sidecar JSON.

CSV columns: ``item_id``, ``selected`` (0/1, the chosen rule), ``selected_<method>`` per rule run (with ``method="all"``),
``p_max``, the chosen rule's own per-item values when it has them (``p_tilde`` for the paper's JECS), ``p_<model>`` per model,
``member_<model>`` labels, then the table's carried columns (``text``, ``x_<name>``, ...). Text cells are spreadsheet-safe by
default (:func:`jecs_core.io.spreadsheet_safe`). The sidecar records the rule, its guarantee kind, alpha, the options, the
warnings, the input's hash and the version. Both files or neither are written; no input is overwritten.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

from ._fastcsv import write_columns
from ._sidecar import check_pair, check_selection_paths, diagnostics_record, fit_fields, plain, sidecar_path, sidecar_text
from ._writers import spreadsheet_safe_columns
from .compare import Comparison
from .contract import MEMBER_PREFIX, calibration_reach
from .data import ScoreTable
from .io import write_files_atomic
from .posthoc.copies import post_hoc_calibration_size
from .posthoc.fit import check_delta
from .posthoc.report import post_hoc_record
from .rules import DEFAULT_METHOD, REGISTRY, Guarantee, get_rule

RESULT_COLUMNS = ("p_tilde",)  # per-item values a rule's result may carry, written when it has them


def _primary(comparison: Comparison, method: str | None) -> str:
    """The rule whose selection is ``selected``: ``method``, or the default for ``None`` / ``"all"``."""
    if method not in (None, "all"):
        name = get_rule(method).name
    elif DEFAULT_METHOD in comparison.results:
        name = DEFAULT_METHOD
    else:
        name = comparison.methods[0]
    comparison.result(name)  # a clear error when that rule was not run
    return name


def _result_columns(comparison: Comparison, names) -> dict[str, np.ndarray]:
    found: dict[str, np.ndarray] = {}
    n = comparison.pvalues.shape[0]
    for name in names:
        result = comparison.result(name)
        for column, value in result.item_columns().items():
            if column in RESULT_COLUMNS and column not in found and np.shape(value) == (n,):
                found[column] = np.asarray(value)
    return found


def selection_frame(table: ScoreTable, comparison: Comparison, method: str | None = None) -> pd.DataFrame:
    """Every test item with its selection, p-values, labels and carried columns (see the module docstring).

    ``"all"`` adds one ``selected_<method>`` column per rule in ``comparison``.

    Parameters
    ----------
    table, comparison : ScoreTable, Comparison
        The table and what :func:`jecs_core.compare_methods` returned for it.
    method : str, optional
        The rule in ``selected``: default :data:`jecs_core.DEFAULT_METHOD` (the comparison's first rule
        when it did not run it); ``"all"`` keeps that one and adds every rule's column.

    Returns
    -------
    pandas.DataFrame
        One row per test item, in the columns the module docstring lists.

    Examples
    --------
    >>> import jecs_core as jc
    >>> table = jc.load_scores_bytes(b"item_id,split,score_a\\nc1,calibration,2\\nc2,calibration,3\\nt1,test,4\\n", "s.csv")
    >>> list(selection_frame(table, jc.compare_methods(table, alpha=0.5)).columns)
    ['item_id', 'selected', 'p_max', 'p_a']
    """
    return pd.DataFrame(selection_columns(table, comparison, method))


def selection_columns(table: ScoreTable, comparison: Comparison, method: str | None = None) -> dict:
    """:func:`selection_frame`'s columns as a dict of arrays, without copying the p-values into a frame.

    ``table``, ``comparison`` and ``method`` are as in :func:`selection_frame`.

    Returns
    -------
    dict of str to numpy.ndarray or pandas.Series
        Column name to values, in the export's column order (a nullable carried column stays a Series).
    """
    check_pair(table, comparison)
    primary = _primary(comparison, method)
    runs = comparison.methods if method == "all" else (primary,)
    out = {"item_id": table.test_ids, "selected": comparison.selected(primary).astype(np.int8)}
    if method == "all":
        out.update({f"selected_{name}": comparison.selected(name).astype(np.int8) for name in runs})
    out["p_max"] = comparison.p_max
    out.update(_result_columns(comparison, (primary,) + tuple(n for n in runs if n != primary)))
    for k, model in enumerate(table.models):
        if f"p_{model}" in out:
            raise ValueError(f"model name {model!r} would collide with the export's p_{model} column; rename the score column")
        out[f"p_{model}"] = comparison.pvalues[:, k]
    if table.test_members is not None:
        out.update({MEMBER_PREFIX + model: table.test_members[:, k] for k, model in enumerate(table.models)})
    for column in table.test_extra.columns:
        if column in out:
            raise ValueError(f"carried column {column!r} would collide with an export column; rename it")
        values = table.test_extra[column]  # nullable ints stay a Series: as numpy, a gap makes 1 read 1.0
        out[column] = values.to_numpy() if isinstance(values.dtype, np.dtype) else values
    return out


def selection_warnings(table: ScoreTable, comparison: Comparison) -> list[str]:
    """One-line warnings about a selection: a calibration set too small for alpha, the table's checks
    (:func:`jecs_core.checks.data_warnings`), and the rules' own (:func:`rule_warnings`).

    Parameters
    ----------
    table, comparison : ScoreTable, Comparison
        The table and what :func:`jecs_core.compare_methods` returned for it.

    Returns
    -------
    list of str
        One line per warning, in the order the CLI prints them.
    """
    from .checks import data_warnings

    check_pair(table, comparison)
    return [*table.warnings(comparison.alpha), *data_warnings(table), *rule_warnings(table, comparison)]


def rule_warnings(table: ScoreTable, comparison: Comparison) -> list[str]:
    """The per-rule lines of :func:`selection_warnings` (cut-off above 1, every item selected), in rule order.

    Parameters
    ----------
    table, comparison : ScoreTable, Comparison
        The table and what :func:`jecs_core.compare_methods` returned for it (any subset of the rules).

    Returns
    -------
    list of str
    """
    check_pair(table, comparison)
    found = []
    for name in comparison.methods:
        result, label = comparison.result(name), REGISTRY[name].label
        # An adaptive rule (one with a pi0 estimate) divides by it: a small estimate lifts the cut-off past 1.
        if result.threshold is not None and result.pi0_hat is not None and result.threshold > 1:
            found.append(f"warning: {label}: the cut-off on its transformed scale is {result.threshold:.4g} > 1, "
                         "so the step-up passes every item below it; its pi0 estimate is small")
        if table.n and result.n_selected == table.n:
            found.append(f"warning: {label}: selects every test item (n = {table.n}), dropping none at alpha = "
                         f"{comparison.alpha:g}; at a large alpha that can be right, else check that calibration rows "
                         "are members and that larger scores mean member (else --lower-is-member)")
    return found


def selection_metadata(table: ScoreTable, comparison: Comparison, method: str | None = None, *,
                       options: dict | None = None, warnings: list[str] | None = None,
                       spreadsheet_safe_cells: bool = True, diagnostics: dict | None = None,
                       post_hoc_delta: float = 0.1, post_hoc: dict | None = None) -> dict:
    """The sidecar record: the rule and its guarantee kind, alpha, options, warnings, fit, counts, input hash, version.

    ``options`` is every setting as given (one run serves every rule); ``rule_options`` files each rule of the
    comparison with the given options it declares, so ``lam`` beside a storey-maxp export reads as paper JECS's.

    ``warnings=None`` records :func:`selection_warnings`; ``spreadsheet_safe_cells`` says how the
    CSV's text cells were written; ``diagnostics`` (``AuditDiagnostics.to_dict()``) is recorded when given.
    The chosen rule's post-hoc bound at ``post_hoc_delta`` (:func:`jecs_core.post_hoc_bound`; the urn part only
    where no test items are copies) is recorded, valid even if alpha was picked after looking; ``post_hoc`` is that
    record when the caller computed it (and is checked).

    Parameters
    ----------
    table, comparison : ScoreTable, Comparison
        The table and what :func:`jecs_core.compare_methods` returned for it.
    method : str, optional
        As in :func:`selection_frame`.
    options, warnings, spreadsheet_safe_cells, diagnostics, post_hoc_delta, post_hoc
        As described above.

    Returns
    -------
    dict
        JSON-ready record (written as the sidecar by :func:`write_selection`).
    """
    from . import __version__

    post_hoc_delta = check_delta(post_hoc_delta, "post_hoc_delta")
    check_pair(table, comparison)
    primary = _primary(comparison, method)
    rule = REGISTRY[primary]
    size = post_hoc_calibration_size(table, comparison=comparison) if post_hoc is None else None
    post_hoc = post_hoc_record(comparison.pvalues, comparison.selected(primary), delta=post_hoc_delta,
                               calibration_size=size, post_hoc=post_hoc)
    record = {
        "method": "all" if method == "all" else primary,
        "method_label": f"all rules (selected = {rule.label})" if method == "all" else rule.label,
        "guarantee": rule.guarantee.value,
        "guarantee_description": rule.guarantee.description,
        "alpha": comparison.alpha,
        "options": plain(dict(options or {})),
        "rule_options": {name: plain({key: value for key, value in (options or {}).items()
                                      if key in REGISTRY[name].option_names}) for name in comparison.methods},
        **fit_fields(comparison, primary),
        "n_test": table.n,
        "n_calibration": table.m,
        "calibration": calibration_reach(table.m, table.n, comparison.alpha),
        "post_hoc": post_hoc,
        "models": list(table.models),
        "selected_counts": {name: int(comparison.selected(name).sum()) for name in comparison.methods},
        "guarantees": {name: REGISTRY[name].guarantee.value for name in comparison.methods},
        "invalid_baselines": [name for name in comparison.methods if REGISTRY[name].guarantee is Guarantee.INVALID],
        "warnings": list(selection_warnings(table, comparison) if warnings is None else warnings),
        "spreadsheet_safe": bool(spreadsheet_safe_cells),
        "input_file": table.source,
        "input_sha256": table.source_sha256,
        "lower_is_member": table.flipped,
        "package": "jecs",
        "version": __version__,
        "created_utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    if diagnostics is not None:
        record["diagnostics"] = diagnostics_record(diagnostics, (options or {}).get("shift"))
    if comparison.contaminated is not None:
        record["metrics"] = {name: {"gcp": comparison.metrics(name).gcp, "power": comparison.metrics(name).power}
                             for name in comparison.methods}
    return record


def write_selection(path: str | Path, table: ScoreTable, comparison: Comparison, method: str | None = None, *,
                    spreadsheet_safe_cells: bool = True, options: dict | None = None,
                    warnings: list[str] | None = None, diagnostics: dict | None = None,
                    post_hoc_delta: float = 0.1) -> tuple[Path, Path]:
    """Write the selection CSV and its sidecar JSON, both or neither; return both paths.

    Refused before anything is written: a path not ending in ``.csv``, a directory, a missing
    directory, and a CSV or sidecar path that is the input file (symlinks resolved).
    ``spreadsheet_safe_cells=False`` writes text cells raw (``jecs select --raw-cells``).

    Parameters
    ----------
    path : str or pathlib.Path
        The CSV to write; the sidecar is the same name with ``.json``.
    table, comparison : ScoreTable, Comparison
        The table and what :func:`jecs_core.compare_methods` returned for it.
    method : str, optional
        As in :func:`selection_frame`.
    spreadsheet_safe_cells, options, warnings, diagnostics, post_hoc_delta
        As in :func:`selection_metadata`.

    Returns
    -------
    (pathlib.Path, pathlib.Path)
        The CSV and the sidecar written.

    Examples
    --------
    >>> import pathlib, tempfile, pandas as pd, jecs_core as jc
    >>> table = jc.table_from_frame(pd.DataFrame({
    ...     "item_id": ["c1", "c2", "c3", "c4", "t1", "t2", "t3"], "split": ["calibration"] * 4 + ["test"] * 3,
    ...     "score_a": [2.0, 3.0, 4.0, 5.0, 0.5, 3.5, 0.2], "score_b": [1.0, 2.5, 3.0, 4.0, 0.1, 2.8, 0.3]}))
    >>> comparison = jc.compare_methods(table, alpha=0.5)
    >>> csv, side = write_selection(pathlib.Path(tempfile.mkdtemp()) / "sel.csv", table, comparison)
    >>> csv.name, side.name
    ('sel.csv', 'sel.json')
    """
    post_hoc_delta = check_delta(post_hoc_delta, "post_hoc_delta")  # refused before anything is written
    return write_selection_files(path, table, comparison, method, spreadsheet_safe_cells=spreadsheet_safe_cells,
                                 record=lambda: selection_metadata(
                                     table, comparison, method, options=options, warnings=warnings,
                                     spreadsheet_safe_cells=spreadsheet_safe_cells, diagnostics=diagnostics,
                                     post_hoc_delta=post_hoc_delta))


def write_selection_files(path: str | Path, table: ScoreTable, comparison: Comparison, method: str | None, *,
                          spreadsheet_safe_cells: bool, record: Callable[[], dict],
                          workers: int | None = None) -> tuple[Path, Path]:
    """:func:`write_selection` with the sidecar's record, ``record()``, built once the CSV is written (in ``workers``
    threads): a caller whose record waits on work in another thread (``jecs select``'s table checks) formats the CSV
    meanwhile. If ``record()`` raises, neither file is written. The conformal p-values are k / (m + 1): their texts are
    formatted once for every p-value column."""
    check_pair(table, comparison)
    path, side = check_selection_paths(path, inputs=[table.source])
    columns = selection_columns(table, comparison, method)
    data = spreadsheet_safe_columns(columns) if spreadsheet_safe_cells else columns
    write_files_atomic({path: lambda temp: write_columns(data, temp, workers=workers, denominator=table.m + 1),
                        side: lambda temp: temp.write_text(sidecar_text(record()), encoding="utf-8")})
    return path, side


__all__ = ["RESULT_COLUMNS", "check_selection_paths", "rule_warnings", "selection_columns", "selection_frame",
           "selection_metadata", "selection_warnings", "sidecar_path", "sidecar_text", "write_selection",
           "write_selection_files"]
