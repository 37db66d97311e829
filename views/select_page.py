"""Select page: choose alpha (and the rules' declared options), compare the registered rules, inspect and export.

Latency: moving alpha or a rule option reruns one ``st.fragment`` (:func:`live`) only; it redraws
the controls' values, the cards, the fit line and the open panel (one figure, or the visible
page of the items table, or the export buttons).  Closed panels and figures are never built.
Everything else on the page (title, pickers, toggles) is drawn by the full run and is not
re-sent on a step.
"""

from dataclasses import replace
from functools import partial

import streamlit as st

from dashboard import commit_view, compute, export, items_view, posthoc_view, rule_controls, select_view, shift_view, state, ui
from dashboard.explain import selection_warnings
from dashboard.plain import escape
from dashboard.report import ReportInputs, audit_diagnostics_or_none, build_report, report_file_name
from dashboard.select_view import ALPHA2, COMPARE, METHOD
from dashboard.theme import method_label
from jecs_core import DEFAULT_METHOD, METHODS, REGISTRY

CLUSTER = "select.cluster"
data = state.active()
table = data.table
select_view.restore_state()
posthoc_view.restore_delta()
commit_view.restore_mode()

st.title("Select a shared clean subset")
st.caption("Pick the items that look clean for every model while keeping the expected share of contaminated "
           "items (the GCR) below α. Data set:")
st.text(f"{data.name} (n = {table.n:,}, m = {table.m:,}, K = {table.K})")
# A shared link lands here: say once why the data set differs (the Data page shows the notice too).
notice = st.session_state.get(state.NOTICE)
if notice and st.session_state.get("select.notice_shown") != notice:
    st.session_state["select.notice_shown"] = notice
    st.info(notice, icon=":material/info:")
posthoc_view.delta_notice()
select_view.url_notice()
ui.glossary()


def alpha_controls() -> float:
    locked = commit_view.locked_alpha()  # "commit α first": the committed α stays until uncommitted
    if locked is not None:
        st.session_state[state.ALPHA] = locked
    st.slider("Target GCR α", min_value=0.01, max_value=0.50, step=0.01, format="%.2f", key=state.ALPHA,
              help="The highest expected share of contaminated items you accept in the selected subset.",
              disabled=locked is not None)
    return round(float(st.session_state[state.ALPHA]), 4)


def export_section(comparison, method: str, settings, *, clustered=None) -> None:
    """Downloads; ``clustered`` (one hypothesis per cluster) feeds the CSV and sidecar, the report stays item-level."""
    item_level, comparison = comparison, clustered if clustered is not None else comparison
    st.caption("The selection CSV lists every test item with `selected` (0/1), p-values and carried columns "
               "(spreadsheet-safe: text starting with = + - @ is quoted); the sidecar JSON records the settings, "
               "the input's hash and the package version. The report is one HTML file with every figure.")
    row = st.columns([2, 1, 1, 1, 1.2], vertical_alignment="bottom")
    # Starts at the inspected rule, as the report does, so the three files describe one selection;
    # a choice made here is kept per inspected rule.
    chosen = row[0].selectbox("Export", [*METHODS, "all"], key=f"jecs.export_method.{method}",
                              index=METHODS.index(method) if method in METHODS else METHODS.index(DEFAULT_METHOD),
                              format_func=lambda m: "All rules (one selected_<rule> column each)" if m == "all"
                              else method_label(m))
    csv_name, json_name = export.file_names(data.name, chosen, comparison.alpha)
    shift = shift_view.record(data.key, table)  # covariate-aware p-values, recorded as jecs select records them
    options = {**settings, **({"cluster": "duplicates"} if clustered is not None else {}), **shift}
    row[1].download_button("Selection CSV", partial(export.csv_bytes, table, comparison, chosen, options=options),
                           file_name=csv_name,
                           mime="text/csv", on_click="ignore", icon=":material/download:", type="primary",
                           key="download-csv")
    post_hoc = posthoc_view.report_context(data.key, table, item_level, method)
    row[2].download_button("Sidecar JSON", partial(export.json_bytes, table, comparison, chosen, options=options,
                                                   diagnostics=True, post_hoc=post_hoc),
                           file_name=json_name,
                           mime="application/json", on_click="ignore", icon=":material/data_object:",
                           key="download-json")
    inputs = ReportInputs(table=table, comparison=item_level, method=method, data_name=data.name, options=settings,
                          post_hoc=post_hoc, shift=shift or None)
    lines_ok = export.ids_fit_lines(table)
    if chosen != "all" and lines_ok:  # the clean subset itself, for tools that take a list
        row[3].download_button("Clean ids (TXT)", partial(export.ids_bytes, table, comparison, chosen),
                               file_name=csv_name.replace("jecs_selection_", "jecs_clean_ids_")[:-4] + ".txt",
                               mime="text/plain", on_click="ignore", icon=":material/list:", key="download-ids")
    elif not lines_ok:
        row[3].caption("Some ids hold line breaks: the selection CSV lists them safely.")
    row[4].download_button("Audit report (HTML)", partial(_report_bytes, inputs),
                           file_name=report_file_name(data.name, method, comparison.alpha), mime="text/html",
                           on_click="ignore", icon=":material/summarize:", key="download-report")
    if chosen != "all" and not REGISTRY[chosen].valid:
        st.warning(f"You are exporting {method_label(chosen)}: {REGISTRY[chosen].guarantee.description}.")


