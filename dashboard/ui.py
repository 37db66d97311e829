"""Small Streamlit pieces shared by the frame and the pages (cards, badges, the data-set card)."""

from __future__ import annotations

import streamlit as st

from jecs_core import METHODS, Comparison, JECSResult

from . import state
from .theme import METHOD_COLORS, is_valid, short_label


def inject_css() -> None:
    """Colour each method card's edge with the method's colour (cards are keyed ``card-<method>``)."""
    rules = "\n".join(
        f".st-key-card-{m} {{ border-left: 6px solid {c} !important; border-radius: 0.5rem; }}"
        for m, c in METHOD_COLORS.items()
    )
    st.html(f"<style>{rules}\n.st-key-card-union, .st-key-card-intersection {{ background: #fafafa; }}</style>")


def validity_badge(method: str) -> None:
    if is_valid(method):
        st.badge("valid: controls GCR", icon=":material/verified:", color="green")
    else:
        st.badge("invalid baseline", icon=":material/warning:", color="red")


def sidebar_dataset() -> None:
    """The active data set, always visible in the sidebar."""
    data = state.active()
    table = data.table
    with st.sidebar.container(border=True):
        st.caption("Active data set")
        st.markdown(f"**{data.name}**")
        st.markdown(f"n = {table.n:,} test · m = {table.m:,} calibration · K = {table.K}")
        st.markdown("Member labels: **present**" if table.has_labels else "Member labels: absent")
        if table.flipped:
            st.caption("Scores negated on load (lower = member).")
        st.page_link("views/data_page.py", label="Change data set", icon=":material/swap_horiz:")


def fit_strip(result: JECSResult, n: int) -> None:
    """One line with the fitted JECS quantities, plus warnings when the fit is weak or absent."""
    if result.fallback_to_jmcs:
        st.warning(f"JECS fell back to JMCS: {result.fallback_reason}", icon=":material/warning:")
        return
    env = result.fit.envelope
    mode = "data-driven" if result.fit.lambda_mode == "auto" else "manual"
    st.markdown(
        f"**JECS fit** · λ = {result.lam:g} ({mode}) · k_n = {result.k_n} · m_R = {env.m_tail:,} tail points · "
        f"F_fit(λ) = {result.F_fit_lambda:.4f} · estimated π0 = {result.pi0_hat:.3f} · "
        f"r* = {result.r_star:,} of {n:,} · threshold on p~ = {result.threshold:.3g}"
    )
    if env.m_tail < 10:
        st.warning(f"Only {env.m_tail} max-p values lie above λ; the envelope is noisy.", icon=":material/warning:")


def method_cards(comparison: Comparison) -> None:
    """One card per method: selected count, validity badge, and GCP / power when labels exist."""
    summary = comparison.summary().set_index("method")
    for column, method in zip(st.columns(len(METHODS)), METHODS):
        row = summary.loc[method]
        with column.container(border=True, key=f"card-{method}"):
            st.metric(
                short_label(method),
                f"{int(row['n_selected']):,}",
                help="Items selected at this α." + ("" if is_valid(method) else " This rule does not control the GCR."),
            )
            validity_badge(method)
            if "gcp" in summary.columns:
                over = row["gcp"] > comparison.alpha
                gcp = f":red[**GCP {row['gcp']:.3f} > α**]" if over else f"GCP {row['gcp']:.3f}"
                st.markdown(f"{gcp} · power {row['power']:.3f}")
