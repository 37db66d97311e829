"""Evaluate page figures: realized GCP against alpha (lines) with power (bars), and sweeps.

The data functions reshape the tidy frames of :mod:`jecs_core.evaluate`; the
``plot_`` functions draw them in the paper's style (GCP lines on the left axis,
power bars on the right, the target diagonal dashed).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from jecs_core import METHODS, Guarantee

from ..theme import METHOD_COLORS, REFERENCE_COLOR, WARNING_COLOR, base_layout, dash, guarantee, short_label

# Legend under the plot: at the top it ran into the title and the subplot titles.
_LEGEND_BELOW = {"orientation": "h", "x": 0.0, "xanchor": "left", "y": -0.18, "yanchor": "top"}
_UNIT_AXIS = {"range": [0, 1.0], "tickmode": "linear", "tick0": 0, "dtick": 0.2}


def _dash(method: str) -> str:
    # By guarantee, as on the Select page: solid (finite-sample), dashed (asymptotic), dotted (invalid).
    return dash(method)


def _bar_marker(method: str) -> dict:
    """Filled bars in the rule's colour; invalid baselines hatched in that colour on white (still visible)."""
    color = METHOD_COLORS[method]
    marker = {"color": color, "line": {"color": color, "width": 1.2}}
    if guarantee(method) is Guarantee.INVALID:
        marker["pattern"] = {"shape": "/", "fgcolor": color, "bgcolor": "white", "solidity": 0.45}
    return marker


@dataclass(frozen=True)
class MethodSeries:
    method: str
    x: np.ndarray
    gcp: np.ndarray
    gcp_se: np.ndarray
    power: np.ndarray
    power_se: np.ndarray


def _series(frame: pd.DataFrame, x_column: str) -> list[MethodSeries]:
    out = []
    for method in METHODS:
        rows = frame[frame["method"] == method].sort_values(x_column)
        if rows.empty:
            continue
        out.append(MethodSeries(method, rows[x_column].to_numpy(float), rows["gcp"].to_numpy(), rows["gcp_se"].to_numpy(),
                                rows["power"].to_numpy(), rows["power_se"].to_numpy()))
    return out


def _gcp_power_data(summary: pd.DataFrame) -> list[MethodSeries]:
    """One series per method over alpha, from an ``Evaluation.summary`` frame."""
    return _series(summary, "alpha")


def plot_gcp_power(summary: pd.DataFrame, *, title: str = "Realized GCP (lines) and power (bars) against the target α") -> go.Figure:
    series = _gcp_power_data(summary)
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    alphas = np.unique(summary["alpha"].to_numpy(float))
    spacing = float(np.min(np.diff(alphas))) if alphas.size > 1 else 0.1
    width = 0.8 * spacing / max(1, len(series))
    for i, s in enumerate(series):
        offset = (i - (len(series) - 1) / 2) * width
        fig.add_trace(
            go.Bar(x=s.x + offset, y=s.power, width=width, name=f"{short_label(s.method)} power", opacity=0.55,
                   marker=_bar_marker(s.method),
                   error_y={"type": "data", "array": s.power_se, "visible": True, "color": "#334155"},
                   legendgroup=s.method,
                   hovertemplate="α %{customdata:.2f}<br>power %{y:.3f}<extra></extra>", customdata=s.x),
            secondary_y=True,
        )
    for s in series:
        fig.add_trace(
            go.Scatter(x=s.x, y=s.gcp, mode="lines+markers", name=f"{short_label(s.method)} GCP",
                       line={"color": METHOD_COLORS[s.method], "width": 2.5, "dash": _dash(s.method)},
                       error_y={"type": "data", "array": s.gcp_se, "visible": True}, legendgroup=s.method,
                       hovertemplate="α %{x:.2f}<br>GCP %{y:.3f}<extra></extra>"),
            secondary_y=False,
        )
    top = float(max(alphas.max(), 0.05))
    fig.add_trace(go.Scatter(x=[0, top * 1.05], y=[0, top * 1.05], mode="lines", name="target (GCP = α)",
                             line={"color": REFERENCE_COLOR, "dash": "dash", "width": 1.5}), secondary_y=False)
    base_layout(fig, title=title, height=500)
    fig.update_layout(barmode="overlay", legend=_LEGEND_BELOW, margin={"t": 60, "b": 150})
    fig.update_xaxes(title="target α", range=[0, top + 0.5 * spacing])  # the last group of bars fits
    # Both axes 0-1 with the same ticks, so the right axis sits on the left axis's gridlines.
    fig.update_yaxes(title="realized GCP (mean ± SE)", secondary_y=False, **_UNIT_AXIS)
    fig.update_yaxes(title="power (mean ± SE)", secondary_y=True, showgrid=False, **_UNIT_AXIS)
    return fig