def _report_bytes(inputs: ReportInputs) -> bytes:
    """Built on click (a deferred download), diagnostics included when this jecs_core has them: with the paper
    JECS's own options, as the sidecar records them, never another rule's."""
    diagnostics = audit_diagnostics_or_none(inputs.table, alpha=inputs.comparison.alpha,
                                            **REGISTRY["jecs"].accepted(dict(inputs.options or {})))
    return build_report(replace(inputs, diagnostics=diagnostics)).encode("utf-8")


# Widgets that do not change with alpha live outside the fragment, so an alpha step re-sends
# as few elements as possible; the fragment fills the slots below.
with st.container(border=True):
    left, mid, right = st.columns([2.2, 1.4, 1.4], gap="large")
    alpha_slot = left.container()
    compare_on = left.toggle("Compare with a second α", key=COMPARE)
    # The duplicate check (MinHash in Python on a few thousand texts: seconds on a fresh server) runs
    # after the cards are drawn; its toggle fills this slot then. Off (the default), the cards need no check.
    cluster_slot = left.container()
    cluster_on = bool(st.session_state.get(CLUSTER)) and compute.duplicates(data.key, table).any
    alpha2_slot = left.container()
    delta_column, commit_column = left.columns(2, vertical_alignment="bottom")
    posthoc_view.delta_control(delta_column)
    commit_view.mode_toggle(commit_column)
    mid_slot, right_slot = mid.container(), right.container()
cards_slot = st.container()
ui.guarantee_caption()
compare_slot = st.container()
method = st.segmented_control("Inspect rule", METHODS, key=METHOD, required=True, format_func=method_label,
                              help="The rule whose fit, figures and items are shown.")
fit_slot = st.container()
diagnostics_on = select_view.diagnostics_toggle()
diagnostics_slot = st.container()
panel = select_view.panel_picker()  # only the open panel is built and sent
figure_key = select_view.figure_picker() if panel == "figures" else None
panel_slot = st.container()


@st.fragment
def live() -> None:
    """Everything alpha and the rule options change; a step of any of them reruns only this."""
    with alpha_slot:
        alpha = alpha_controls()
    settings = rule_controls.render([mid_slot, right_slot])  # one control per declared rule option
    settings, problem = rule_controls.usable(settings, lambda chosen: compute.fits(data.key, chosen, table))
    if problem:  # an option this table cannot take (a k_n above n): the default stands in, and the page says so
        right_slot.warning(escape(problem), icon=":material/warning:")
    for note in rule_controls.clipped_notes(settings, compute.fits(data.key, settings, table)):
        right_slot.caption(escape(note))
    posthoc_view.write_delta_url(posthoc_view.current_delta())
    if not commit_view.gate(alpha, alpha_slot):  # nothing at any alpha is drawn before the commit
        select_view.write_url(alpha, settings)
        return
    comparison = compute.comparison(data.key, alpha, settings, table)
    shown = compute.cluster_comparison(data.key, alpha, settings, table) if cluster_on else comparison
    with cards_slot:
        warnings_slot = st.container()  # above the cards, filled once they are drawn
        ui.method_cards(shown, compute.summary(compute.cluster_key(data.key) if cluster_on else data.key, alpha, settings, shown),
                        notes=False, posthoc=posthoc_view.lines_for(data.key, table, shown, settings, clustered=cluster_on))
    commit_view.note_shown(alpha)
    with warnings_slot:
        ui.warnings(selection_warnings(table, shown, duplicates=compute.duplicates(data.key, table)))
        if compute.near_pass_skipped(data.key, table) and st.button(
                "Check near-duplicate texts now", key="select.near_all", icon=":material/content_copy:",
                help="MinHash over every test text, as jecs select does: about a second per 5,000 texts on a "
                "2-core machine, once per data set."):
            compute.check_near_duplicates_in_full(data.key)
            st.rerun(scope="app")
    if compare_on:
        with alpha2_slot:
            st.slider("Second α", min_value=0.01, max_value=0.50, step=0.01, format="%.2f", key=ALPHA2)
        second = compute.comparison(data.key, round(float(st.session_state[ALPHA2]), 4), settings, table)
        commit_view.note_shown(second.alpha)
        with compare_slot:
            select_view.side_by_side(table, comparison, second)
    with fit_slot:
        select_view.fit_line(comparison, method, table)
    if diagnostics_on:
        with diagnostics_slot:
            select_view.diagnostics_section(data.key, table, alpha, settings)
    with panel_slot:
        if panel == "figures":  # about 10 ms more per alpha step than drawing it outside (A/B, browser)
            select_view.draw_figure(figure_key, comparison, method)
        elif panel == "items":
            index = items_view.items_section(table, comparison, method)
            items_view.explanation_section(table, comparison, method, index)
        elif panel == "export":
            export_section(comparison, method, settings, clustered=shown if cluster_on else None)
    select_view.write_url(alpha, settings)


live()
if compute.duplicates(data.key, table).any:
    cluster_slot.toggle(
        "One hypothesis per cluster of duplicates", key=CLUSTER,
        help="Copies and near-copies of one item are kept or dropped together, and count once in the step-up "
        "(as jecs select --cluster duplicates). The cards, warnings and export use it; figures and items show the "
        "item-level fit. α then bounds the share of selected clusters that are contaminated, not of items: "
        "with clusters of unequal size the item share can be higher (JMCS stays under α at both levels; "
        "docs/VALIDITY.md, Duplicated items).")
