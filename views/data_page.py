"""Data page: choose a bundled sample or upload a score table, then inspect it.

User-supplied strings (file, column, model names) are drawn with ``st.text`` or as table
cells, never as Markdown. The upload column is processed before the sample column is
drawn, so both show the data set that is active after this rerun.
"""

import hashlib
from pathlib import PurePath

import streamlit as st

from dashboard import data_views, samples, shift_view, state
from dashboard.plain import escape
from dashboard.upload import UPLOAD_TYPES

FORMAT_HELP = """
**Wide layout** (one row per item): `item_id` (unique), `split` (`calibration` or `test`),
one `score_<model>` column per model, optional `member_<model>` (0/1) labels, `text` and
numeric covariates `x_<name>`; other columns are carried to the export.

**Long layout** (one row per item and model): `item_id, split, model, score[, member]`.

Calibration items are known members of every model. Scores must be numbers where larger
means more member-like; tick *Lower scores = member* for perplexity or loss. Save
spreadsheets as comma-separated CSV.
"""

WRAP_CSS = """<style>
.st-key-data-choosers > div { flex: 1 1 320px !important; min-width: 320px; }
.st-key-data-cards > div { flex: 1 1 170px !important; min-width: 170px; }
</style>"""


def _chosen_score() -> str | None:
    sample = samples.get(st.session_state[state.SAMPLE_CHOICE])
    score = st.session_state.get(state.SAMPLE_SCORE)
    return score if score in sample.scores else None


def _use_sample() -> None:
    state.activate_sample(st.session_state[state.SAMPLE_CHOICE], _chosen_score())


def _upload_column() -> None:
    st.subheader(":material/upload_file: Upload a score table")
    st.radio(
        "Layout", ["auto", "wide", "long"], key=state.UPLOAD_LAYOUT, horizontal=True,
        help="'auto' reads a table with `model` and `score` columns (and no `score_` columns) as long.",
    )
    st.checkbox(
        "Lower scores = member", key=state.UPLOAD_LOWER,
        help="Tick when smaller scores mean more member-like (raw perplexity, loss); scores are negated on load.",
    )
    limit = state.upload_limit_mb()
    uploaded = st.file_uploader(
        "CSV or Parquet file", type=list(UPLOAD_TYPES), key="jecs.uploader",
        help=f"At most {limit:g} MB (server.maxUploadSize). Files are parsed in memory as CSV or Parquet only.",
    )
    payload = st.session_state.pop(state.UPLOAD_PAYLOAD, None)  # hook: (file name, bytes)
    if uploaded is not None:
        name, data, token = uploaded.name, uploaded.getvalue(), uploaded.file_id
    elif payload is not None:
        name, data = payload
        token = hashlib.sha256(data).hexdigest()
    else:
        name = None
    if name is not None:
        with st.status("Loading the upload…", expanded=False) as status:
            outcome = state.load_upload(name, data, token, progress=lambda step: status.update(label=step))
            status.update(label="Upload loaded" if outcome.ok else "Upload refused",
                          state="complete" if outcome.ok else "error")
        if outcome.ok and outcome.key == st.session_state[state.ACTIVE_KEY]:
            st.success(escape(outcome.lines[0]), icon=":material/check_circle:")
        elif outcome.ok:  # another data set was chosen since: the file stays in the box, but it is not in use
            st.info(f"{escape(name)} is uploaded but not in use: the active data set is {escape(state.active().name)}.",
                    icon=":material/info:")
            if st.button(f"Use {escape(name)} again", key="jecs.reuse_upload", icon=":material/upload_file:"):
                st.session_state.pop(state.UPLOAD_SIGNATURE, None)  # the next run loads it and makes it active
                st.rerun()
        else:
            with st.container(border=True, key="upload-problems"):
                st.error(f"The file was not loaded ({len(outcome.lines)} message(s)):", icon=":material/error:")
                for line in outcome.lines:
                    st.text("• " + line)
            st.caption("The active data set is unchanged.")
    with st.expander("Expected format"):
        st.markdown(FORMAT_HELP)


def _sample_column() -> None:
    st.subheader(":material/inventory_2: Bundled samples")
    st.selectbox(
        "Sample", options=list(samples.SAMPLES), format_func=lambda key: samples.get(key).name,
        key=state.SAMPLE_CHOICE, on_change=_use_sample,
        help="Ready-made score tables; choosing one makes it the active data set.",
    )
    chosen = samples.get(st.session_state[state.SAMPLE_CHOICE])
    st.caption(chosen.description)
    if chosen.scores:
        if st.session_state.get(state.SAMPLE_SCORE) not in chosen.scores:
            st.session_state[state.SAMPLE_SCORE] = chosen.scores[0]
        st.selectbox(
            "Detection score", options=list(chosen.scores), format_func=data_views.score_label,
            key=state.SAMPLE_SCORE, on_change=_use_sample,
            help="This sample carries every detection score of every model; pick the one the rules select on.",
        )
    in_use = state.active().key == state.chosen_sample_key(st.session_state[state.SAMPLE_CHOICE], _chosen_score())
    st.button("In use" if in_use else "Use this sample", on_click=_use_sample, type="primary",
              icon=":material/check:", disabled=in_use, key="jecs.use_sample")


st.title("Data")
st.caption("Choose the score table to audit. Every page works on the active data set shown in the sidebar.")
notice = st.session_state.pop(state.NOTICE, None)
if notice:
    st.info(notice, icon=":material/info:")

# Flex boxes that wrap instead of columns that squeeze: at 800 px with the sidebar open the two
# panels stack rather than truncating their labels (the min-width is in WRAP_CSS).
st.html(WRAP_CSS)
with st.container(horizontal=True, gap="large", key="data-choosers"):
    pick = st.container(border=True, key="data-pick")
    drop = st.container(border=True, key="data-drop")
with drop:
    _upload_column()
with pick:
    _sample_column()

data = state.active()
table = data.table
st.header("Active data set", divider="gray")
st.text(data.name)
with st.container(horizontal=True, key="data-cards"):
    st.metric("Test items (n)", f"{table.n:,}", border=True, help="Candidates to select from.")
    st.metric("Calibration items (m)", f"{table.m:,}", border=True, help="Known members of every model.")
    st.metric("Models (K)", table.K, border=True)
    if table.has_labels:
        share = float(table.contaminated.mean())
        st.metric("Labels", "present", border=True,
                  help=f"{share:.1%} of test items are members of at least one model (contaminated).")
    else:
        st.metric("Labels", "absent", border=True, help="Without member labels GCP and power cannot be shown.")
st.caption("Models")
st.text(", ".join(table.models))
# The file name only: a sample's source is a path on the server, which is nobody's business.
details = f"Source: {PurePath(str(table.source)).name}"
if table.source_sha256:
    details += f" · SHA-256 {table.source_sha256[:12]}…"
details += " · scores negated on load (lower = member)" if table.flipped else " · larger score = more member-like"
st.text(details)
data_views.contract_warnings(table)

data_views.distributions(table)
if table.has_labels:
    data_views.member_auc_section(data.key, table)
data_views.shift_section(data.key, table)
shift_view.covariate_section(data)

data_views.preview(data.key, table)

st.page_link("views/select_page.py", label="Continue to Select", icon=":material/arrow_forward:")
