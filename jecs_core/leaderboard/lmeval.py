"""lm-evaluation-harness files: the ``--log_samples`` logs read in, the ``--samples`` file written out.

A sample log (``samples_<task>_<time>.jsonl``) holds one JSON object per evaluated document:
``doc_id``, ``doc`` (the document's fields), ``filter`` and one key per metric (``acc``,
``exact_match``, ...).  A metric written ``NAME,FILTER`` (as lm-eval names them in its results)
reads ``NAME`` from the rows of that filter only; a task logged under several filters needs one.
The file for ``lm_eval --samples`` maps a task to the doc indices to evaluate.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np

from ..formats import TABLE_SUFFIXES, content_hint, suffix
from ..io import check_output_path, write_files_atomic
from .logfiles import SAMPLES_GLOB, log_of_model, logs_by_model
from .results import ResultsTable, check_metric, lone_surrogate

DEFAULT_LM_EVAL_METRIC = "acc"
# A doc index as lm-eval numbers documents: ASCII digits, no sign, no leading zero ("0101" and "101"
# would become one index; "-5" and Arabic-Indic digits are no index at all).
_INTEGER = re.compile(r"0|[1-9][0-9]*")
# lm-eval names a log samples_<task>_<date>.jsonl, the date as isoformat() with '-' for ':'.
_LOG_NAME = re.compile(r"samples_(.+)_\d{4}-\d{2}-\d{2}T[0-9.-]+\.jsonl")
SHOWN_CHARS = 60


class SampleLog(dict):
    """``{item_id: value}`` read from one sample log, with the lm-eval filters of the rows read and the task
    its file name gives (``None`` when the name is not lm-eval's): logs of other filters or tasks are no match."""

    filters: tuple[str, ...] = ()
    task: str | None = None


def _split_metric(metric: str) -> tuple[str, str | None]:
    key, _, filter_name = metric.partition(",")
    return key.strip(), (filter_name.strip() or None)


def _shown(value) -> str:
    """``value`` as an error shows it, cut to :data:`SHOWN_CHARS` characters (a logged pair can run to pages)."""
    text = repr(value)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "…"


def _numeric_fields(record: dict) -> list[str]:
    return sorted(k for k, v in record.items() if isinstance(v, (int, float)) and k != "doc_id")


# Fields lm-eval writes beside the metrics of every sample: never a per-item score.
OWN_FIELDS = frozenset({"doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics"})


def _value(record: dict, key: str, where: str) -> float:
    if key in OWN_FIELDS or key.endswith("_hash"):
        names = record.get("metrics") if isinstance(record.get("metrics"), list) else _numeric_fields(record)
        raise ValueError(f"{where}: {key!r} is a field lm-eval writes for every sample, not a metric; this log's "
                         f"metrics are {[str(n) for n in names]} (choose one with --metric)")
    if key not in record:
        raise ValueError(f"{where}: no per-sample metric {key!r}; this line's numeric fields are {_numeric_fields(record)} "
                         "(choose one with --metric)")
    value = record[key]
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, list):  # lm-eval logs a corpus metric (bleu, f1, mcc) as the pair it aggregates
        found = _numeric_fields(record)
        raise ValueError(f"{where}: metric {key!r} is {_shown(value)}, a pair lm-eval aggregates over the whole "
                         "corpus: it has no per-item score; choose a per-item metric"
                         + (f" (this line's numeric fields are {found})" if found else " (this line has none)"))
    try:
        number = float(value) if isinstance(value, (int, float)) else math.nan
    except OverflowError:  # an integer of hundreds of digits
        raise ValueError(f"{where}: metric {key!r} is {_shown(value)}, too large for a float; "
                         "expected a finite number") from None
    if not math.isfinite(number):
        raise ValueError(f"{where}: metric {key!r} is {_shown(value)}; expected a finite number")
    return number


def _item_id(record: dict, id_field: str | None, where: str) -> str:
    if id_field is None:
        if "doc_id" not in record:
            raise ValueError(f"{where}: no 'doc_id'; is this an lm-eval --log_samples file?")
        value, what = record["doc_id"], "'doc_id'"
    else:
        doc = record.get("doc")
        if not isinstance(doc, dict) or id_field not in doc:
            fields = sorted(doc) if isinstance(doc, dict) else []
            raise ValueError(f"{where}: the doc has no field {id_field!r} (the id field); its fields are {fields}")
        value, what = doc[id_field], f"doc field {id_field!r}"
    number = isinstance(value, float)
    if (value is None or isinstance(value, (bool, dict, list)) or (number and not math.isfinite(value))
            or str(value).strip() == ""):
        raise ValueError(f"{where}: {what} is {json.dumps(value)}; expected an id (text or number)")
    # JSON writers (pandas among them) turn an integer id column with a gap into floats: 7.0 is item 7.
    text = str(int(value)) if number and value.is_integer() else str(value)
    if lone_surrogate(text):
        raise ValueError(f"{where}: {what} {ascii(text)} holds a lone surrogate (\\ud800-\\udfff), which is no "
                         "character; expected an id as valid Unicode text")
    return text


