"""Small Streamlit pieces shared by the frame and the pages (cards, badges, the data-set card).

Rules are read from :data:`jecs_core.REGISTRY` (labels, guarantees, summaries) and colours
from :mod:`dashboard.theme`; user-supplied strings (file names, ids, model names) are
written with ``st.text`` or as table cells, never as Markdown.
"""

from __future__ import annotations

import streamlit as st

from jecs_core import REGISTRY, Comparison

from . import explain, state
from .theme import GUARANTEE_BADGES, METHOD_COLORS, short_label

GLOSSARY = """
- **GCR (global contamination rate)**: the expected share of selected items that are in the training data of at
  least one of the K models. A rule *controls the GCR at α* when that expectation stays ≤ α.
- **GCP (global contamination proportion)**: the share actually realized on this table, computable only when
  member labels are present. One table's GCP can exceed α even for a valid rule (the GCR is an average over
  tables), but a GCP far above α is a warning.
- **Power**: the share of clean items (in no model's training data) that the rule keeps.
- **p-value p^k and max-p p\\***: each model's conformal p-value compares an item's score with the calibration
  scores (known members); an item is kept only if it looks clean for every model, so rules look at
  p\\* = max_k p^k. The smallest p-value possible is 1/(m+1) with m calibration items.
- **π̂0**: the estimated share of contaminated items among the test items (Storey's estimate on the tail above λ);
  the step-up divides α by it.
- **p̃ (transformed value)**: the paper's JECS maps p\\* through the fitted envelope F_fit, p̃ = F_fit(p\\*), and runs
  the Storey-BH step-up on p̃; r\\* is the number of items kept.
- **λ, k_n**: the tail threshold the envelope is anchored at, and the neighbours used to estimate the tail density there.
"""


def inject_css() -> None:
    """Colour each method card's edge with the method's colour (cards are keyed ``card-<method>``)."""
    rules = [f".st-key-card-{m} {{ border-left: 6px solid {c} !important; border-radius: 0.5rem; }}"
             for m, c in METHOD_COLORS.items()]
    rules += [f".st-key-card-{m} {{ background: #fafafa; }}" for m, rule in REGISTRY.items() if not rule.valid]
    st.html("<style>" + "\n".join(rules) + "</style>")


def guarantee_badge(method: str, *, over_alpha: bool = False) -> None:
    """The rule's guarantee kind; never the green badge when labels show GCP above alpha."""
    rule = REGISTRY[method]
    text, icon, color = GUARANTEE_BADGES[rule.guarantee]
    if over_alpha and rule.valid:
        st.badge("GCP above α here", icon=":material/error:", color="red")
        return
    st.badge(text, icon=icon, color=color)


# Kept for callers of the first release.
validity_badge = guarantee_badge


def sidebar_dataset() -> None:
    """The active data set, always visible in the sidebar (its name drawn as plain text)."""
    data = state.active()
    table = data.table
    with st.sidebar.container(border=True):
        st.caption("Active data set")
        st.text(data.name)
        st.caption(f"n = {table.n:,} test · m = {table.m:,} calibration · K = {table.K}")
        st.caption("Member labels: present" if table.has_labels else "Member labels: absent")
        if table.flipped:
            st.caption("Scores negated on load (lower = member).")
        st.page_link("views/data_page.py", label="Change data set", icon=":material/swap_horiz:")


def glossary() -> None:
    with st.expander("What GCR, GCP, power, π̂0 and p̃ mean", icon=":material/help:"):
        st.markdown(GLOSSARY)


def _card(comparison: Comparison, method: str, row) -> None:
    rule = REGISTRY[method]
    over = bool(row.get("over_alpha", False))
    st.metric(short_label(method), f"{int(row['n_selected']):,}",
              help=f"Items selected at α = {comparison.alpha:g}. {rule.summary} Guarantee: {rule.guarantee.description}.")
    guarantee_badge(method, over_alpha=over)
    if "gcp" in row:
        gcp = f":red[**GCP {row['gcp']:.3f} > α**]" if over else f"GCP {row['gcp']:.3f}"
        st.markdown(f"{gcp} · power {row['power']:.3f}")
    note = explain.gcp_note(comparison, method)
    if note:
        st.caption(note)


def method_cards(comparison: Comparison, *, key_prefix: str = "card") -> None:
    """One card per rule run: selected count, guarantee badge, GCP / power and a sentence when GCP > α."""
    summary = comparison.summary().set_index("method")
    methods = comparison.methods
    for column, method in zip(st.columns(len(methods)), methods):
        with column.container(border=True, key=f"{key_prefix}-{method}"):
            _card(comparison, method, summary.loc[method])


def warnings(messages: list[tuple[str | None, str]]) -> None:
    for _, message in messages:
        st.warning(message, icon=":material/warning:")
