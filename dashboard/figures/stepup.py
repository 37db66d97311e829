"""Select page (c): sorted transformed values against the Storey-BH line, r* marked."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from jecs_core import JECSResult

from ..theme import METHOD_COLORS, REFERENCE_COLOR, figure, layout, vline
from ._common import thin


@dataclass(frozen=True)
class StepUpData:
    rank: np.ndarray  # 1-based ranks (thinned for drawing)
    p_tilde_sorted: np.ndarray  # sorted transformed values at those ranks
    p_max_sorted: np.ndarray  # sorted raw max-p at those ranks (what JMCS ranks)
    line_slope: float  # alpha / (pi0_hat n): the Storey-BH line is slope * r
    r_star: int
    threshold: float
    n: int
    focus: int  # the x-range drawn first (the user can zoom out)


def _stepup_data(result: JECSResult) -> StepUpData:
    fit = result.fit
    n = len(fit.p_max)
    r_star = result.r_star
    keep = range(max(0, r_star - 200), min(n, r_star + 200))  # draw the crossing exactly
    idx = thin(n, keep=keep)
    return StepUpData(
        rank=idx + 1,
        p_tilde_sorted=fit.sorted_p_tilde[idx],
        p_max_sorted=fit.sorted_p_max[idx],
        line_slope=result.alpha / (result.pi0_hat * n),
        r_star=r_star,
        threshold=result.threshold,
        n=n,
        focus=int(min(n, max(2 * r_star, 50))),
    )


def plot_stepup(result: JECSResult) -> go.Figure:
    data = _stepup_data(result)
    color = METHOD_COLORS["jecs"]
    traces = [
        {"type": "scatter", "x": data.rank, "y": data.p_tilde_sorted, "mode": "lines", "name": "sorted transformed values p~_(r)",
         "line": {"color": color, "width": 2.5}, "hovertemplate": "r = %{x}<br>p~ = %{y:.4g}<extra></extra>"},
        {"type": "scatter", "x": data.rank, "y": data.p_max_sorted, "mode": "lines", "name": "sorted raw max-p p*_(r)",
         "line": {"color": METHOD_COLORS["jmcs"], "width": 1.5, "dash": "dot"}, "visible": "legendonly",
         "hovertemplate": "r = %{x}<br>p* = %{y:.4g}<extra></extra>"},
        {"type": "scatter", "x": [0, data.n], "y": [0, data.line_slope * data.n], "mode": "lines",
         "name": f"Storey-BH line α r / (pi0_hat n), α = {result.alpha:g}, pi0_hat = {result.pi0_hat:.3f}",
         "line": {"color": REFERENCE_COLOR, "dash": "dash", "width": 2}, "hoverinfo": "skip"},
    ]
    marks = {}
    if data.r_star > 0:
        traces.append(
            {"type": "scatter", "x": [data.r_star], "y": [data.threshold], "mode": "markers", "name": f"r* = {data.r_star:,}",
             "marker": {"color": color, "size": 12, "symbol": "x", "line": {"width": 1}},
             "hovertemplate": "r* = %{x}<br>threshold %{y:.4g}<extra></extra>"}
        )
        marks["shapes"] = [vline(data.r_star, color, dash="dot", width=1)]
    else:
        marks["annotations"] = [{"x": 0.5, "y": 0.9, "xref": "paper", "yref": "paper", "showarrow": False,
                                 "text": "r* = 0: no transformed value lies under the line; nothing is selected"}]
    y_top = max(data.line_slope * data.focus, float(np.interp(data.focus, data.rank, data.p_tilde_sorted))) * 1.1
    return figure(traces, layout(
        title="Storey-BH step-up on the transformed values (drag or double-click to zoom out)", height=420,
        xaxis={"title": {"text": "rank r"}, "range": [0, data.focus]},
        yaxis={"title": {"text": "value"}, "range": [0, min(1.0, y_top) if y_top > 0 else 1.0]}, **marks,
    ))
