"""Section 4 of the Learn page: what the tax costs, what JECS wins back, and where the default rule sits."""

from __future__ import annotations

import streamlit as st

from jecs_core.rules import DEFAULT_METHOD

from .. import lesson_cache
from ..figures.lesson import plot_power_vs_k
from ..lesson_data import PowerLesson
from .controls import ModelSetup


def _levels(pairs: list[tuple[int, float]]) -> str:
    """``[(1, 0.15), (2, 0.11)]`` -> ``"K = 1 (0.150), K = 2 (0.111)"``."""
    return ", ".join(f"K = {k} ({g:.3f})" for k, g in pairs)


def jecs_note(power: PowerLesson) -> str:
    """What the chart shows about the paper's JECS against alpha, computed from its GCP line.

    Parameters
    ----------
    power : PowerLesson

    Returns
    -------
    str
        Markdown: why its mean GCP is above alpha where it is (an asymptotic guarantee), or that it
        stays below here.
    """
    above = power.above_alpha("jecs")
    if not above:
        return (f"Here the paper's JECS keeps its mean GCP at or below α = {power.alpha:g} at every K simulated. "
                "Its guarantee is still asymptotic: on other audits (one model, few items, scores correlated "
                "across models) it can exceed α.")
    at_one = above[0][0] == 1
    return (
        f"**The paper's JECS is above α = {power.alpha:g}** at {_levels(above)}. That is what an asymptotic "
        "guarantee allows: the paper proves GCR ≤ α only as the number of items grows, under its convexity and "
        "distinguishability assumptions, and 600 items are not that limit. "
        + ("At K = 1 the null max-p is uniform, so its CDF is the straight line itself and the envelope has no "
           "slack: whenever the estimated anchor lands below that line, more contaminated items pass. "
           if at_one else "")
        + "The default rule and JMCS hold at every n, which is why they carry the finite-sample label."
    )


def default_note(power: PowerLesson) -> str:
    """Where the default rule's mean GCP is above alpha in this small simulation, if anywhere.

    Parameters
    ----------
    power : PowerLesson

    Returns
    -------
    str
        Markdown (empty when every valid rule stays at or below alpha).
    """
    notes = []
    for method, label in (("storey-maxp", "Storey-BH on max-p"), ("jmcs", "JMCS")):
        above = power.above_alpha(method)
        if above:
            notes.append(f"{label}'s mean GCP is above α at {_levels(above)}")
    if not notes:
        return ""
    return ("; ".join(notes) + f": with {power.reps} repetitions per K these means are noisy (the guarantee is on "
            "the expectation); the Evaluate page runs the full protocol with standard errors.")


def power_vs_k(setup: ModelSetup, alpha: float) -> None:
    """Power and mean GCP of JMCS, the default rule and the paper's JECS against K, with the notes."""
    st.header("4 · What the tax costs, what JECS wins back, and the default rule", divider="gray")
    left, right = st.columns([3, 2], gap="large")
    power = lesson_cache.power(setup.n_models, setup.eta, alpha)
    left.plotly_chart(plot_power_vs_k(power), width="stretch", key="learn.fig.power")
    k = int(power.n_models[-1])
    mean_power = {method: float(values[-1]) for method, values in power.power.items()}
    right.markdown(
        f"""
Small simulated audits (600 items, {power.reps} repetitions per K, for K = {', '.join(str(k) for k in power.n_models)}; the share of clean items is
held at 40% for every K so only the aggregation changes). Bars are **power**, the share of clean
items selected; dotted lines are the mean **GCP**, the share of contaminated items among those
selected, against the target α = {alpha:g}.

JMCS stays far below the target: it pays the tax in full. JECS spends more of the error budget
and selects more clean items, most visibly as K grows.

**The dashboard's default rule is neither of the two.** It is *Storey-BH on max-p* (`{DEFAULT_METHOD}`):
BH on the same max-p as JMCS, but run at `α / π̂0`, where π̂0 estimates the share of contaminated
items from how many max-p values lie above 0.5, with a corrected cap that keeps its guarantee
for every n (items independent; docs/GUARANTEES.md has the proof sketch). It needs no envelope and no
assumption on the shape of the null CDF, so it controls the GCR in finite samples like JMCS, and it
wins back part of the tax when many items are clean. It sits between the two: at K = {k} its power
is {mean_power['storey-maxp']:.3f}, against {mean_power['jmcs']:.3f} for JMCS and
{mean_power['jecs']:.3f} for the paper's JECS.
"""
    )
    right.markdown(jecs_note(power))
    note = default_note(power)
    if note:
        right.caption(note)
