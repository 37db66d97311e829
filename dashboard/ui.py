"""Small Streamlit pieces shared by the frame and the pages (cards, badges, the data-set card).

Rules are read from :data:`jecs_core.REGISTRY` (labels, guarantees, summaries) and colours
from :mod:`dashboard.theme`; user-supplied strings (file names, ids, model names) are
written with ``st.text`` or as table cells, never as Markdown.
"""

from __future__ import annotations

import html

import streamlit as st

from jecs_core import DEFAULT_METHOD, REGISTRY, Comparison, Guarantee

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


CARD_CSS = """
.jecs-cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr)); gap: 0.75rem; }
.jecs-card { border: 1px solid rgba(49, 51, 63, 0.2); border-left: 6px solid; border-radius: 0.5rem;
             padding: 0.7rem 0.9rem; font-size: 0.9rem; }
.jecs-card[data-invalid] { background: #fafafa; }
.jecs-name { font-size: 0.9rem; color: rgb(49, 51, 63); }
.jecs-default { font-size: 0.72rem; border: 1px solid currentColor; border-radius: 0.3rem; padding: 0 0.3rem; }
.jecs-count { font-size: 2.1rem; line-height: 1.3; }
.jecs-badge { display: inline-block; border-radius: 0.4rem; padding: 0 0.45rem; font-size: 0.8rem; margin: 0.2rem 0; }
.jecs-gcp { margin-top: 0.3rem; } .jecs-over { color: #b91c1c; font-weight: 600; }
.jecs-posthoc { margin-top: 0.3rem; font-size: 0.78rem; color: rgb(49, 51, 63); }
.jecs-note { margin-top: 0.3rem; font-size: 0.78rem; color: rgba(49, 51, 63, 0.65); }
"""


def inject_css() -> None:
    """The method cards' stylesheet (each card's edge takes the rule's colour from the registry order)."""
    st.html(f"<style>{CARD_CSS}</style>")


def guarantee_badge(method: str, *, over_alpha: bool = False) -> None:
    """The rule's guarantee kind; never the green badge when labels show GCP above alpha."""
    rule = REGISTRY[method]
    text, icon, color = GUARANTEE_BADGES[rule.guarantee]
    if over_alpha and rule.valid:
        st.badge("GCP above α here", icon=":material/error:", color="red")
        return
    st.badge(text, icon=icon, color=color)



def sidebar_dataset() -> None:
    """The active data set, always visible in the sidebar (its name drawn as plain text)."""
    data = state.active()
    table = data.table
    with st.container(border=True):
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


_BADGE_COLORS = {"green": ("#dcfce7", "#166534"), "orange": ("#ffedd5", "#9a3412"), "red": ("#fee2e2", "#991b1b")}


def _badge_html(text: str, color: str) -> str:
    background, ink = _BADGE_COLORS[color]
    return f"<span class='jecs-badge' style='background:{background};color:{ink}'>{html.escape(text)}</span>"


def _card_html(comparison: Comparison, method: str, row, posthoc: str | None = None) -> str:
    rule = REGISTRY[method]
    over = bool(row.get("over_alpha", False))
    text, _, color = GUARANTEE_BADGES[rule.guarantee]
    badge = _badge_html("GCP above α here", "red") if (over and rule.valid) else _badge_html(text, color)
    tip = f"Items selected at α = {comparison.alpha:g}. {rule.summary} Guarantee: {rule.guarantee.description}."
    default = " <span class='jecs-default'>default</span>" if method == DEFAULT_METHOD else ""
    parts = [f"<div class='jecs-name'>{html.escape(short_label(method))}{default}</div>",
             f"<div class='jecs-count'>{int(row['n_selected']):,}</div>", badge]
    if "gcp" in row:
        gcp = f"GCP {row['gcp']:.3f}" + (" &gt; α" if over else "")
        parts.append(f"<div class='jecs-gcp{' jecs-over' if over else ''}'>{gcp} · power {row['power']:.3f}</div>")
    if posthoc:
        parts.append(f"<div class='jecs-posthoc'>{html.escape(posthoc)}</div>")
    note = explain.gcp_note(comparison, method, gcp=float(row["gcp"]) if "gcp" in row else None)
    if note:
        parts.append(f"<div class='jecs-note'>{html.escape(note)}</div>")
    invalid = " data-invalid='1'" if rule.guarantee is Guarantee.INVALID else ""
    return (f"<div class='jecs-card' data-method='{html.escape(method)}'{invalid} title='{html.escape(tip)}' "
            f"style='border-left-color:{METHOD_COLORS[method]}'>{''.join(parts)}</div>")


def cards_html(comparison: Comparison, summary=None, *, style: bool = True, posthoc=None) -> str:
    """Every rule's card as one HTML block (one element to send on an alpha step, not five per rule).

    Only registry text and numbers go in; each is escaped.  ``summary`` is ``comparison.summary()``
    when the caller has it.  The default rule's card says so.  ``posthoc`` maps a rule to its
    post-hoc sentence (:func:`dashboard.posthoc_view.lines_for`), shown under the guarantee badge.
    """
    summary = (comparison.summary() if summary is None else summary).set_index("method")
    lines = posthoc or {}
    cards = "".join(_card_html(comparison, m, summary.loc[m], lines.get(m)) for m in comparison.methods)
    # ``style=False`` when the page injected CARD_CSS once: re-sending a stylesheet on every
    # alpha step makes the browser recompute the whole page's styles.
    sheet = f"<style>{CARD_CSS}</style>" if style else ""
    return f"{sheet}<div class='jecs-cards'>{cards}</div>"


def guarantee_notes(methods=None) -> str:
    """What each rule with an asymptotic guarantee needs, in its own words (from the registry)."""
    names = REGISTRY if methods is None else methods
    return " ".join(f"{REGISTRY[m].label}: {REGISTRY[m].guarantee.description}. {REGISTRY[m].summary}"
                    for m in names if REGISTRY[m].guarantee is Guarantee.ASYMPTOTIC)


def method_cards(comparison: Comparison, summary=None, *, style: bool = True, notes: bool = True,
                 posthoc=None) -> None:
    """One card per rule run: selected count, guarantee badge, post-hoc line, GCP / power and a sentence when GCP > α.

    ``notes=False`` leaves out the guarantee notes (a page that draws :func:`guarantee_caption` once);
    ``posthoc`` as in :func:`cards_html`.
    """
    st.html(cards_html(comparison, summary, style=style, posthoc=posthoc))
    if notes:
        guarantee_caption(comparison.methods)


def guarantee_caption(methods=None) -> None:
    """What each asymptotic rule's guarantee needs (registry text; does not change with alpha)."""
    text = guarantee_notes(methods)
    if text:
        st.caption(text)


def _plain_markdown(text: str) -> str:
    """Escape the characters Markdown would act on (``p*`` must not start italics, ``&amp;`` must not become ``&``)."""
    return "".join("\\" + ch if ch in "\\`*_[]<>#$:~|&" else ch for ch in text)


def warnings(messages: list[tuple[str | None, str]]) -> None:
    """All warnings in one element (an alpha step sends one, not one per message)."""
    if messages:
        st.warning("\n\n".join(_plain_markdown(m) for _, m in messages), icon=":material/warning:")
