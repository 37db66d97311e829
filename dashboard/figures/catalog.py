"""The Select page's figures as one catalogue, shared by the page (one open figure at a time) and the report.

Each entry builds its figure from a :class:`jecs_core.Comparison` and the rule being
inspected; a figure that does not apply (no envelope for this rule, no step-up) returns
``None`` with a reason, so a rule registered later shows what its result supports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import plotly.graph_objects as go

from jecs_core import REGISTRY, Comparison

from ..explain import ranking
from ..theme import METHOD_COLORS
from .envelope import plot_envelope
from .grid import plot_lambda_grid
from .maxp import MaxPSource, plot_maxp_histogram
from .overlap import plot_overlap
from .stepup import plot_stepup


@dataclass(frozen=True)
class FigureSpec:
    key: str
    title: str
    caption: str
    build: Callable[[Comparison, str], go.Figure | None]


def envelope_source(comparison: Comparison, method: str):
    """``(rule name, fit)`` of the envelope to draw: the inspected rule's, else the first rule run that has one."""
    for name in (method, *comparison.methods):
        fit = comparison.result(name).envelope_fit()
        if fit is not None:
            return name, fit
    return None, None


def _maxp(comparison: Comparison, method: str):
    # The λ marked is the inspected rule's own, its fit row "lambda" (rules without one get no mark).
    lam = next((row.value for row in comparison.result(method).fit_summary() if row.key == "lambda"), None)
    return plot_maxp_histogram(MaxPSource(comparison.p_max, lam), comparison.contaminated)


def _envelope(comparison: Comparison, method: str):
    name, fit = envelope_source(comparison, method)
    return None if fit is None else plot_envelope(fit, comparison.contaminated, color=METHOD_COLORS[name])


def _stepup(comparison: Comparison, method: str):
    result = comparison.result(method)
    if ranking(result) is None:
        return None
    return plot_stepup(result, comparison.p_max, color=METHOD_COLORS[method], label=REGISTRY[method].label)


def _grid(comparison: Comparison, method: str):
    name, fit = envelope_source(comparison, method)
    return None if fit is None else plot_lambda_grid(fit, color=METHOD_COLORS[name])


SELECT_FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec("maxp", "Max-p histogram",
               "Clean items pile up near 0; contaminated items spread towards 1. The tail above λ anchors the envelope.",
               _maxp),
    FigureSpec("envelope", "Envelope",
               "F_fit is linear up to the anchor (λ, F_fit(λ)) and follows the empirical tail above it; "
               "p̃ = F_fit(p*) is what the paper's JECS ranks.", _envelope),
    FigureSpec("stepup", "Step-up",
               "The rule keeps the r* smallest values: r* is the last rank where the sorted value lies under the line.",
               _stepup),
    FigureSpec("overlap", "Overlap", "Each bar counts the items selected by exactly the rules marked below it.",
               lambda comparison, method: plot_overlap(comparison)),
    FigureSpec("grid", "λ grid",
               "The data-driven choice takes the λ with the smallest slope of the linear branch (ties: smaller λ).",
               _grid),
)
FIGURE_KEYS = tuple(spec.key for spec in SELECT_FIGURES)


def get_figure_spec(key: str) -> FigureSpec:
    for spec in SELECT_FIGURES:
        if spec.key == key:
            return spec
    raise ValueError(f"figure must be one of {list(FIGURE_KEYS)}, got {key!r}")


def build_all(comparison: Comparison, method: str) -> dict[str, go.Figure]:
    """Every figure that applies to ``method``, keyed like :data:`SELECT_FIGURES` (the report uses it)."""
    out = {}
    for spec in SELECT_FIGURES:
        fig = spec.build(comparison, method)
        if fig is not None:
            out[spec.key] = fig
    return out
