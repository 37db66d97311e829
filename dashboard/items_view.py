"""The Select page's items table (paged on the server) and the per-item explanation."""

from __future__ import annotations

import numpy as np
import streamlit as st

from jecs_core import REGISTRY, Comparison, ScoreTable
from jecs_core.posthoc import post_hoc_line

from . import explain, hand_edit, posthoc_view, state, tables
from .select_view import PAGE, QUERY, WHICH

_WHICH_LABELS = {"selected": "Kept", "dropped": "Dropped", "all": "All items"}
_COUNTED = {"selected": "kept items", "dropped": "dropped items", "all": "items"}


def _placeholder(table: ScoreTable) -> str:
    ids = [str(i) for i in table.test_ids[:2]]
    return "e.g. " + " or ".join(ids) + (" or a word of the text" if explain.text_columns(table) else "")


def _reset_page() -> None:
    st.session_state[PAGE] = 1


def chosen_row(selection) -> int | None:
    """The page row the user picked: a selected row, else the row of a selected cell (``None`` for neither)."""
    if selection is None:
        return None
    rows = list(selection.get("rows", []) if isinstance(selection, dict) else getattr(selection, "rows", []))
    if rows:
        return int(rows[0])
    cells = list(selection.get("cells", []) if isinstance(selection, dict) else getattr(selection, "cells", []))
    return int(cells[0][0]) if cells else None


def items_section(table: ScoreTable, comparison: Comparison, method: str) -> int | None:
    """The table of kept / dropped items for ``method``; returns the row index to explain (or ``None``)."""
    pick, search = st.columns([1.2, 1])
    which = pick.segmented_control("Items", tables.WHICH, key=WHICH, required=True, on_change=_reset_page,
                                   format_func=_WHICH_LABELS.get)
    query = search.text_input("Search id (exact, then prefix) or text", key=QUERY, placeholder=_placeholder(table),
                              on_change=_reset_page)
    if not REGISTRY[method].valid:
        st.warning(f"{REGISTRY[method].label}: {REGISTRY[method].guarantee.description}.", icon=":material/warning:")
    # The page box exists only while there are several pages; an alpha step that reruns the fragment without
    # it drops its state, so a missing value is the first page.
    page = tables.items_page(table, comparison, method, which=which, query=query,
                             page=int(st.session_state.get(PAGE, 1)))
    note = " matching the search" if query.strip() else ""
    st.caption(f"{page.total:,} {_COUNTED[which]}{note} · page {page.page} of {page.pages} "
               f"({tables.PAGE_SIZE} per page). Click a row to explain it.")
    rows = tables.item_indices(table, comparison, method, which=which, query=query)
    start = (page.page - 1) * tables.PAGE_SIZE
    data_key = state.active().key
    editing = st.toggle("Edit the set by hand", key=hand_edit.EDITING,
                        help="Tick items in or out of the inspected rule's selection; the post-hoc bound follows the "
                        "edited set, and the export and report can use it. Click-to-explain pauses while editing.")
    event = None
    if editing:
        hand_edit.editor(page.frame, rows[start:start + tables.PAGE_SIZE], comparison.selected(method), data_key,
                         (method, comparison.alpha, which, query, page.page))
    else:
        number = st.column_config.NumberColumn(format="%.4f")
        event = st.dataframe(
            # A click on any cell picks its row, not only a click on the row's checkbox.
            page.frame, hide_index=True, key="items-table", on_select="rerun",
            selection_mode=("single-row", "single-cell"),
            column_config={c: number for c in page.frame.columns if c.startswith("p_") or c.startswith("transformed")},
        )
    if page.pages > 1:
        st.number_input("Page", min_value=1, max_value=page.pages, step=1, key=PAGE, width=160)
    hand_bound_line(table, comparison, method, data_key)
    chosen = chosen_row(event.selection if event is not None else None)
    if chosen is not None and start + chosen < len(rows):
        return int(rows[start + chosen])
    exact = np.flatnonzero(np.asarray(table.test_ids).astype(str) == query.strip()) if query.strip() else []
    if len(exact):
        return int(exact[0])
    return int(rows[start]) if len(rows) > start else None


def hand_bound_line(table: ScoreTable, comparison: Comparison, method: str, data_key: str) -> None:
    """The post-hoc bound of the hand-edited set (live), with a reset; nothing when there is no edit."""
    edited = hand_edit.current(data_key, table.test_ids, comparison.selected(method), method, comparison.alpha)
    if edited is None:
        if st.session_state.get(hand_edit.EDITING):
            st.caption("No hand edits: the set is the rule's selection.")
        return
    bound, size = posthoc_view.set_bound(data_key, table, comparison, edited.mask)
    with st.container(border=True, key="hand-edited"):
        st.text(f"Hand-edited set, {edited.label}")
        st.text(post_hoc_line(bound, size, delta=posthoc_view.current_delta()))
        st.button("Reset hand edits", on_click=hand_edit.reset, key="hand-reset", icon=":material/undo:")


def explanation_section(table: ScoreTable, comparison: Comparison, method: str, index: int | None) -> None:
    """Why one item is kept or dropped: the driving model, its p-values, its rank against r*, in words."""
    if index is None:
        st.info("No item to explain: the list is empty.")
        return
    item = explain.explain_item(table, comparison, index, method)
    with st.container(border=True, key="item-explanation"):
        head, verdict = st.columns([3, 1])
        head.caption("Item")
        head.text(item.item_id)
        kept = item.selected[method]
        verdict.badge("kept" if kept else "dropped", icon=":material/check:" if kept else ":material/close:",
                      color="green" if kept else "gray")
        if item.text is not None:
            st.text(item.text[:600] + ("…" if len(item.text) > 600 else ""))
        st.text(item.reason)
        st.caption("Which model drove p*: the largest of its per-model p-values (an item is clean only if it "
                   "looks clean for every model).")
        st.text(f"p* = {item.p_max:.4g}, from model {item.driver}")
        st.dataframe(item.pvalues, hide_index=True, key="item-pvalues",
                     column_config={"p_value": st.column_config.NumberColumn(format="%.4f"),
                                    "drives_max": st.column_config.CheckboxColumn("drives p*")})
        others = ", ".join(f"{REGISTRY[m].label}: {'kept' if on else 'dropped'}" for m, on in item.selected.items())
        st.caption(others)
