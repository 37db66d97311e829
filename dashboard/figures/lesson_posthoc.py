"""Learn page figures for the post-hoc lessons: picking alpha after looking, conformal granularity.

``_looking_data`` / ``_granularity_data`` compute what is drawn (tests check them); ``plot_looking``
and ``plot_granularity`` draw it.  The numbers come from :mod:`dashboard.lesson_looking` and
:mod:`dashboard.lesson_granularity`.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..lesson_granularity import GranularityLesson
from ..lesson_looking import LookingLesson
from ..theme import CONTAMINATED_COLOR, METHOD_COLORS, REFERENCE_COLOR, WARNING_COLOR, figure, layout

BOUND_COLOR = "#0f172a"
# Horizontal spread of the fixed-alpha dots (all at one alpha) so that single tables stay visible.
_JITTER = 0.004


def _lesson_layout(*, title: str, height: int = 480, **extra) -> dict:
    """The shared look with the legend under the plot (the lesson's columns are narrow)."""
    return layout(title=title, height=height, legend={"orientation": "h", "yanchor": "top", "y": -0.2, "xanchor": "left", "x": 0.0},
                  margin={"l": 60, "r": 20, "t": 60, "b": 130}, **extra)


def _looking_data(data: LookingLesson) -> dict:
    """Per table: the fixed alpha's and the unluckiest alpha's realized contamination, and the
    unluckiest set's post-hoc bound; per alpha: the mean realized contamination and mean bound."""
    rows = np.arange(data.reps)
    fixed = data.picked("fixed")
    worst = data.picked("unluckiest")
    spread = np.linspace(-_JITTER, _JITTER, data.reps) if data.reps > 1 else np.zeros(1)
    return {
        "fixed_x": data.alphas[fixed] + spread,
        "fixed_y": data.fdp[rows, fixed],
        "worst_x": data.alphas[worst],
        "worst_y": data.fdp[rows, worst],
        "worst_bound": data.bound_fdp[rows, worst],
        "worst_above": data.fdp[rows, worst] > data.alphas[worst],
        "alphas": data.alphas,
        "mean_fdp": data.fdp.mean(axis=0),
        "mean_bound": data.bound_fdp.mean(axis=0),
    }


def _top(d: dict) -> float:
    """Upper end of the y axis: a little above the highest point drawn, at most 1."""
    highest = max(float(np.max(d[key], initial=0.0)) for key in ("fixed_y", "worst_y", "worst_bound", "mean_bound"))
    return min(1.02, max(0.1, 1.1 * highest))


def plot_looking(data: LookingLesson) -> go.Figure:
    """Realized contamination per table at a fixed alpha and at the unluckiest alpha, with the bound."""
    d = _looking_data(data)
    hover = "α %{x:.2f}<br>realized contamination %{y:.3f}<extra></extra>"
    traces = [
        {"type": "scatter", "x": [0, float(d["alphas"].max())], "y": [0, float(d["alphas"].max())], "mode": "lines",
         "name": "realized = α reported", "line": {"color": REFERENCE_COLOR, "dash": "dash", "width": 1.5}, "hoverinfo": "skip"},
        {"type": "scatter", "x": d["alphas"], "y": d["mean_fdp"], "mode": "lines", "name": "mean realized contamination at each α (GCR)",
         "line": {"color": METHOD_COLORS[data.rule], "width": 2}},
        {"type": "scatter", "x": d["alphas"], "y": d["mean_bound"], "mode": "lines",
         "name": f"post-hoc bound, mean share of the set ({1 - data.delta:.0%} confidence)",
         "line": {"color": BOUND_COLOR, "width": 2, "dash": "dot"}},
        {"type": "scatter", "x": d["fixed_x"], "y": d["fixed_y"], "mode": "markers", "name": f"α = {data.alpha:g} fixed before looking (one dot per table)",
         "marker": {"color": METHOD_COLORS[data.rule], "size": 5, "opacity": 0.5}, "hovertemplate": hover},
        {"type": "scatter", "x": d["worst_x"], "y": d["worst_y"], "mode": "markers", "name": "the unluckiest α on the slider (one dot per table)",
         "marker": {"color": np.where(d["worst_above"], WARNING_COLOR, CONTAMINATED_COLOR).tolist(), "size": 6, "opacity": 0.6,
                    "symbol": "diamond"}, "hovertemplate": hover},
        {"type": "scatter", "x": d["worst_x"], "y": d["worst_bound"], "mode": "markers", "name": "its post-hoc bound (one dash per table)",
         "marker": {"color": BOUND_COLOR, "size": 9, "symbol": "line-ew-open", "line": {"width": 1.5}},
         "hovertemplate": "α %{x:.2f}<br>bound %{y:.3f}<extra></extra>"},
    ]
    spec = _lesson_layout(title=f"Realized contamination on {data.reps} fresh tables, fixed vs. picked after looking",
                          xaxis={"title": {"text": "α reported"}, "range": [0, float(d["alphas"].max()) + 0.01]},
                          yaxis={"title": {"text": "share of the kept set that is contaminated"}, "range": [0, _top(d)]})
    return figure(traces, spec)


def _granularity_data(data: GranularityLesson) -> dict:
    """The three bounds and the truth against m, and the chosen m."""
    return {
        "m": data.series("calibration_size"),
        "template": data.series("template"),
        "closed": data.series("closed"),
        "shipped": data.series("shipped"),
        "truth": data.series("truth"),
        "chosen": data.chosen,
    }


def plot_granularity(data: GranularityLesson) -> go.Figure:
    """Bound / |S| of the default rule's set against the calibration size m (log axis), with the truth."""
    d = _granularity_data(data)
    lines = (
        ("template", "textbook Simes template", REFERENCE_COLOR, "dash"),
        ("closed", "closed testing (Hommel's h) alone", METHOD_COLORS["jmcs"], "dot"),
        ("shipped", "shipped bound: closed testing + calibration urn", BOUND_COLOR, "solid"),
        ("truth", "true contaminated share", CONTAMINATED_COLOR, "solid"),
    )
    traces = [
        {"type": "scatter", "x": d["m"], "y": d[key], "mode": "lines+markers", "name": name,
         "line": {"color": color, "dash": style, "width": 2.5}, "hovertemplate": "m %{x}<br>%{y:.3f}<extra>" + name + "</extra>"}
        for key, name, color, style in lines
    ]
    spec = _lesson_layout(
        title=f"Post-hoc bound of the default rule's set (α = {data.alpha:g}) against calibration size",
        xaxis={"title": {"text": "calibration rows m"}, "type": "log", "tickvals": d["m"], "ticktext": [f"{m:.0f}" for m in d["m"]]},
        yaxis={"title": {"text": "share of the set (bound / |S|)"}, "range": [0, 1.02]},
        shapes=[{"type": "line", "x0": d["chosen"], "x1": d["chosen"], "y0": 0, "y1": 1, "yref": "paper",
                 "line": {"color": WARNING_COLOR, "dash": "dot", "width": 1.5}}],
        annotations=[{"x": np.log10(d["chosen"]), "y": 1.0, "yref": "paper", "text": f"m = {d['chosen']}", "showarrow": False,
                      "xanchor": "left", "yanchor": "top", "font": {"color": WARNING_COLOR}}],
    )
    return figure(traces, spec)
