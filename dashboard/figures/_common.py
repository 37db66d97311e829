"""Helpers shared by the figure builders (no Streamlit here)."""

from __future__ import annotations

import html

import numpy as np

# Lines with more points than this are thinned: the browser draws SVG, and the eye cannot tell.
MAX_LINE_POINTS = 2000


def plotly_text(value: object) -> str:
    """A user's string (a model or metric name) for a plotly label or hover template, shown as typed.

    Plotly reads a little HTML in labels (``<b>``, ``<a href>``) and fills ``%{...}`` in hover
    templates: the first is escaped, and ``%`` becomes the entity ``&#37;``, which no template
    matches and the browser draws as ``%``.
    """
    return html.escape(str(value), quote=False).replace("%", "&#37;")


def thin(n: int, max_points: int = MAX_LINE_POINTS, keep=()) -> np.ndarray:
    """Sorted indices into ``range(n)``: about ``max_points`` evenly spaced ones, plus ``keep``, first and last."""
    if n <= max_points:
        return np.arange(n)
    idx = np.linspace(0, n - 1, max_points).round().astype(int)
    extra = np.asarray([i for i in keep if 0 <= i < n], dtype=int)
    return np.unique(np.concatenate([idx, extra, [0, n - 1]]))


def density(values: np.ndarray, edges: np.ndarray, total: int | None = None) -> np.ndarray:
    """Histogram heights so that the bars' area is ``len(values) / total`` (1 when ``total`` is None)."""
    counts, _ = np.histogram(values, bins=edges)
    total = len(values) if total is None else total
    return counts / (max(total, 1) * np.diff(edges))


def step_xy(edges: np.ndarray, heights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Points of a step outline (plotly ``line_shape="hv"``) of a histogram."""
    return edges, np.append(heights, heights[-1] if len(heights) else 0.0)
