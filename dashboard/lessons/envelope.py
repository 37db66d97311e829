"""Section 3 of the Learn page: the paper's envelope rescales max-p to its own null."""

from __future__ import annotations

import streamlit as st

from .. import lesson_cache
from ..figures.lesson import plot_envelope_lesson
from .controls import ModelSetup


def envelope(setup: ModelSetup) -> None:
    """The true null CDF, the mixture ECDF and the fitted envelope on one simulated audit, with a lambda slider."""
    st.header("3 · The envelope: rescale max-p to its own null", divider="gray")
    lam = st.slider("Tail threshold λ", 0.3, 0.95, 0.6, 0.05, key="learn.lam",
                    help="Max-p values above λ form the right tail the envelope is built from.")
    env = lesson_cache.envelope(setup.n_models, setup.eta, lam)
    left, right = st.columns([3, 2], gap="large")
    left.plotly_chart(plot_envelope_lesson(env), width="stretch", key="learn.fig.envelope")
    right.markdown(
        f"""
JECS estimates a CDF `F_fit` that lies **above** the true null CDF of max-p and maps each max-p
to `F_fit(max-p)` before running BH. Nulls stay (asymptotically) super-uniform, but the scale now
matches the data, so clean items need not clear the tiny `α·r/n` bar on the raw scale.

How it is built, from the observed max-p values alone:
- above λ the tail is mostly contaminated items, so its empirical CDF is used as is;
- the density just above λ (a k-nearest-neighbour estimate) fixes the anchor `F_fit(λ)`;
- below λ the envelope is a straight line to the origin, which dominates any convex null CDF.

Here (a simulated audit, {setup.n_models} model(s), labels known): anchor `F_fit(λ)` = {env.anchor:.3f},
estimated contaminated share π̂0 = {env.pi0_hat:.3f} vs. true {env.pi0_true:.3f}.
The envelope {'stays above' if env.dominates else 'dips below'} the true null CDF at this λ.
The dashboard picks λ on the grid 0.5–0.9 with the flattest left branch.
"""
    )