def _not_a_log_hint(source: str, line, text: str | None) -> str:
    """What a file that is not a sample log probably is, for the error on its first line."""
    name = Path(source).name
    if name.startswith("results_") and name.endswith(".json"):
        return ("; this is lm-eval's aggregated results file: the per-document log beside it is "
                f"{SAMPLES_GLOB.replace('*', '<task>_<time>')}")
    head = line.encode("utf-8", "replace") if isinstance(line, str) else bytes(line[:512])
    # A broken JSON line has commas too: only a line that opens no JSON value may be CSV text.  A file named
    # as a table is one already: the hint below, not "name it .csv", is what helps.
    kind = "" if suffix(source) in TABLE_SUFFIXES else content_hint(
        head, text=text is not None and not text.lstrip().startswith(("{", "[")))
    return kind or ("; an lm-eval samples_<task>_<time>.jsonl log is expected here (a results table, CSV or "
                    "Parquet, is read as a table, without a model name)")


def _record(line, where: str, first: bool, source: str):
    """One line's JSON value (``None`` for a blank line); a line that is not UTF-8 JSON is an error naming it."""
    try:
        text = line.decode("utf-8") if isinstance(line, (bytes, bytearray)) else line
    except UnicodeDecodeError as exc:
        raise ValueError(f"{where}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at column {exc.start + 1})"
                         + (_not_a_log_hint(source, line, None) if first else "")) from None
    if first:
        text = text.removeprefix("\ufeff")  # a byte-order mark some editors write
    if not text.strip():
        return None
    try:
        record = json.loads(text)
    except ValueError as exc:  # JSONDecodeError, or an integer past Python's digit limit for int()
        reason = " ".join(str(exc).split())
        if isinstance(exc, json.JSONDecodeError):
            # The text ends before the object does (a string left open, or the last value missing).
            cut = exc.msg.startswith("Unterminated string") or exc.pos >= len(text.rstrip()) - 1
            reason = (f"{exc.msg.removesuffix(' at')} at column {exc.colno}" + ("; the line is cut off (an interrupted run?)" if cut
                                                              else ""))
        raise ValueError(f"{where}: not valid JSON ({reason})"
                         + (_not_a_log_hint(source, line, text) if first else "")) from None
    except RecursionError:
        raise ValueError(f"{where}: not valid JSON (nested too deeply)") from None
    if record is None:  # a "null" line: no sample, and not the blank line a writer may leave
        raise ValueError(f"{where}: expected a JSON object per line, got null")
    return record


def parse_samples_lines(lines, *, metric: str, id_field: str | None, source: str) -> SampleLog:
    """``{item_id: value}`` from the lines of one sample log; a duplicate id or a bad line is an error."""
    key, filter_name = _split_metric(metric)
    out = SampleLog()
    filters: set[str] = set()
    for number, line in enumerate(lines, start=1):
        where = f"{source} line {number}"
        record = _record(line, where, not out and not filters, source)
        if record is None:
            continue
        if not isinstance(record, dict):
            raise ValueError(f"{where}: expected a JSON object per line")
        row_filter = str(record.get("filter", "none"))
        filters.add(row_filter)
        if filter_name is not None and row_filter != filter_name:
            continue
        item = _item_id(record, id_field, where)
        if item in out:
            hint = (f"; the log has filters {sorted(filters)}: pick one with --metric {key},FILTER"
                    if len(filters) > 1 and filter_name is None else "")
            raise ValueError(f"{where}: item {item!r} appears twice{hint}")
        out[item] = _value(record, key, where)
    if not out:
        what = f" with filter {filter_name!r} (the log has {sorted(filters)})" if filter_name and filters else ""
        raise ValueError(f"{source}: no samples{what}")
    out.filters = (filter_name,) if filter_name is not None else tuple(sorted(filters))
    match = _LOG_NAME.fullmatch(Path(source).name)
    out.task = match.group(1) if match else None
    return out


