"""Sections 1 and 2 of the Learn page: the max of K p-values is not uniform; BH looks where the nulls are not."""

from __future__ import annotations

import streamlit as st

from .. import lesson_cache, state
from ..figures.lesson import plot_cutoff_gap, plot_null_densities
from .controls import ModelSetup


def max_of_k(setup: ModelSetup) -> None:
    """Section 1: one model's uniform null density against the max-p null density, with a simulation."""
    st.header("1 · The max of K p-values is not uniform", divider="gray")
    left, right = st.columns([3, 2], gap="large")
    density = lesson_cache.density(setup.n_models, setup.eta, None if setup.all_exposed else setup.exposure)
    left.plotly_chart(plot_null_densities(density), width="stretch", key="learn.fig.density")
    right.markdown(
        f"""
A conformal p-value for one model is **uniform** when the item really is in that model's training
data: every value between 0 and 1 is equally likely (dashed line).

To call an item clean for *all* models, JMCS keeps the **largest** of its K p-values. For a
contaminated item seen by c models, the largest of c p-values is pushed towards 1: its null
CDF is `F0(x) = η·x + (1−η)·x^c`. With the settings above, **{density.mass_above_half:.1%}** of
contaminated items have max-p above 0.5, against 50% for one model.

The models that did *not* see the item give small p-values, so they rarely decide the
maximum: only the c models that saw it matter near 1. That is why the histogram follows
the formula on the right and departs from it only near 0.
"""
    )


def bh_gap(setup: ModelSetup) -> float:
    """Section 2: BH's cut-off against the natural max-p null scale; returns the page's alpha."""
    st.header("2 · BH looks where the nulls are not", divider="gray")
    alpha = st.slider("Target level α", value=0.1, **state.ALPHA_SLIDER, key="learn.alpha",
                      help="The global contamination rate you are willing to accept.")
    left, right = st.columns([3, 2], gap="large")
    left.plotly_chart(plot_cutoff_gap(lesson_cache.cutoff(setup.n_models, alpha)), width="stretch", key="learn.fig.cutoff")
    right.markdown(
        """
Benjamini–Hochberg accepts the r smallest p-values when the r-th one is below `α·r/n`, a
threshold built for **uniform** nulls.

Under the stylised null where all K p-values are independent and uniform, the r-th smallest
max-p sits near `(r/n)^(1/K)`, far above `α·r/n`. The shaded gap is the *super-uniformity tax*:
nulls almost never fall below the BH line, which keeps JMCS valid, but clean items must
clear the same very low bar, so few are selected.

Make α smaller or K larger and watch the gap widen; that is where JMCS loses most.
"""
    )
    return alpha
