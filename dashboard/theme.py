"""Colours, labels and the shared plotly layout: one place, so every figure and card agrees."""

from __future__ import annotations

import plotly.graph_objects as go

from jecs_core import METHODS, REGISTRY, Guarantee

# One colour per registered rule, by registry order (no rule is special-cased by name):
# a rule registered later gets the next colour automatically.
# No red, orange or amber: those mean "warning", "contaminated" and "λ" on this dashboard.
PALETTE: tuple[str, ...] = ("#0f766e", "#4f46e5", "#0284c7", "#7c3aed", "#64748b", "#be185d", "#4d7c0f", "#78350f")
METHOD_COLORS: dict[str, str] = {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(METHODS)}

# Parts of a score table (Data page) and of the max-p picture (Select page).
SPLIT_COLORS: dict[str, str] = {
    "calibration": "#64748b",
    "test": "#2563eb",
    "member": "#ea580c",
    "non_member": "#16a34a",
}
REFERENCE_COLOR = "#94a3b8"  # Uniform density, diagonal, guide lines
LAMBDA_COLOR = "#b45309"  # the tail threshold lambda
WARNING_COLOR = "#dc2626"  # text that flags a problem
CONTAMINATED_COLOR = SPLIT_COLORS["member"]
ALL_ITEMS_COLOR = SPLIT_COLORS["test"]

# What each guarantee kind is called on a badge (the rule's own sentence is in the help text).
GUARANTEE_BADGES: dict[Guarantee, tuple[str, str, str]] = {
    Guarantee.FINITE_SAMPLE: ("controls the GCR", ":material/verified:", "green"),
    Guarantee.ASYMPTOTIC: ("asymptotic only", ":material/hourglass:", "orange"),
    Guarantee.INVALID: ("invalid baseline", ":material/warning:", "red"),
}


def method_color(method: str) -> str:
    return METHOD_COLORS[method]


def is_valid(method: str) -> bool:
    """True only for a rule with a finite-sample guarantee (``Rule.valid``)."""
    return REGISTRY[method].valid


def guarantee(method: str) -> Guarantee:
    return REGISTRY[method].guarantee


def short_label(method: str) -> str:
    """``"Union (invalid baseline)"`` -> ``"Union"`` (the badge says the rest); ``"JECS (paper)"`` stays whole,
    as on its button: the bracket names the rule, not its guarantee."""
    label = REGISTRY[method].label
    return label.split(" (")[0] if label.endswith("baseline)") else label


def method_label(method: str) -> str:
    return REGISTRY[method].label


def dash(method: str) -> str:
    """Line style by guarantee: solid when valid, dashed when asymptotic, dotted when invalid."""
    return {Guarantee.FINITE_SAMPLE: "solid", Guarantee.ASYMPTOTIC: "dash"}.get(guarantee(method), "dot")


def layout(*, title: str | None = None, height: int = 380, **extra) -> dict:
    """The common layout as a plain dict (compact margins, legend on top), updated by ``extra``.

    No plotly template: Streamlit's theme styles charts in the browser, and building a
    template costs about 10 ms per figure.
    """
    spec = {
        "template": None,
        "height": height,
        "margin": {"l": 60, "r": 20, "t": 60 if title else 30, "b": 50},
        "legend": {"orientation": "h", "yanchor": "bottom", "y": 1.02, "xanchor": "right", "x": 1.0},
        "font": {"size": 12},
        "hoverlabel": {"namelength": -1},
    }
    if title:
        spec["title"] = {"text": title, "x": 0.0, "xanchor": "left", "font": {"size": 15}}
    spec.update(extra)
    return spec


def figure(data: list[dict], spec: dict) -> go.Figure:
    """Build a figure in one pass from trace dicts and a layout dict.

    One constructor call validates everything once; growing a figure with
    ``add_trace`` / ``update_layout`` / ``add_vline`` is about ten times slower, and the
    Select page redraws its figures on every alpha change.
    """
    return go.Figure({"data": data, "layout": spec})


def vline(x: float, color: str, *, dash: str = "dash", width: float = 1.5) -> dict:
    """A vertical line across the plot (a layout shape)."""
    return {"type": "line", "x0": x, "x1": x, "y0": 0, "y1": 1, "yref": "paper", "line": {"color": color, "dash": dash, "width": width}}


def label(x: float, text: str, color: str) -> dict:
    """A text label at the top of the plot, just left of ``x`` (a layout annotation)."""
    return {"x": x, "y": 1.0, "yref": "paper", "text": text, "showarrow": False, "xanchor": "right", "yanchor": "top",
            "font": {"color": color}}


def base_layout(fig: go.Figure, *, title: str | None = None, height: int = 380) -> go.Figure:
    """Apply the common layout to an existing figure (prefer :func:`figure` on hot paths)."""
    fig.update_layout(layout(title=title, height=height))
    return fig


__all__ = [
    "METHODS", "METHOD_COLORS", "PALETTE", "GUARANTEE_BADGES", "method_color", "guarantee", "dash", "SPLIT_COLORS", "REFERENCE_COLOR", "LAMBDA_COLOR", "CONTAMINATED_COLOR",
    "ALL_ITEMS_COLOR", "WARNING_COLOR", "is_valid", "short_label", "method_label", "layout", "figure", "vline", "label", "base_layout",
]