def read_samples(specs, *, metric: str | None = None, id_field: str | None = None, models=None) -> ResultsTable:
    """A :class:`ResultsTable` from lm-eval sample logs, one per model.

    Parameters
    ----------
    specs : mapping of str to path, or path
        ``{model: samples_<task>_<time>.jsonl}`` (or the directory holding that model's one log);
        a single directory whose sub-directories are models, each holding one log (directly or in
        the one sub-directory lm-eval's ``--output_path`` writes).
    metric : str, optional
        Per-sample key (default ``"acc"``); ``"NAME,FILTER"`` reads one filter's rows.
    id_field : str, optional
        A field of ``doc`` to use as the item id (default: ``doc_id``).
    models : sequence of str, optional
        Models to keep, in this order.

    Returns
    -------
    ResultsTable
    """
    metric = check_metric(metric, default=DEFAULT_LM_EVAL_METRIC)
    if isinstance(specs, (str, Path)):
        specs = logs_by_model(Path(specs))
    per_model = {}
    for model, path in dict(specs).items():
        file = log_of_model(Path(path))
        with open(file, "rb") as handle:  # decoded line by line, so an error names its line
            lines = (part for line in handle for part in line.splitlines())  # a lone CR ends a line too, as in bytes
            per_model[str(model)] = parse_samples_lines(lines, metric=metric, id_field=id_field, source=str(file))
    return samples_table(per_model, metric=metric, models=models, source=", ".join(f"{m}={p}" for m, p in dict(specs).items()))


def samples_table(per_model: dict[str, dict[str, float]], *, metric: str, models=None, source: str) -> ResultsTable:
    """Join ``{model: {item_id: value}}`` into a :class:`ResultsTable` (NaN where a model lacks an item)."""
    order = list(per_model) if models is None else [str(m) for m in models]
    missing = [m for m in order if m not in per_model]
    if missing:
        raise ValueError(f"{source}: no sample log for model(s) {missing}; given {list(per_model)}")
    ids = list(dict.fromkeys(i for m in order for i in per_model[m]))
    matrix = np.array([[per_model[m].get(i, np.nan) for m in order] for i in ids], dtype=float).reshape(len(ids), len(order))
    return ResultsTable(models=tuple(order), item_ids=np.asarray(ids, dtype=object), values=matrix,
                        metric=metric, source=source, notes=tuple(_unlike_logs({m: per_model[m] for m in order})))


def _unlike_logs(per_model: dict) -> list[str]:
    """A note for models whose logs differ in lm-eval filter or task: their scores measure different things."""
    notes = []
    for what, attribute, fix in (("lm-eval filter", "filters", "give logs of one filter, or read one with "
                                  "--metric NAME,FILTER"), ("task", "task", "give every model's log of one task")):
        seen = {model: getattr(log, attribute, None) for model, log in per_model.items()}
        seen = {model: list(v) if isinstance(v, tuple) else v for model, v in seen.items() if v}
        if len({repr(v) for v in seen.values()}) > 1:
            shown = ", ".join(f"{model!r}: {v!r}" for model, v in seen.items())
            notes.append(f"the models' sample logs differ in {what} ({shown}); their results are not comparable: {fix}")
    return notes


def lm_eval_sample_ids(item_ids) -> list[int]:
    """Item ids as ``lm_eval --samples`` needs them: distinct doc indices (``0``, ``17``), ascending.

    lm-eval evaluates the listed documents in the data set's order and labels the n-th one it
    logs with the n-th entry of the list, so a list out of order would put each answer under
    another document's id; and it compares each entry with the document count, which text
    cannot take.  Ids that are not doc indices (``017``, ``-5``, ``q7``) and repeated ids are
    refused, naming the first one.
    """
    ids = [str(i) for i in item_ids]
    bad = next((i for i in ids if not _INTEGER.fullmatch(i)), None)
    if bad is not None:
        raise ValueError(f"item id {bad!r} is not an lm-eval doc index (0, 1, 2, ... without leading zeros): "
                         "lm_eval --samples selects documents by index, so score the task's documents with "
                         "item_id = doc_id")
    numbers = sorted(int(i) for i in ids)
    repeated = next((a for a, b in zip(numbers, numbers[1:]) if a == b), None)
    if repeated is not None:
        raise ValueError(f"item id {repeated} is listed twice; lm_eval --samples needs each doc index once")
    return numbers


def lm_eval_samples(item_ids, *, task: str) -> dict:
    """The ``--samples`` mapping ``{task: [doc indices, ascending]}`` (see :func:`lm_eval_sample_ids`).

    An empty selection is refused: lm-eval reads an empty list as "every document".

    Examples
    --------
    >>> lm_eval_samples(["3", "10", "7"], task="arc_easy")
    {'arc_easy': [3, 7, 10]}
    """
    if not isinstance(task, str) or not task.strip():
        raise ValueError(f"task must be a non-empty lm-eval task name, got {task!r}")
    ids = lm_eval_sample_ids(item_ids)
    if not ids:
        raise ValueError("no item is selected, and lm_eval reads an empty --samples list as every document")
    return {task.strip(): ids}


def write_lm_eval_samples(path, item_ids, *, task: str) -> Path:
    """Write :func:`lm_eval_samples` as JSON to ``path`` (atomically); return the path."""
    path = check_output_path(path, suffixes=(".json",), what="lm-eval samples file")
    text = json.dumps(lm_eval_samples(item_ids, task=task)) + "\n"
    write_files_atomic({path: lambda temp: temp.write_text(text, encoding="utf-8")})
    return path
