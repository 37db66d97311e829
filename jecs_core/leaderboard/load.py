"""One entry point for per-item results: tables (long or wide) and lm-eval sample logs, from files or bytes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..formats import JSONL_SUFFIXES
from ..io import parse_name_path, read_table, read_table_bytes
from .lmeval import parse_samples_lines, read_samples, samples_table
from .results import TEXT_COLUMNS, ResultsTable, check_metric, check_models, results_from_frame

SAMPLE_SUFFIXES = JSONL_SUFFIXES  # per-sample lm-eval logs


def _is_spec(item) -> bool:
    return isinstance(item, str) and "=" in item and not Path(item).exists()


def combine_results(tables, *, models=None) -> ResultsTable:
    """Several :class:`ResultsTable` s (each some of the models) as one, on the union of their items.

    A model may come from one table only, and every table must hold the same metric; a pair no table
    has stays NaN (no result), as in a long table that skips it.  ``models`` keeps those models, in
    that order (default: every model, in the order found).

    Examples
    --------
    >>> a = ResultsTable(models=("m0",), item_ids=["t1", "t2"], values=[1, 0], source="a.csv")
    >>> b = ResultsTable(models=("m1",), item_ids=["t2", "t3"], values=[1, 1], source="b.csv")
    >>> both = combine_results([a, b])
    >>> both.item_ids.tolist(), both.values.tolist()
    (['t1', 't2', 't3'], [[1.0, nan], [0.0, 1.0], [nan, 1.0]])
    """
    tables = list(tables)
    if not tables:
        raise ValueError("results: no results table given")
    metrics = {t.metric for t in tables}
    if len(metrics) > 1:
        raise ValueError(f"results: the tables hold different metrics {sorted(metrics)}; give one metric")
    seen: dict[str, str] = {}
    for table in tables:
        for model in table.models:
            if model in seen:
                raise ValueError(f"results: model {model!r} is in both {seen[model]} and {table.source}; "
                                 "give each model's results in one table")
            seen[model] = table.source
    source = ", ".join(t.source for t in tables)
    order = check_models(list(seen), models, source)
    item_ids = pd.unique(np.concatenate([t.item_ids for t in tables]).astype(object))
    matrix = np.full((len(item_ids), len(seen)), np.nan)
    position = {model: k for k, model in enumerate(seen)}
    for table in tables:
        rows = pd.Index(item_ids).get_indexer(table.item_ids)
        for k, model in enumerate(table.models):
            matrix[rows, position[model]] = table.values[:, k]
    columns = [position[m] for m in order]
    notes = tuple(note for t in tables for note in t.notes)
    return ResultsTable(models=tuple(order), item_ids=np.asarray(item_ids, dtype=object), values=matrix[:, columns],
                        metric=tables[0].metric, source=source, notes=notes)


def read_results_file(path: str | Path, *, metric: str | None = None, models=None) -> ResultsTable:
    """:func:`results_from_frame` on a ``.csv`` or ``.parquet`` file read by :func:`jecs_core.io.read_table`."""
    frame = read_table(path, text_columns=TEXT_COLUMNS)
    return results_from_frame(frame, metric=metric, models=models, source=str(path))


def read_results_bytes(data: bytes, name: str, *, metric: str | None = None, models=None) -> ResultsTable:
    """:func:`read_results_file` for uploaded bytes; ``name``'s extension picks the parser."""
    frame = read_table_bytes(data, name, text_columns=TEXT_COLUMNS)
    return results_from_frame(frame, metric=metric, models=models, source=str(name))


