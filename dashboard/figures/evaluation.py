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

from jecs_core import METHODS

from ..theme import METHOD_COLORS, REFERENCE_COLOR, base_layout, is_valid, short_label


def _dash(method: str) -> str:
    # Invalid baselines are dotted and their bars hatched, as on the Select page.
    return "solid" if is_valid(method) else "dot"


def _pattern(method: str) -> dict:
    return {} if is_valid(method) else {"shape": "/", "fgcolor": "white", "solidity": 0.25}


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
    width = 0.8 * (np.min(np.diff(alphas)) if alphas.size > 1 else 0.1) / max(1, len(series))
    for i, s in enumerate(series):
        offset = (i - (len(series) - 1) / 2) * width
        fig.add_trace(
            go.Bar(x=s.x + offset, y=s.power, width=width, name=f"{short_label(s.method)} power", opacity=0.35,
                   marker={"color": METHOD_COLORS[s.method], "pattern": _pattern(s.method)},
                   error_y={"type": "data", "array": s.power_se, "visible": True}, legendgroup=s.method,
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
    base_layout(fig, title=title, height=430)
    fig.update_layout(barmode="overlay")
    fig.update_xaxes(title="target α", range=[0, top * 1.1])
    fig.update_yaxes(title="realized GCP (mean ± SE)", range=[0, 1], secondary_y=False)
    fig.update_yaxes(title="power (mean ± SE)", range=[0, 1.05], secondary_y=True, showgrid=False)
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


def plot_sweep(frame: pd.DataFrame, *, alpha: float, parameter: str) -> go.Figure:
    """GCP (left panel, with the target line) and power (right panel) against the swept setting."""
    series, labels = _sweep_data(frame, alpha)
    fig = make_subplots(rows=1, cols=2, subplot_titles=(f"GCP at α = {alpha:g}", f"power at α = {alpha:g}"), horizontal_spacing=0.1)
    for s in series:
        style = {"color": METHOD_COLORS[s.method], "width": 2.5, "dash": _dash(s.method)}
        fig.add_trace(go.Scatter(x=s.x, y=s.gcp, mode="lines+markers", name=short_label(s.method), line=style, legendgroup=s.method,
                                 error_y={"type": "data", "array": s.gcp_se, "visible": True}), row=1, col=1)
        fig.add_trace(go.Scatter(x=s.x, y=s.power, mode="lines+markers", name=short_label(s.method), line=style, legendgroup=s.method,
                                 showlegend=False, error_y={"type": "data", "array": s.power_se, "visible": True}), row=1, col=2)
    fig.add_hline(y=alpha, line={"color": "#dc2626", "dash": "dash"}, row=1, col=1, annotation_text="target α")
    ticks = np.arange(len(labels))
    for col in (1, 2):
        fig.update_xaxes(title=parameter, tickvals=ticks, ticktext=labels, row=1, col=col)
    fig.update_yaxes(range=[0, 1.02], row=1, col=1)
    fig.update_yaxes(range=[0, 1.02], row=1, col=2)
    base_layout(fig, height=400)
    return fig
