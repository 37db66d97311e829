"""Select page (c): a step-up rule's sorted statistic against its line, r* marked (any registered step-up rule)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from ..explain import ranking
from ..theme import PALETTE, REFERENCE_COLOR, figure, layout, vline
from ._common import thin


@dataclass(frozen=True)
class StepUpData:
    rank: np.ndarray  # 1-based ranks (thinned for drawing)
    statistic_sorted: np.ndarray  # the rule's sorted ranking statistic at those ranks
    p_max_sorted: np.ndarray  # sorted raw max-p at those ranks
    statistic: str  # its name ("transformed value p̃", "max-p p*")
    line_slope: float  # alpha / (pi0 n): the step-up line is slope * r
    pi0: float
    alpha: float
    r_star: int
    threshold: float
    n: int
    focus: int  # the x-range drawn first (the user can zoom out)


def _stepup_data(result, p_max=None) -> StepUpData:
    """Sorted statistic of any step-up rule (``r_star``, ``threshold`` and ``p_tilde`` or ``p_max``)."""
    stat = ranking(result)
    if stat is None:
        raise ValueError("result must be a step-up rule's result (r_star, threshold and a p_tilde or p_max statistic)")
    n = len(stat.values)
    r_star = stat.r_star
    keep = range(max(0, r_star - 200), min(n, r_star + 200))  # draw the crossing exactly
    idx = thin(n, keep=keep)
    p_max = stat.values if p_max is None else np.asarray(p_max, dtype=float)
    pi0 = stat.pi0
    return StepUpData(
        rank=idx + 1, statistic_sorted=np.sort(stat.values)[idx], p_max_sorted=np.sort(p_max)[idx], statistic=stat.name,
        line_slope=result.alpha / (pi0 * n), pi0=pi0, alpha=float(result.alpha), r_star=r_star,
        threshold=stat.threshold, n=n, focus=int(min(n, max(2 * r_star, 50))),
    )


def plot_stepup(result, p_max=None, *, color: str = PALETTE[0], label: str = "the rule") -> go.Figure:
    """The rule's sorted statistic against its step-up line α r / (π̂0 n), r* marked."""
    data = _stepup_data(result, p_max)
    traces = [
        {"type": "scatter", "x": data.rank, "y": data.statistic_sorted, "mode": "lines", "name": f"sorted {data.statistic}",
         "line": {"color": color, "width": 2.5}, "hovertemplate": "r = %{x}<br>value = %{y:.4g}<extra></extra>"},
        {"type": "scatter", "x": [0, data.n], "y": [0, data.line_slope * data.n], "mode": "lines",
         "name": f"step-up line α r / (π̂0 n), α = {data.alpha:g}, π̂0 = {data.pi0:.3f}",
         "line": {"color": REFERENCE_COLOR, "dash": "dash", "width": 2}, "hoverinfo": "skip"},
    ]
    if not data.statistic.startswith("max-p"):
        traces.insert(1, {"type": "scatter", "x": data.rank, "y": data.p_max_sorted, "mode": "lines",
                          "name": "sorted raw max-p p*", "line": {"color": REFERENCE_COLOR, "width": 1.5, "dash": "dot"},
                          "visible": "legendonly", "hovertemplate": "r = %{x}<br>p* = %{y:.4g}<extra></extra>"})
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
                                 "text": "r* = 0: no value lies under the line; nothing is selected"}]
    y_top = max(data.line_slope * data.focus, float(np.interp(data.focus, data.rank, data.statistic_sorted))) * 1.1
    return figure(traces, layout(
        title=f"Step-up of {label} (drag or double-click to zoom out)", height=420,
        xaxis={"title": {"text": "rank r"}, "range": [0, data.focus]},
        yaxis={"title": {"text": "value"}, "range": [0, min(1.0, y_top) if y_top > 0 else 1.0]}, **marks,
    ))
