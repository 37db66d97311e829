"""Select page: choose alpha (and optionally lambda, k_n), compare the four rules, inspect and export."""

from functools import partial

import streamlit as st

from dashboard import compute, export, state, tables, ui
from dashboard.figures import plot_envelope, plot_lambda_grid, plot_maxp_histogram, plot_overlap, plot_stepup
from dashboard.theme import is_valid, method_label
from jecs_core import METHODS

data = state.active()
table = data.table

st.title("Select a shared clean subset")
st.caption(
    f"Data: **{data.name}** (n = {table.n:,}, K = {table.K}). JECS picks the items that look jointly pure "
    "for every model while keeping the expected share of contaminated items, the GCR, below α."
)

with st.container(border=True):
    left, mid, right = st.columns([2.2, 1.4, 1.4], gap="large")
    left.slider(
        "Target GCR α", min_value=0.01, max_value=0.50, step=0.01, format="%.2f", key=state.ALPHA,
        help="The highest expected share of contaminated items you accept in the selected subset.",
    )
    mid.radio(
        "Tail threshold λ", [state.AUTO, state.MANUAL], key=state.LAM_MODE, horizontal=True,
        help="Max-p values above λ form the right tail the envelope is anchored on. "
        "Auto picks λ on the grid 0.5 … 0.9 with the smallest slope F_fit(λ)/λ.",
    )
    if st.session_state[state.LAM_MODE] == state.MANUAL:
        mid.slider("λ", min_value=0.05, max_value=0.95, step=0.05, format="%.2f", key=state.LAM,
                   help="A fixed tail threshold.")
    lam_note = mid.empty()
    right.radio(
        "kNN size k_n", [state.AUTO, state.MANUAL], key=state.KNN_MODE, horizontal=True,
        help="Neighbours used to estimate the tail density at λ. Auto uses ⌈√m_R⌉ (m_R = tail size).",
    )
    if st.session_state[state.KNN_MODE] == state.MANUAL:
        right.number_input("k_n", min_value=1, max_value=100_000, step=1, key=state.KNN,
                           help="Clipped to the tail size m_R.")
    knn_note = right.empty()

alpha = round(float(st.session_state[state.ALPHA]), 4)
lam, knn = state.lambda_setting(), state.knn_setting()
comparison = compute.comparison(data.key, alpha, lam, knn, table)
result = comparison.jecs
fit = result.fit

if fit.envelope is not None:
    lam_note.caption(f"{'Chosen' if lam == 'auto' else 'Using'}: λ = {fit.lam:g}, F_fit(λ) = {fit.F_fit_lambda:.4f}")
    knn_note.caption(f"{'Chosen' if knn is None else 'Using'}: k_n = {fit.k_n} of m_R = {fit.envelope.m_tail:,}")
else:
    lam_note.caption("No usable λ: JECS uses JMCS.")
ui.fit_strip(result, table.n)
ui.method_cards(comparison)

contaminated = table.contaminated
tabs = st.tabs(["Max-p histogram", "Envelope", "Step-up", "Overlap", "λ grid"])
with tabs[0]:
    st.caption("Pure items pile up near 0; contaminated items spread towards 1. The tail above λ anchors the envelope.")
    st.plotly_chart(plot_maxp_histogram(fit, contaminated), key="fig-maxp")
with tabs[1]:
    st.caption("F_fit is linear up to the anchor (λ, F_fit(λ)) and follows the empirical tail above it; "
               "p~ = F_fit(p*) is what Storey-BH ranks.")
    st.plotly_chart(plot_envelope(fit, contaminated), key="fig-envelope")
with tabs[2]:
    st.caption("JECS selects the r* smallest transformed values: r* is the last rank where p~ lies under the line.")
    st.plotly_chart(plot_stepup(result), key="fig-stepup")
with tabs[3]:
    st.caption("Each bar counts the items selected by exactly the rules marked below it.")
    st.plotly_chart(plot_overlap(comparison), key="fig-overlap")
with tabs[4]:
    st.caption("The data-driven choice takes the λ with the smallest slope of the linear branch (ties: smaller λ).")
    st.plotly_chart(plot_lambda_grid(fit), key="fig-grid")
    st.dataframe(tables.grid_table(fit), hide_index=True, key="grid-table")

st.subheader("Selected items")
pick, search = st.columns([1.3, 1])
shown = pick.segmented_control(
    "Selection", METHODS, default="jecs", format_func=method_label, key="jecs.table_method", required=True,
    help="Which rule's selection to list.",
)
query = search.text_input("Search id or text", key="jecs.table_query", placeholder="e.g. t12 or a word of the text")
if not is_valid(shown):
    st.warning(f"{method_label(shown)}: this selection does not control the GCR; it is shown for comparison only.")
items = tables.selected_items(table, comparison, shown, query)
st.caption(f"{len(items):,} items" + (f" matching '{query}'" if query.strip() else ""))
number = st.column_config.NumberColumn(format="%.4f")
st.dataframe(
    items, hide_index=True, height=320, key="selected-table",
    column_config={c: number for c in items.columns if c.startswith("p_")},
)

st.subheader("Export")
st.caption("The selection CSV lists every test item with `selected` (0/1), p-values and carried columns; "
           "the sidecar JSON records α, λ, k_n, pi0_hat, the input's hash and the package version.")
row = st.columns([2, 1, 1, 1.5], vertical_alignment="bottom")
export_method = row[0].selectbox(
    "Export", [*METHODS, "all"], key="jecs.export_method",
    format_func=lambda m: "All four rules (selected = JECS)" if m == "all" else method_label(m),
    help="'All four rules' adds one selected_<rule> column per rule.",
)
csv_name, json_name = export.file_names(data.name, export_method, alpha)
row[1].download_button(
    "Selection CSV", partial(export.csv_bytes, table, comparison, export_method), file_name=csv_name,
    mime="text/csv", on_click="ignore", icon=":material/download:", type="primary", key="download-csv",
)
row[2].download_button(
    "Sidecar JSON", partial(export.json_bytes, table, comparison, export_method), file_name=json_name,
    mime="application/json", on_click="ignore", icon=":material/data_object:", key="download-json",
)
if export_method != "all" and not is_valid(export_method):
    st.warning("You are exporting an invalid baseline: its GCR is not controlled.")
