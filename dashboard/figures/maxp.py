"""Select page (a): histogram of max-p over the test items against the Uniform density."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from jecs_core import JECSFit

from ..theme import ALL_ITEMS_COLOR, CONTAMINATED_COLOR, LAMBDA_COLOR, REFERENCE_COLOR, figure, label, layout, vline
from ._common import density


@dataclass(frozen=True)
class MaxPSource:
    """What the histogram draws from: max-p of the test items and the λ to mark (``None``: no mark)."""

    p_max: np.ndarray
    lam: float | None


@dataclass(frozen=True)
class MaxPHistogram:
    edges: np.ndarray
    all_density: np.ndarray  # all test items; the bars' area is 1
    contaminated_density: np.ndarray | None  # contaminated items scaled to the whole sample (area = their share)
    n: int
    n_contaminated: int | None
    lam: float | None


def _maxp_histogram_data(fit: JECSFit | MaxPSource, contaminated=None, bins: int = 40) -> MaxPHistogram:
    p = fit.p_max
    edges = np.linspace(0.0, 1.0, bins + 1)
    con = None if contaminated is None else np.asarray(contaminated, dtype=bool)
    return MaxPHistogram(
        edges=edges,
        all_density=density(p, edges),
        contaminated_density=None if con is None else density(p[con], edges, total=len(p)),
        n=int(len(p)),
        n_contaminated=None if con is None else int(con.sum()),
        lam=fit.lam,
    )


def plot_maxp_histogram(fit: JECSFit | MaxPSource, contaminated=None, *, bins: int = 40) -> go.Figure:
    data = _maxp_histogram_data(fit, contaminated, bins)
    centers = (data.edges[:-1] + data.edges[1:]) / 2
    width = float(data.edges[1] - data.edges[0])
    traces = [
        {"type": "bar", "x": centers, "y": data.all_density, "width": width, "name": f"all test items (n = {data.n:,})",
         "marker": {"color": ALL_ITEMS_COLOR, "line": {"width": 0}}, "opacity": 0.45,
         "hovertemplate": "max-p %{x:.3f}<br>density %{y:.3f}<extra>all items</extra>"},
    ]
    if data.contaminated_density is not None:
        traces.append(
            {"type": "bar", "x": centers, "y": data.contaminated_density, "width": width,
             "name": f"contaminated items (n = {data.n_contaminated:,}), share of all",
             "marker": {"color": CONTAMINATED_COLOR, "line": {"width": 0}}, "opacity": 0.75,
             "hovertemplate": "max-p %{x:.3f}<br>density %{y:.3f}<extra>contaminated</extra>"}
        )
    traces.append(
        {"type": "scatter", "x": [0, 1], "y": [1, 1], "mode": "lines", "name": "Uniform(0, 1) density",
         "line": {"color": REFERENCE_COLOR, "dash": "dash", "width": 2}, "hoverinfo": "skip"}
    )
    marks = {}
    if data.lam is not None:
        marks = {"shapes": [vline(data.lam, LAMBDA_COLOR, dash="dashdot", width=2)],
                 "annotations": [label(data.lam, f"λ = {data.lam:g}", LAMBDA_COLOR)]}
    return figure(traces, layout(
        title="Max-p of the test items", barmode="overlay", bargap=0,
        xaxis={"title": {"text": "max-p  p* = max_k p^k"}, "range": [0, 1]},
        yaxis={"title": {"text": "density"}}, **marks,
    ))
