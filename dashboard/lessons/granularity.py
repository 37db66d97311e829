"""Section 6 of the Learn page: why the post-hoc bound has a floor (conformal granularity)."""

from __future__ import annotations

import streamlit as st

from jecs_core.posthoc import GRANULARITY_NOTE

from .. import lesson_cache
from ..figures.lesson_posthoc import plot_granularity
from ..lesson_granularity import GranularityLesson, unreachable_thresholds
from .controls import AuditSetup

# Calibration sizes the m slider offers.
M_CHOICES = (10, 20, 30, 50, 75, 100, 150, 200, 300, 500, 750, 1000, 1500, 2000)


def granularity_text(data: GranularityLesson) -> str:
    """The section's explanation at the chosen m, every number from ``data``.

    Parameters
    ----------
    data : GranularityLesson

    Returns
    -------
    str
        Markdown.
    """
    point = data.at_chosen
    m, n, delta = point.calibration_size, data.n_items, data.delta
    blocked = unreachable_thresholds(n, m, delta)
    if point.tables:
        found = (f"On {point.tables} fresh audits with m = {m}, the default rule at α = {data.alpha:g} keeps "
                 f"{point.selected:.0f} items on average, {point.truth:.1%} of them contaminated. The textbook template "
                 f"bounds that at {point.template:.0%} of the set, closed testing alone at {point.closed:.0%}, and the "
                 f"shipped bound at {point.shipped:.0%}.")
    else:
        found = f"With m = {m} the default rule at α = {data.alpha:g} keeps nothing on these audits, so there is no set to bound."
    return f"""
With m = {m} calibration rows a conformal p-value is never below `1/(m+1)` = {1 / (m + 1):.4f},
however clean the item. The textbook Simes template compares the k-th smallest p-value with
`δk/n` = {delta / n:.2g}·k, so its first **{blocked}** thresholds lie at or below `1/(m+1)` and no item
can reach them. A set of n = {n} perfectly clean items (every p-value at `1/(m+1)`) keeps a template
bound of **{point.clean_template}** contaminated items; the library's bound gives {point.clean_shipped} for the
same set, because closed testing first asks how many items look contaminated at all (Hommel's h).

{found}

Move m: the template's floor falls as `n/(δ(m+1))`, and every bound tightens until the floor is
small beside the set; none of them reaches the truth, because a bound that holds for every set at once is
paid for in width.
"""


def granularity(audit: AuditSetup, alpha: float) -> None:
    """The m slider, the bounds-against-m figure and the explanation."""
    st.header("6 · Why the bound has a floor: conformal granularity", divider="gray")
    m = st.select_slider("Calibration rows m", M_CHOICES, 200, key="learn.m",
                         help="Rows of the calibration set; conformal p-values live on the grid j/(m+1).")
    data = lesson_cache.granularity(m, audit.n_items, audit.n_models, audit.share, audit.mu, audit.delta, alpha)
    left, right = st.columns([3, 2], gap="large")
    left.plotly_chart(plot_granularity(data), width="stretch", key="learn.fig.granularity")
    right.markdown(granularity_text(data))
    with st.expander("The note the CLI and the docs give"):
        st.markdown(GRANULARITY_NOTE)