def load_results(source, *, metric: str | None = None, id_field: str | None = None, models=None) -> ResultsTable:
    """Per-item results of K models from a table or from lm-evaluation-harness sample logs.

    Parameters
    ----------
    source : path, str, sequence of str, or mapping
        * a ``.csv`` / ``.parquet`` table, long (``item_id, model, <metric>``) or wide
          (``item_id, <metric>_<model>``), or a sequence of them, each holding other models;
        * lm-eval ``--log_samples`` output: ``"MODEL=samples_<task>_<time>.jsonl"`` strings (one per
          model; the path may be the directory holding that model's one log), a mapping
          ``{model: path}``, or one directory whose sub-directories (named after the models) each
          hold one log.
    metric : str, optional
        The metric: a column (long), a column prefix (wide) or a per-sample key of the logs.
        Default ``"correct"`` for tables, ``"acc"`` for logs; ``"NAME,FILTER"`` picks a log's filter.
    id_field : str, optional
        For logs: a field of ``doc`` used as the item id instead of ``doc_id``.
    models : sequence of str, optional
        Models to keep, in this order (default: all, in the order found).

    Returns
    -------
    ResultsTable

    Examples
    --------
    >>> import pandas as pd, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "results.csv")
    >>> pd.DataFrame({"item_id": ["t1", "t1", "t2", "t2"], "model": ["a", "b", "a", "b"],
    ...               "correct": [1, 0, 1, 1]}).to_csv(path, index=False)
    >>> results = load_results(path)
    >>> results.models, results.values.mean(axis=0).tolist()
    (('a', 'b'), [1.0, 0.5])
    """
    if isinstance(source, dict):
        return read_samples(source, metric=metric, id_field=id_field, models=models)
    items = [source] if isinstance(source, (str, Path)) else list(source) if isinstance(source, (list, tuple)) else None
    if not items:
        raise ValueError(f"source must be a results file, MODEL=PATH sample logs or a mapping, got {source!r}")
    specs = [item for item in items if _is_spec(str(item))]
    if specs and len(specs) != len(items):
        raise ValueError(f"source: mix of MODEL=PATH sample logs and plain paths {items}; give one kind")
    if specs:
        pairs = [parse_name_path(str(item), what="results") for item in specs]
        names = [name for name, _ in pairs]
        duplicated = sorted({name for name in names if names.count(name) > 1})
        if duplicated:
            raise ValueError(f"results: model(s) {duplicated} given more than once")
        return read_samples(dict(pairs), metric=metric, id_field=id_field, models=models)
    paths = [Path(item) for item in items]
    if len(paths) == 1 and paths[0].is_dir():
        return read_samples(paths[0], metric=metric, id_field=id_field, models=models)
    for path in paths:
        if path.is_dir():
            raise ValueError(f"results: {path} is a directory; give it alone (one sub-directory of sample logs "
                             "per model) or as MODEL={path}")
        if path.suffix.lower() in SAMPLE_SUFFIXES:
            raise ValueError(f"results: {path} is an lm-eval sample log; name its model: MODEL={path}")
    if id_field is not None:
        raise ValueError("id_field applies to lm-eval sample logs only; a results table names its items in item_id")
    if len(paths) == 1:
        return read_results_file(paths[0], metric=metric, models=models)
    # Several tables, each some of the models (one file per model, say): one table on the union of their items.
    return combine_results([read_results_file(path, metric=metric) for path in paths], models=models)


def load_results_bytes(data: bytes, name: str, *, metric: str | None = None, id_field: str | None = None,
                       models=None, model: str | None = None) -> ResultsTable:
    """:func:`load_results` for one uploaded file; a ``.jsonl`` sample log needs ``model`` (its model's name).

    Parameters
    ----------
    data : bytes
        The file's bytes.
    name : str
        The file's name: its extension picks the reader (``.csv``, ``.parquet``, ``.jsonl``); names it in errors.
    metric, id_field, models
        As for :func:`load_results`.
    model : str, optional
        The model a ``.jsonl`` sample log belongs to.

    Returns
    -------
    ResultsTable

    Examples
    --------
    >>> data = b"item_id,correct_a,correct_b\\nt1,1,0\\nt2,1,1\\n"
    >>> load_results_bytes(data, "results.csv").models
    ('a', 'b')
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ValueError(f"{name}: expected the file's bytes, got {type(data).__name__}")
    if Path(str(name)).suffix.lower() in SAMPLE_SUFFIXES:
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"{name}: an lm-eval sample log needs its model's name (model=)")
        key = check_metric(metric, default="acc")
        values = parse_samples_lines(bytes(data).splitlines(), metric=key, id_field=id_field, source=str(name))
        return samples_table({model.strip(): values}, metric=key, models=models, source=str(name))
    if id_field is not None:
        raise ValueError("id_field applies to lm-eval sample logs only; a results table names its items in item_id")
    return read_results_bytes(bytes(data), str(name), metric=metric, models=models)