def _sweep_data(frame: pd.DataFrame, alpha: float) -> tuple[list[MethodSeries], list[str]]:
    """Series over the swept settings at one alpha, placed at evenly spaced positions.

    Numeric settings come first in increasing order; a data-driven setting
    ('auto' lambda or k_n) has no number and goes last.  Returns the series and
    the tick label of each position.
    """
    rows = frame[np.isclose(frame["alpha"].to_numpy(float), alpha)].copy()
    rows["_num"] = pd.to_numeric(rows["value"], errors="coerce")
    settings = rows.drop_duplicates("setting").sort_values("_num", na_position="last")["setting"].astype(str).tolist()
    position = {name: i for i, name in enumerate(settings)}
    rows["x"] = rows["setting"].astype(str).map(position)
    return _series(rows, "x"), settings


def _sweep_alphas(frame: pd.DataFrame, alphas, alpha) -> list[float]:
    if alphas is None:
        alphas = [alpha] if alpha is not None else sorted(np.unique(frame["alpha"].to_numpy(float)))
    return [float(a) for a in alphas]


def plot_sweep(frame: pd.DataFrame, *, parameter: str, alphas=None, alpha: float | None = None) -> go.Figure:
    """GCP (left, with the target line) and power (right) against the swept setting: one row per α.

    ``alphas=None`` draws every α in ``frame``; ``alpha=`` draws that one only.
    """
    rows = _sweep_alphas(frame, alphas, alpha)
    titles = [t for a in rows for t in (f"GCP at α = {a:g}", f"power at α = {a:g}")]
    fig = make_subplots(rows=len(rows), cols=2, subplot_titles=titles, horizontal_spacing=0.1,
                        vertical_spacing=min(0.12, 0.3 / max(1, len(rows) - 1)) if len(rows) > 1 else 0.1)
    labels: list[str] = []
    for r, a in enumerate(rows, start=1):
        series, labels = _sweep_data(frame, a)
        for s in series:
            style = {"color": METHOD_COLORS[s.method], "width": 2.5, "dash": _dash(s.method)}
            for col, (y, se) in enumerate(((s.gcp, s.gcp_se), (s.power, s.power_se)), start=1):
                fig.add_trace(go.Scatter(x=s.x, y=y, mode="lines+markers", name=short_label(s.method), line=style,
                                         legendgroup=s.method, showlegend=(r == 1 and col == 1),
                                         error_y={"type": "data", "array": se, "visible": True}), row=r, col=col)
        fig.add_hline(y=a, line={"color": WARNING_COLOR, "dash": "dash"}, row=r, col=1, annotation_text="target α")
        ticks = np.arange(len(labels))
        for col in (1, 2):
            fig.update_xaxes(tickvals=ticks, ticktext=labels, row=r, col=col,
                             title=parameter if r == len(rows) else None)
            fig.update_yaxes(range=[0, 1.02], row=r, col=col)
    base_layout(fig, height=170 + 260 * len(rows))
    fig.update_layout(legend=_LEGEND_BELOW | {"y": -0.06 - 0.25 / len(rows)}, margin={"t": 50, "b": 120})
    return fig
