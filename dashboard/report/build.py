"""Assemble the audit report's HTML (see :mod:`dashboard.report`)."""

from __future__ import annotations

import dataclasses
import html
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from jecs_core import REGISTRY, Comparison, Option, ScoreTable, __version__, selection_metadata
from jecs_core.rules import declared_options

from ..explain import diagnostics_basis, selection_warnings
from ..figures.catalog import SELECT_FIGURES, build_all, envelope_source
from ..plain import isolated_list
from .leaderboard import leaderboard_section
from .posthoc import PostHocContext, apply_to_sidecar, section_html
from .style import CSS
from .tables import COUNT_HEADERS, record_html


@dataclass(frozen=True)
class ReportInputs:
    """What one report describes: the table, the comparison, the rule inspected and the settings."""

    table: ScoreTable
    comparison: Comparison
    method: str
    data_name: str
    options: Mapping = dataclasses.field(default_factory=dict)  # rule options by name; defaults fill the rest
    diagnostics: object | None = None
    leaderboard: object | None = None  # a jecs_core.leaderboard.Leaderboard: adds the leaderboard section
    post_hoc: PostHocContext | None = None  # δ, a hand-edited set, a commit of α (default: δ = 0.1, none)
    # Covariate-aware p-values: {"covariates", "shift_method", "shift": ShiftPValues.to_dict()}, as jecs select records them.
    shift: Mapping | None = None


def _diagnostics_html(inputs: ReportInputs) -> str:
    if inputs.diagnostics is None:
        return "<p>Not computed: the table is too small for the label-free diagnostics.</p>"
    basis = diagnostics_basis(None if inputs.shift is None else inputs.shift["shift"]["method"])
    found = inputs.diagnostics
    if callable(getattr(found, "lines", None)) and callable(getattr(found, "to_dict", None)):
        # The lines jecs select prints, then the sidecar's record of them (numbers, not raw arrays).
        body = (f"<pre>{_e(chr(10).join(found.lines()))}</pre><details><summary>As recorded in the sidecar</summary>"
                f"{_record_block(found.to_dict())}</details>")
    else:
        body = _record_block(found)
    return ("" if basis is None else f"<p>{html.escape(basis)}</p>") + body


def audit_diagnostics_or_none(table: ScoreTable, *, alpha: float = 0.1, **options):
    """``jecs_core.diagnostics.audit_diagnostics(table, alpha=...)``, or ``None`` for a table too small for them.

    Only the ``ValueError`` a diagnostic raises on a table it cannot judge is turned into
    ``None`` (as ``jecs select`` does); any other error is a bug and propagates.
    """
    from jecs_core.diagnostics import audit_diagnostics

    try:
        return audit_diagnostics(table, alpha=alpha, **options)
    except ValueError:
        return None


def provenance_for(table: ScoreTable) -> dict | None:
    """The ``<stem>.provenance.json`` sidecar beside the scores file, when there is one (parsed as JSON only)."""
    source = Path(str(table.source or ""))
    if not source.name or not source.exists():
        return None
    sidecar = source.with_suffix(".provenance.json")
    if not sidecar.is_file():
        return None
    try:
        return json.loads(sidecar.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def report_file_name(data_name: str, method: str, alpha: float) -> str:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", data_name).strip("-").lower() or "data"
    return f"jecs_report_{slug}_{method}_alpha{alpha:.2f}.html"


def figure_html(fig: go.Figure, *, include_plotlyjs: bool | str = True, div_id: str | None = None) -> str:
    """One figure as an HTML fragment (``include_plotlyjs=True`` inlines plotly.js: works offline)."""
    return fig.to_html(full_html=False, include_plotlyjs=include_plotlyjs, div_id=div_id,
                       config={"displaylogo": False, "responsive": True})


def _e(value) -> str:
    return html.escape(str(value), quote=True)


def _table(rows: list[tuple[str, object]]) -> str:
    body = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in rows)
    return f"<table class='kv'>{body}</table>"


def _frame(frame: pd.DataFrame) -> str:
    head = "".join(f"<th>{_e(c)}</th>" for c in frame.columns)
    body = "".join("<tr>" + "".join(f"<td>{_e(_fmt(v))}</td>" for v in row) + "</tr>" for row in frame.itertuples(index=False))
    return f"<table class='grid'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _fmt(value) -> str:
    if isinstance(value, (float, np.floating)):
        return f"{value:.4g}"
    return str(value)


