"""Select page (b): the fitted envelope F_fit against the empirical CDF of max-p."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from jecs_core import JECSFit

from ..theme import (
    ALL_ITEMS_COLOR,
    CONTAMINATED_COLOR,
    LAMBDA_COLOR,
    PALETTE,
    REFERENCE_COLOR,
    WARNING_COLOR,
    figure,
    layout,
    vline,
)
from ._common import thin


@dataclass(frozen=True)
class Curve:
    x: np.ndarray
    y: np.ndarray


@dataclass(frozen=True)
class EnvelopeData:
    ecdf: Curve  # empirical CDF of max-p over all test items
    null_ecdf: Curve | None  # over the contaminated items alone (labelled data)
    linear_branch: Curve | None  # (0, 0) -> (lambda, F_fit(lambda))
    tail_branch: Curve | None  # F_fit on (lambda, 1], a step function
    anchor: tuple[float, float] | None  # (lambda, F_fit(lambda))
    fallback_reason: str | None


def _ecdf(values: np.ndarray) -> Curve:
    ordered = np.sort(values)
    n = len(ordered)
    idx = thin(n)
    # Start at (0, 0) so the step outline begins at the origin.
    return Curve(np.concatenate([[0.0], ordered[idx]]), np.concatenate([[0.0], (idx + 1) / n]))


def _envelope_data(fit: JECSFit, contaminated=None) -> EnvelopeData:
    con = None if contaminated is None else np.asarray(contaminated, dtype=bool)
    null_ecdf = _ecdf(fit.p_max[con]) if con is not None and con.any() else None
    if fit.envelope is None:
        return EnvelopeData(_ecdf(fit.p_max), null_ecdf, None, None, None, fit.fallback_reason)
    env = fit.envelope
    tail = env.tail[thin(env.m_tail)]
    x_tail = np.unique(np.concatenate([[env.lam], tail, [1.0]]))
    return EnvelopeData(
        ecdf=_ecdf(fit.p_max),
        null_ecdf=null_ecdf,
        linear_branch=Curve(np.array([0.0, env.lam]), fit.envelope_at(np.array([0.0, env.lam]))),
        tail_branch=Curve(x_tail, fit.envelope_at(x_tail)),
        anchor=(env.lam, env.F_lambda),
        fallback_reason=None,
    )


def _line(curve: Curve, name: str, color: str, width: float, *, step: bool = False, dash: str = "solid", hover: str = "") -> dict:
    return {"type": "scatter", "x": curve.x, "y": curve.y, "mode": "lines", "name": name,
            "line": {"color": color, "width": width, "dash": dash, "shape": "hv" if step else "linear"},
            "hovertemplate": hover or "x %{x:.3f}<br>%{y:.3f}<extra></extra>"}


def plot_envelope(fit: JECSFit, contaminated=None, *, color: str = PALETTE[0]) -> go.Figure:
    """The fitted envelope (drawn in ``color``, the rule's colour) against the empirical CDF of max-p."""
    data = _envelope_data(fit, contaminated)
    jecs = color
    traces = [
        {"type": "scatter", "x": [0, 1], "y": [0, 1], "mode": "lines", "name": "Uniform CDF (y = x)",
         "line": {"color": REFERENCE_COLOR, "dash": "dash", "width": 1.5}, "hoverinfo": "skip"},
        _line(data.ecdf, "empirical CDF of max-p (all test items)", ALL_ITEMS_COLOR, 1.5, step=True,
              hover="p* %{x:.3f}<br>F_n %{y:.3f}<extra></extra>"),
    ]
    if data.null_ecdf is not None:
        traces.append(_line(data.null_ecdf, "empirical null CDF (contaminated items)", CONTAMINATED_COLOR, 1.5, step=True,
                            hover="p* %{x:.3f}<br>F_0 %{y:.3f}<extra></extra>"))
    marks = {}
    if data.anchor is not None:
        lam, f_lam = data.anchor
        traces += [
            _line(data.linear_branch, f"F_fit linear branch (slope {f_lam / lam:.3f})", jecs, 3, dash="dash",
                  hover="x %{x:.3f}<br>F_fit %{y:.3f}<extra>linear branch</extra>"),
            _line(data.tail_branch, "F_fit tail branch", jecs, 3, step=True,
                  hover="x %{x:.3f}<br>F_fit %{y:.3f}<extra>tail branch</extra>"),
            {"type": "scatter", "x": [lam], "y": [f_lam], "mode": "markers",
             "name": f"anchor (λ, F_fit(λ)) = ({lam:g}, {f_lam:.3f})",
             "marker": {"color": LAMBDA_COLOR, "size": 12, "symbol": "diamond", "line": {"color": "white", "width": 1}}},
        ]
        marks["shapes"] = [vline(lam, LAMBDA_COLOR, dash="dashdot", width=1)]
    else:
        marks["annotations"] = [{"x": 0.5, "y": 0.95, "text": f"No envelope: {data.fallback_reason}", "showarrow": False,
                                 "font": {"color": WARNING_COLOR}}]
    return figure(traces, layout(
        title="Fitted envelope F_fit vs the empirical CDF of max-p", height=420,
        xaxis={"title": {"text": "x (max-p scale)"}, "range": [0, 1]},
        yaxis={"title": {"text": "cumulative probability"}, "range": [0, 1.02]}, **marks,
        # Six long entries in the top legend wrap onto the title; the CDFs leave the lower right empty.
        legend={"orientation": "v", "x": 0.99, "xanchor": "right", "y": 0.02, "yanchor": "bottom",
                "bgcolor": "rgba(255,255,255,0.75)", "font": {"size": 11}},
    ))
