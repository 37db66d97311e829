"""The Learn page's two control panels: the models of the first four sections, the audit of the last two."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

# The error levels offered for the post-hoc bound.
DELTAS = (0.01, 0.05, 0.1, 0.2)


@dataclass(frozen=True)
class ModelSetup:
    """What the first four sections simulate: K models, their dependence, how many saw an item."""

    n_models: int
    eta: float
    all_exposed: bool
    exposure: int  # c, the models that saw a contaminated item


@dataclass(frozen=True)
class AuditSetup:
    """The simulated audits of the post-hoc sections."""

    n_items: int
    n_models: int
    share: float
    mu: float
    delta: float


def model_controls() -> ModelSetup:
    """Sliders for K, the dependence eta and the exposure count c."""
    with st.container(border=True):
        c1, c2, c3 = st.columns(3, gap="large")
        n_models = c1.slider("Number of models K", 1, 16, 8, key="learn.k",
                             help="How many audited models each item is tested against.")
        eta = c2.slider("Dependence η", 0.0, 1.0, 0.0, 0.05, key="learn.eta",
                        help="Weight of perfect dependence between the models that saw an item "
                        "(η = 0: independent p-values; η = 1: identical p-values).")
        all_exposed = c3.toggle("Item seen by all K models", value=True, key="learn.all",
                                help="Otherwise choose how many models (c) had the item in their training data.")
        if all_exposed:
            exposure = n_models
        elif n_models == 1:
            # A slider from 1 to 1 is an error in Streamlit; with one model the only exposure is c = 1.
            exposure = 1
            c3.caption("With K = 1 the item is seen by that one model: c = 1.")
        else:
            if st.session_state.get("learn.c", 1) > n_models:  # K was lowered below the chosen c
                st.session_state["learn.c"] = n_models
            exposure = c3.slider("Exposure count c", 1, n_models, min(2, n_models), key="learn.c")
    return ModelSetup(n_models, eta, all_exposed, exposure)


def audit_controls() -> AuditSetup:
    """Sliders for the simulated audits: test items n, models K, contaminated share, signal, delta."""
    with st.container(border=True):
        st.markdown("**The simulated audits of sections 5 and 6** (the paper's synthetic setup, labels known)")
        c1, c2, c3 = st.columns(3, gap="large")
        n_items = c1.slider("Test items n", 100, 2000, 500, 100, key="learn.audit.n",
                            help="Test items per table; the calibration set is 30% of the pool (3n/7 rows).")
        n_models = c2.slider("Models K", 1, 16, 1, key="learn.audit.k",
                             help="Models audited in each table. With one model nothing hides the effect of looking; "
                             "with more, the max-p's conservatism absorbs much of it.")
        share = c3.slider("Contaminated share", 0.0, 0.9, 0.3, 0.05, key="learn.audit.share",
                          help="Share of test items in at least one model's training data.")
        c4, c5, _ = st.columns(3, gap="large")
        mu = c4.slider("Signal μ", 1.0, 6.0, 3.0, 0.5, key="learn.audit.mu",
                       help="How far a member's score sits above a non-member's (in standard deviations).")
        delta = c5.select_slider("Bound's error level δ", DELTAS, 0.1, key="learn.audit.delta",
                                 help="The post-hoc bound holds for every set at once with probability at least 1 − δ.")
    return AuditSetup(n_items, n_models, float(share), float(mu), float(delta))
