"""Readable HTML tables for the report's nested records (diagnostics, provenance): no raw JSON dumps."""

from __future__ import annotations

from html import escape

import numpy as np

# Headers of the selections table in words, not the summary frame's column names.
COUNT_HEADERS = {"label": "rule", "guarantee": "guarantee", "valid": "finite-sample valid",
                 "n_selected": "selected", "gcp": "GCP (realized)", "power": "power", "over_alpha": "GCP above α"}
# Nested records deeper than this are shown as one line of text.
MAX_DEPTH = 4


def words(key) -> str:
    """A record key as words: ``n_selected`` -> ``n selected``."""
    return str(key).replace("_", " ")


def cell(value) -> str:
    if isinstance(value, bool) or value is None:
        return {True: "yes", False: "no", None: "-"}[value]
    if isinstance(value, (float, np.floating)):
        return f"{value:.4g}"
    return str(value)


def _records(rows: list) -> str:
    columns = list(dict.fromkeys(k for row in rows for k in row))
    head = "".join(f"<th>{escape(words(c))}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{escape(cell(row.get(c)))}</td>" for c in columns) + "</tr>" for row in rows)
    return f"<table class='grid'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def record_html(value, depth: int = 0) -> str:
    """A JSON-able record (dicts, lists, scalars) as nested key / value tables, every text escaped."""
    if isinstance(value, dict) and value and depth < MAX_DEPTH:
        rows = "".join(f"<tr><th>{escape(words(k))}</th><td>{record_html(v, depth + 1)}</td></tr>" for k, v in value.items())
        return f"<table class='kv'>{rows}</table>"
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value) and depth < MAX_DEPTH:
        return _records(value)
    if isinstance(value, list):
        return escape(", ".join(cell(v) for v in value)) if value else "-"
    if isinstance(value, dict):
        return escape(str(value)) if value else "-"
    return escape(cell(value))
