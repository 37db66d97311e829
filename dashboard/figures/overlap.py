"""Select page (d): how the selections of the registered rules overlap (an UpSet-style chart of membership patterns)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from jecs_core import Comparison, Guarantee

from ..theme import METHOD_COLORS, figure, guarantee, layout, short_label

_OFF = "#e5e7eb"
_SHARED = "#334155"
# Axis tags by guarantee kind (finite-sample rules need none).
_TAGS = {Guarantee.ASYMPTOTIC: " (asymptotic)", Guarantee.INVALID: " ⚠ invalid"}


@dataclass(frozen=True)
class OverlapData:
    methods: tuple[str, ...]
    patterns: list[tuple[bool, ...]]  # which methods select the items of each bar, largest bar first
    counts: list[int]
    n_none: int  # items no rule selects
    sizes: dict[str, int]


def _overlap_data(comparison: Comparison) -> OverlapData:
    methods = comparison.methods
    masks = np.column_stack([comparison.selected(m) for m in methods])
    codes = masks @ (1 << np.arange(len(methods)))
    values, counts = np.unique(codes, return_counts=True)
    order = sorted((int(-c), int(v)) for v, c in zip(values, counts) if v != 0)
    patterns = [tuple(bool(v >> j & 1) for j in range(len(methods))) for _, v in order]
    return OverlapData(
        methods=methods,
        patterns=patterns,
        counts=[-c for c, _ in order],
        n_none=int((codes == 0).sum()),
        sizes={m: int(masks[:, j].sum()) for j, m in enumerate(methods)},
    )


def _pattern_name(pattern, methods) -> str:
    return " + ".join(short_label(m) for m, on in zip(methods, pattern) if on)


def plot_overlap(comparison: Comparison) -> go.Figure:
    """Bars (top panel) count the items of each membership pattern; dots below mark the rules in it."""
    data = _overlap_data(comparison)
    x = list(range(len(data.patterns)))
    n_rows = len(data.methods)
    traces = [{
        "type": "bar", "x": x, "y": data.counts, "text": [f"{c:,}" for c in data.counts], "textposition": "outside",
        "cliponaxis": False, "showlegend": False,
        "marker": {"color": [METHOD_COLORS[data.methods[p.index(True)]] if sum(p) == 1 else _SHARED for p in data.patterns]},
        "customdata": [_pattern_name(p, data.methods) for p in data.patterns],
        "hovertemplate": "selected by exactly: %{customdata}<br>%{y:,} items<extra></extra>",
    }]
    ticks = []
    for j, method in enumerate(data.methods):
        row_y = n_rows - 1 - j
        traces.append({
            "type": "scatter", "x": x, "y": [row_y] * len(x), "mode": "markers", "showlegend": False, "hoverinfo": "skip",
            "yaxis": "y2", "marker": {"size": 13, "color": [METHOD_COLORS[method] if p[j] else _OFF for p in data.patterns]},
        })
        tag = _TAGS.get(guarantee(method), "")
        ticks.append((row_y, f"{short_label(method)}{tag} ({data.sizes[method]:,})"))
    seg_x, seg_y = [], []
    for i, p in enumerate(data.patterns):
        rows = [n_rows - 1 - j for j, on in enumerate(p) if on]
        if len(rows) > 1:
            seg_x += [i, i, None]
            seg_y += [min(rows), max(rows), None]
    traces.append({"type": "scatter", "x": seg_x, "y": seg_y, "mode": "lines", "line": {"color": _SHARED, "width": 2},
                   "showlegend": False, "hoverinfo": "skip", "yaxis": "y2"})
    return figure(traces, layout(
        title=f"Overlap of the {len(data.methods)} selections ({data.n_none:,} item{'' if data.n_none == 1 else 's'} selected by none)", height=440,
        xaxis={"showticklabels": False, "showgrid": False, "zeroline": False, "range": [-0.6, max(len(x), 1) - 0.4]},
        yaxis={"title": {"text": "items"}, "domain": [0.38, 1.0]},
        yaxis2={"domain": [0.0, 0.32], "anchor": "x", "tickvals": [y for y, _ in ticks], "ticktext": [t for _, t in ticks],
                "range": [-0.6, n_rows - 0.4], "showgrid": False, "zeroline": False, "automargin": True},
        # The rule labels sit left of the dots: a margin wide enough for the longest, not the default 60 px.
        margin={"l": max(60, 7 * max((len(t) for _, t in ticks), default=0) + 16), "r": 20, "t": 60, "b": 30},
    ))
