"""Learn page: the super-uniformity tax, and how JECS pays less of it.

A short lesson in the order of the argument in "Provable Joint Decontamination for
Benchmarking Multiple Large Language Models" (Liu, Zeng, Wei): why the max of K
p-values is conservative, how large the loss is, how the envelope recovers it, and
what that buys in power.
"""

import streamlit as st

from dashboard import lesson_cache, state
from dashboard.figures.lesson import plot_cutoff_gap, plot_envelope_lesson, plot_null_densities, plot_power_vs_k

st.title("Learn: the super-uniformity tax")
st.caption(
    "A five-minute lesson on why the simple max-p rule (JMCS) selects too little, and what JECS does about it. "
    "Every figure is recomputed from a fresh simulation as you move the sliders. Based on *Provable Joint "
    "Decontamination for Benchmarking Multiple Large Language Models* (Liu, Zeng, Wei)."
)

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

st.header("1 · The max of K p-values is not uniform", divider="gray")
left, right = st.columns([3, 2], gap="large")
density = lesson_cache.density(n_models, eta, None if all_exposed else exposure)
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

st.header("2 · BH looks where the nulls are not", divider="gray")
alpha = st.slider("Target level α", value=0.1, **state.ALPHA_SLIDER, key="learn.alpha",
                  help="The global contamination rate you are willing to accept.")
left, right = st.columns([3, 2], gap="large")
left.plotly_chart(plot_cutoff_gap(lesson_cache.cutoff(n_models, alpha)), width="stretch", key="learn.fig.cutoff")
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

st.header("3 · The envelope: rescale max-p to its own null", divider="gray")
lam = st.slider("Tail threshold λ", 0.3, 0.95, 0.6, 0.05, key="learn.lam",
                help="Max-p values above λ form the right tail the envelope is built from.")
env = lesson_cache.envelope(n_models, eta, lam)
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

Here (a simulated audit, {n_models} model(s), labels known): anchor `F_fit(λ)` = {env.anchor:.3f},
estimated contaminated share π̂0 = {env.pi0_hat:.3f} vs. true {env.pi0_true:.3f}.
The envelope {'stays above' if env.dominates else 'dips below'} the true null CDF at this λ.
The dashboard picks λ on the grid 0.5–0.9 with the flattest left branch.
"""
)

st.header("4 · What the tax costs, and what JECS wins back", divider="gray")
left, right = st.columns([3, 2], gap="large")
power = lesson_cache.power(n_models, eta, alpha)
left.plotly_chart(plot_power_vs_k(power), width="stretch", key="learn.fig.power")
right.markdown(
    f"""
Small simulated audits (600 items, {power.reps} repetitions per K, for K = {', '.join(str(k) for k in power.n_models)}; the share of clean items is
held at 40% for every K so only the aggregation changes). Bars are **power**, the share of clean
items selected; dotted lines are the mean **GCP**, the share of contaminated items among those
selected, against the target α = {alpha:g}.

JMCS stays far below the target: it pays the tax in full. JECS spends more of the error budget
and selects more clean items, most visibly as K grows. With only {power.reps} repetitions the
GCP lines are noisy; the Evaluate page runs the full protocol with standard errors.
"""
)
