"""Learn page: the super-uniformity tax, how JECS pays less of it, the default rule, and what holds
when α is picked after looking.

A short lesson in the order of the argument in "Provable Joint Decontamination for Benchmarking
Multiple Large Language Models" (Liu, Zeng, Wei): why the max of K p-values is conservative, how
large the loss is, how the envelope recovers it, and what that buys in power; then the dashboard's
default rule, the post-hoc bound for an α chosen after looking, and why conformal p-values give
that bound a floor.  Each section is one module of ``dashboard.lessons``.
"""

import streamlit as st

from dashboard.lessons import controls, envelope, granularity, looking, power, tax

st.title("Learn: the super-uniformity tax")
st.caption(
    "A lesson on why the simple max-p rule (JMCS) selects too little, what the paper's JECS and the dashboard's "
    "default rule do about it, and what still holds when α is picked after looking. Every figure is recomputed "
    "from fresh simulations as you move the sliders. Based on *Provable Joint Decontamination for Benchmarking "
    "Multiple Large Language Models* (Liu, Zeng, Wei)."
)

models = controls.model_controls()
tax.max_of_k(models)
alpha = tax.bh_gap(models)
envelope.envelope(models)
power.power_vs_k(models, alpha)

audit = controls.audit_controls()
looking.looking(audit, alpha)
granularity.granularity(audit, alpha)