def _plain(value):
    """Diagnostics of any shape (dataclass, mapping, object with to_dict / to_frame) as JSON-able data."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    for attr in ("to_dict", "as_dict"):
        if callable(getattr(value, attr, None)) and not isinstance(value, pd.DataFrame):
            return _plain(getattr(value, attr)())
    if isinstance(value, pd.DataFrame):
        return value.to_dict(orient="records")
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist() if value.size <= 50 else f"array of shape {value.shape}"
    if isinstance(value, (np.generic,)):
        return value.item()
    return value if isinstance(value, (str, int, float, bool, type(None))) else str(value)


def _json_block(value) -> str:
    return f"<pre>{_e(json.dumps(_plain(value), indent=2, default=str))}</pre>"


def _record_block(value) -> str:
    return record_html(_plain(value))


def _settings(inputs: ReportInputs) -> str:
    rule = REGISTRY[inputs.method]
    return _table([
        ("target GCR α", f"{inputs.comparison.alpha:g}"),
        ("rule inspected", rule.label),
        ("its guarantee", rule.guarantee.description),
        *((option.label, option.to_url(value)) for option, value in _options(inputs)),
        *(() if inputs.shift is None else (
            ("covariates", ", ".join(inputs.shift["covariates"]) if inputs.shift["covariates"] != "all" else "all"),
            ("covariate use", f"{inputs.shift['shift']['method']}: {inputs.shift['shift']['reason']}"))),
        ("jecs version", __version__),
    ])


def _options(inputs: ReportInputs) -> list[tuple[Option, object]]:
    """Every declared rule option with its value in this report (the default where none was given)."""
    return [(option, inputs.options.get(name, option.default)) for name, (option, _) in declared_options().items()]


def _data_summary(inputs: ReportInputs) -> str:
    t = inputs.table
    return _table([
        ("data set", inputs.data_name), ("scores file", Path(str(t.source)).name if t.source else "-"),
        ("scores file SHA-256", t.source_sha256 or "-"), ("test items n", f"{t.n:,}"),
        ("calibration items m", f"{t.m:,}"), ("models K", t.K), ("models", isolated_list(t.models)),
        ("member labels", "present" if t.has_labels else "absent"),
        ("smallest possible p-value 1/(m+1)", f"{1 / (t.m + 1):.4g}"),
    ])


def _counts(inputs: ReportInputs) -> str:
    summary = inputs.comparison.summary()
    return _frame(summary.drop(columns=["method"]).rename(columns=COUNT_HEADERS))


def _figures(inputs: ReportInputs) -> str:
    figures = build_all(inputs.comparison, inputs.method)
    titles = {spec.key: (spec.title, spec.caption) for spec in SELECT_FIGURES}
    source, _ = envelope_source(inputs.comparison, inputs.method)
    parts = []
    for i, (key, fig) in enumerate(figures.items()):
        title, caption = titles[key]
        if key in ("envelope", "grid") and source not in (None, inputs.method):
            caption += f" (The fit of {REGISTRY[source].label}: {REGISTRY[inputs.method].label} fits no envelope.)"
        div = figure_html(fig, include_plotlyjs=(i == 0), div_id=f"fig-{key}")
        parts.append(f"<section class='figure' data-figure='{key}'><h3>{_e(title)}</h3><p>{_e(caption)}</p>{div}</section>")
    return "\n".join(parts)


def build_report(inputs: ReportInputs) -> str:
    """The whole report as one HTML string (UTF-8 text; plotly.js inlined once)."""
    c, t = inputs.comparison, inputs.table
    warnings = selection_warnings(t, c)
    warn_html = "".join(f"<li>{_e(m)}</li>" for _, m in warnings) or "<li class='none'>none</li>"
    provenance = provenance_for(t)
    context = inputs.post_hoc or PostHocContext()
    options = {**{option.name: value for option, value in _options(inputs)}, **(inputs.shift or {})}
    try:
        sidecar = apply_to_sidecar(selection_metadata(t, c, inputs.method, options=options, post_hoc_delta=context.delta),
                                   t, c, inputs.method, context)
    except (ValueError, OSError) as exc:  # an input file gone or unreadable: say so in its place
        sidecar = {"error": f"the selection record could not be built ({exc.__class__.__name__}: {exc})"}
    sections = [
        ("Settings", _settings(inputs)),
        ("Data", _data_summary(inputs)),
        ("Selections", _counts(inputs)),
        ("Post-hoc bound (valid for an α picked after looking)", section_html(t, c, inputs.method, context)),
        ("Warnings", f"<ul class='warnings'>{warn_html}</ul>"),
        ("Diagnostics (label-free)", _diagnostics_html(inputs)),
        ("Figures", _figures(inputs)),
        *([("Leaderboard on the clean subset", leaderboard_section(inputs.leaderboard))]
          if inputs.leaderboard is not None else []),
        ("Provenance of the scores", _record_block(provenance) if provenance is not None
         else "<p>The scores file has no provenance sidecar.</p>"),
        ("Selection sidecar (as written by jecs select --out, with hashes)", _json_block(sidecar)),
    ]
    body = "\n".join(f"<section id='{_e(title.split()[0].lower())}'><h2>{_e(title)}</h2>{content}</section>"
                     for title, content in sections)
    head_title = _e(f"JECS audit report: {inputs.data_name}")
    return (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{head_title}</title>"
            f"<style>{CSS}</style></head><body><h1>{head_title}</h1>{body}</body></html>\n")
