"""Data page: per-model score distributions, calibration vs test (members vs non-members when labelled)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from jecs_core import ScoreTable

from ..theme import SPLIT_COLORS, base_layout
from ._common import density, plotly_text, step_xy

GROUP_LABELS = {
    "calibration": "calibration (known members)",
    "test": "test",
    "non_member": "test, non-member of this model",
    "member": "test, member of this model",
}


@dataclass(frozen=True)
class ModelDistribution:
    model: str
    edges: np.ndarray
    densities: dict[str, np.ndarray]  # group -> density per bin (each integrates to 1)
    counts: dict[str, int]


def _score_distribution_data(table: ScoreTable, models=None, bins: int = 40) -> list[ModelDistribution]:
    models = list(table.models if models is None else models)
    out = []
    for name in models:
        k = table.models.index(name)
        groups = {"calibration": table.calibration[:, k]}
        if table.has_labels:
            member = table.test_members[:, k].astype(bool)
            groups["non_member"] = table.test[~member, k]
            groups["member"] = table.test[member, k]
        else:
            groups["test"] = table.test[:, k]
        pooled = np.concatenate([table.calibration[:, k], table.test[:, k]])
        low, high = float(pooled.min()), float(pooled.max())
        if high <= low:
            low, high = low - 0.5, high + 0.5
        edges = np.linspace(low, high, bins + 1)
        out.append(
            ModelDistribution(
                model=name,
                edges=edges,
                densities={g: density(v, edges) for g, v in groups.items() if len(v)},
                counts={g: int(len(v)) for g, v in groups.items()},
            )
        )
    return out


def plot_score_distributions(table: ScoreTable, models=None, *, bins: int = 40, columns: int = 4) -> go.Figure:
    """Small multiples, one panel per model, of the score densities of each part of the table."""
    data = _score_distribution_data(table, models, bins)
    cols = max(1, min(columns, len(data)))
    rows = max(1, math.ceil(len(data) / cols))
    fig = make_subplots(
        rows=rows, cols=cols, subplot_titles=[plotly_text(d.model) for d in data], horizontal_spacing=0.05, vertical_spacing=0.12 / rows + 0.04
    )
    seen = set()
    for i, dist in enumerate(data):
        row, col = divmod(i, cols)
        for group, heights in dist.densities.items():
            x, y = step_xy(dist.edges, heights)
            fig.add_trace(
                go.Scatter(
                    x=x, y=y, mode="lines", line={"shape": "hv", "color": SPLIT_COLORS[group], "width": 1.5},
                    fill="tozeroy", opacity=0.55, name=GROUP_LABELS[group], legendgroup=group,
                    showlegend=group not in seen,
                    hovertemplate=f"{plotly_text(dist.model)} · {GROUP_LABELS[group]} (n = {dist.counts[group]:,})"
                    "<br>score %{x:.3g}<br>density %{y:.3g}<extra></extra>",
                ),
                row=row + 1, col=col + 1,
            )
            seen.add(group)
    fig.update_xaxes(title_text="score (larger = more member-like)", row=rows)
    fig.update_yaxes(title_text="density", col=1)
    height = 260 * rows + 110
    base_layout(fig, height=height)
    # Lift the legend above the panel titles (which sit just above the first row).
    fig.update_layout(margin={"t": 80}, legend={"y": 1 + 28 / (height - 130)})
    return fig
