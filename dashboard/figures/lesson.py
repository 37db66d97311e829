"""Learn page figures: the super-uniformity tax, step by step.

Each ``plot_xxx`` draws a dataclass from :mod:`dashboard.lesson_data`; the data
are computed there (pure numpy), so tests check both.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from jecs_core.rules import DEFAULT_METHOD

from ..lesson_data import CutoffLesson, DensityLesson, EnvelopeLesson, PowerLesson
from ..theme import ALL_ITEMS_COLOR, CONTAMINATED_COLOR, LAMBDA_COLOR, METHOD_COLORS, REFERENCE_COLOR, base_layout, method_label
from ._common import density

_HIST_BINS = np.linspace(0.0, 1.0, 41)


def _lesson_layout(fig: go.Figure, *, title: str, height: int = 440) -> go.Figure:
    """The shared look, with the legend under the plot: the lesson's columns are narrow."""
    base_layout(fig, title=title, height=height)
    fig.update_layout(legend={"orientation": "h", "yanchor": "top", "y": -0.18, "xanchor": "left", "x": 0.0},
                      margin={"b": 120})
    return fig


def plot_null_densities(data: DensityLesson) -> go.Figure:
    """One model's null p-value density (Uniform) against the max-p null density, with a simulation."""
    c = data.exposure
    heights = density(data.simulated, _HIST_BINS)
    centers = (_HIST_BINS[:-1] + _HIST_BINS[1:]) / 2
    fig = go.Figure()
    fig.add_trace(
        go.Bar(x=centers, y=heights, width=np.diff(_HIST_BINS), name=f"simulated max-p (K = {data.n_models}, c = {c})",
               marker={"color": CONTAMINATED_COLOR, "opacity": 0.35}, hovertemplate="p* %{x:.3f}<br>density %{y:.2f}<extra></extra>")
    )
    fig.add_trace(
        go.Scatter(x=data.x, y=data.single_model_density, mode="lines", name="one model's null p-value: Uniform(0, 1)",
                   line={"color": REFERENCE_COLOR, "dash": "dash", "width": 2})
    )
    fig.add_trace(
        go.Scatter(x=data.x, y=data.maxp_density, mode="lines",
                   name=f"max-p null density  η + (1-η)·c·x^(c-1),  η = {data.eta:g}, c = {c}",
                   line={"color": CONTAMINATED_COLOR, "width": 3})
    )
    _lesson_layout(fig, title="Null density of one p-value vs. the max over models")
    fig.update_xaxes(title="p-value", range=[0, 1])
    fig.update_yaxes(title="density", rangemode="tozero")
    return fig


def plot_cutoff_gap(data: CutoffLesson) -> go.Figure:
    """BH's cut-off ``alpha r/n`` against the natural max-p null scale ``(r/n)^(1/K)``."""
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(x=data.fraction, y=data.natural_scale, mode="lines", name=f"natural null scale (r/n)^(1/K), K = {data.n_models}",
                   line={"color": CONTAMINATED_COLOR, "width": 3})
    )
    fig.add_trace(
        go.Scatter(x=data.fraction, y=data.bh_cutoff, mode="lines", name=f"BH cut-off α·r/n, α = {data.alpha:g}",
                   line={"color": METHOD_COLORS["jmcs"], "width": 3}, fill="tozeroy", fillcolor="rgba(79,70,229,0.10)")
    )
    fig.add_trace(
        go.Scatter(x=np.concatenate([data.fraction, data.fraction[::-1]]),
                   y=np.concatenate([data.natural_scale, data.bh_cutoff[::-1]]), fill="toself",
                   fillcolor="rgba(234,88,12,0.10)", line={"width": 0}, name="the gap (the tax)", hoverinfo="skip")
    )
    _lesson_layout(fig, title="Where BH looks vs. where max-p nulls live")
    fig.update_xaxes(title="rank fraction r / n", range=[0, 1])
    fig.update_yaxes(title="p-value scale", range=[0, 1])
    return fig


def plot_envelope_lesson(data: EnvelopeLesson) -> go.Figure:
    """True null CDF, mixture ECDF and fitted envelope on one simulated audit."""
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="Uniform CDF", line={"color": REFERENCE_COLOR, "dash": "dash", "width": 1}))
    fig.add_trace(go.Scatter(x=data.x, y=data.mixture_cdf, mode="lines", name="mixture ECDF of max-p (all items)",
                             line={"color": ALL_ITEMS_COLOR, "shape": "hv", "width": 1.5}))
    fig.add_trace(go.Scatter(x=data.x, y=data.null_cdf, mode="lines", name="true null CDF (contaminated items)",
                             line={"color": CONTAMINATED_COLOR, "shape": "hv", "width": 2}))
    fig.add_trace(go.Scatter(x=data.x, y=data.envelope, mode="lines", name="fitted envelope F_fit",
                             line={"color": METHOD_COLORS["jecs"], "width": 3}))
    fig.add_trace(go.Scatter(x=[data.lam], y=[data.anchor], mode="markers", name=f"anchor (λ, F_fit(λ)) = ({data.lam:g}, {data.anchor:.3f})",
                             marker={"color": LAMBDA_COLOR, "size": 11, "symbol": "diamond"}))
    fig.add_vline(x=data.lam, line={"color": LAMBDA_COLOR, "dash": "dot"})
    _lesson_layout(fig, title="The envelope sits above the null CDF", height=480)
    fig.update_xaxes(title="max-p", range=[0, 1])
    fig.update_yaxes(title="CDF", range=[0, 1.02])
    return fig


def _power_label(method: str) -> str:
    """The rule's label as on its card, with the default marked."""
    return f"{method_label(method)} (default)" if method == DEFAULT_METHOD else method_label(method)


def plot_power_vs_k(data: PowerLesson) -> go.Figure:
    """Power (bars) and mean GCP (lines) of each rule of the lesson against K, with the target alpha."""
    fig = go.Figure()
    for method in data.power:
        fig.add_trace(go.Bar(x=data.n_models, y=data.power[method], name=f"{_power_label(method)} power",
                             marker={"color": METHOD_COLORS[method]}, opacity=0.75))
    for method in data.gcp:
        fig.add_trace(go.Scatter(x=data.n_models, y=data.gcp[method], mode="lines+markers", name=f"{_power_label(method)} mean GCP",
                                 line={"color": METHOD_COLORS[method], "width": 2, "dash": "dot"}))
    fig.add_hline(y=data.alpha, line={"color": "#dc2626", "dash": "dash"}, annotation_text=f"target α = {data.alpha:g}")
    _lesson_layout(fig, title=f"Power and GCP against K ({data.reps} simulated audits per K)")
    fig.update_layout(barmode="group")
    fig.update_xaxes(title="number of models K", dtick=1)
    fig.update_yaxes(title="power / GCP", range=[0, 1.02])
    return fig
