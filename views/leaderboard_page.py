"""Leaderboard page: how the models compare on the items none of them has seen.

Results in (the sample's own, or an upload), the rule and α of the Select page, then the
ranking on the clean subset against the full benchmark: cards, the figure, the table with
each model's interval and its range on the truly clean items, the significant rank
differences, and the downloads (leaderboard CSV, the audit report with a leaderboard section).
"""

import streamlit as st

from dashboard import commit_view, posthoc_view, select_view, state
from dashboard import leaderboard_results as lr
from dashboard import leaderboard_view as lb
from dashboard.figures.leaderboard import plot_leaderboard
from dashboard.plain import escape
from dashboard.theme import method_label
from jecs_core import METHODS

data = state.active()
lb.restore_state(data)
posthoc_view.restore_delta()
commit_view.restore_mode()

st.title("Leaderboard on the clean subset")
select_view.url_notice()
if notice := st.session_state.pop(lb.RESULTS_NOTICE, None):
    st.info(notice, icon=":material/info:")
st.caption("Rank the models on the items the selection rule certifies as clean for all of them (the Select page's "
           "rule and α), beside the full benchmark: how much did contamination move each score and the ranking?")

with st.container(border=True):
    left, right = st.columns([2, 1.2], gap="large")
    uploaded = left.file_uploader("Per-item results: a long table `item_id, model, <metric>`, a wide one "
                                  "`item_id, <metric>_<model>` (CSV or Parquet), or lm-eval `--log_samples` logs "
                                  "(one JSONL per model)", type=list(lr.RESULT_TYPES), accept_multiple_files=True,
                                  key="jecs.lb_upload",
                                  help="Results for the test items of the data set's models; model names must match. Several "
                                  "tables, each holding other models, are read as one.")
    right.text_input("Metric", key=lb.METRIC, placeholder="correct (tables), acc (lm-eval logs)",
                     help="A numeric per-item column or log key, e.g. `exact_match` or `f1`; for a metric "
                          "that is not 0/1, 'accuracy' is its mean.")
    with right.expander("lm-eval sample logs"):
        st.text_input("Models of the sample logs", key=lr.LOG_MODELS, placeholder="model-a, model-b, ...",
                      help="The model of each uploaded log, comma-separated, in upload order.")
        st.text_input("Item id field of doc", key=lr.LOG_ID_FIELD, placeholder="doc_id",
                      help="A field of each sample's `doc` that holds the item id; empty: `doc_id`.")
    upload_problem = lr.take_upload(uploaded)
    if upload_problem:
        lb.error_line(upload_problem)
    if st.session_state.get(lr.RESULTS) is not None:
        right.button("Use the sample's results", on_click=lr.forget_upload, icon=":material/undo:", key="jecs.lb_forget")

subject = lb.subject(data)
if subject.fallback:
    st.info("The active data set has no per-item results, so this page shows the shipped leaderboard sample. "
            "Upload results of the active data set's models above to rank them instead.", icon=":material/info:")
    st.button("Make this sample the active data set", on_click=state.activate_sample,
              args=(subject.key.split(":")[1],), icon=":material/swap_horiz:", key="jecs.lb_activate")
st.text(f"Data set: {subject.name}")
posthoc_view.delta_notice()


@st.fragment
def ranking(upload_refused: bool) -> None:
    """α, the rule and everything they change: a step of either reruns only this.

    ``upload_refused``: this run refused an upload; the metric typed for it is not tried on other results.
    """
    controls = st.columns([2, 2], gap="large")
    locked = commit_view.locked_alpha()  # "commit α first" holds here too: the committed α stays
    if locked is not None:
        st.session_state[state.ALPHA] = locked
    controls[0].slider("Target GCR α", **state.ALPHA_SLIDER, key=state.ALPHA, disabled=locked is not None,
                       help="The clean subset is the selection at this α (shared with the Select page).")
    controls[1].selectbox("Selection rule", METHODS, key=lb.METHOD, format_func=method_label,
                          help="The rule whose selection is the clean subset (shared with the Select page).")
    alpha = round(float(st.session_state[state.ALPHA]), 4)
    settings, delta = lb.rule_settings(subject)  # the rule options and δ as the Select page set them
    metric = str(st.session_state[lb.METRIC]).strip()
    if subject.results is None:
        st.info("Upload per-item results of this data set's models to rank them.", icon=":material/upload_file:")
    elif upload_refused and subject.results.origin != "upload":
        st.info(f"The ranking waits for results it can use: fix the upload above, or remove it to rank "
                f"{escape(subject.results.name)}.", icon=":material/upload_file:")
    elif not commit_view.gate(alpha):
        st.page_link("views/select_page.py", label="Commit α on the Select page", icon=":material/lock:")
    else:
        origin = "uploaded" if subject.results.origin == "upload" else "shipped"
        st.text(f"Results: {subject.results.name} ({origin})")
        board, problem = lb.board(subject, metric, alpha, st.session_state[lb.METHOD], settings, delta=delta)
        if not problem:
            commit_view.note_shown(alpha)
        if problem:
            lb.error_line(problem)
        elif lb.has_clean_items(board):
            lb.warning_lines(board)
            lb.summary_cards(board)
            st.plotly_chart(plot_leaderboard(board.frame, metric=board.metric), key="leaderboard-figure")
            st.caption(lb.FIGURE_CAPTION)
            st.dataframe(lb.table_frame(board.frame), hide_index=True, key="leaderboard-table")
            st.caption(lb.TABLE_CAPTION)
            lb.pairwise_section(board)
            lb.downloads(board, subject, alpha, settings)
    lb.write_url(alpha, settings, delta)


ranking(upload_refused=bool(upload_problem))
