"""Data page: choose a bundled sample or upload a score table, then inspect it."""

import hashlib

import streamlit as st

from dashboard import samples, state
from dashboard.figures import plot_score_distributions
from dashboard.upload import UPLOAD_TYPES
from scoring import SCORE_LABELS  # names only: importing scoring loads no torch

FORMAT_HELP = """
**Wide layout** (one row per item): `item_id` (unique), `split` (`calibration` or `test`),
one `score_<model>` column per model, optional `member_<model>` (0/1) labels and `text`;
other columns are carried to the export.

**Long layout** (one row per item and model): `item_id, split, model, score[, member]`.

Calibration items are known members of every model. Scores must be numbers where larger
means more member-like; tick *Lower scores = member* for perplexity or loss.
"""




def _chosen_score() -> str | None:
    sample = samples.get(st.session_state[state.SAMPLE_CHOICE])
    score = st.session_state.get(state.SAMPLE_SCORE)
    return score if score in sample.scores else None


def _use_sample() -> None:
    state.activate_sample(st.session_state[state.SAMPLE_CHOICE], _chosen_score())


def _sample_key() -> str:
    key, score = st.session_state[state.SAMPLE_CHOICE], _chosen_score()
    sample = samples.get(key)
    return f"sample:{key}" if score is None or score == sample.scores[0] else f"sample:{key}:{score}"


st.title("Data")
st.caption("Choose the score table to audit. Every page works on the active data set shown in the sidebar.")

pick, drop = st.columns(2, gap="large")
with pick.container(border=True):
    st.subheader(":material/inventory_2: Bundled samples")
    st.selectbox(
        "Sample",
        options=list(samples.SAMPLES),
        format_func=lambda key: samples.get(key).name,
        key=state.SAMPLE_CHOICE,
        on_change=_use_sample,
        help="Ready-made score tables; choosing one makes it the active data set.",
    )
    chosen = samples.get(st.session_state[state.SAMPLE_CHOICE])
    st.caption(chosen.description)
    if chosen.scores:
        if st.session_state.get(state.SAMPLE_SCORE) not in chosen.scores:
            st.session_state[state.SAMPLE_SCORE] = chosen.scores[0]
        st.selectbox(
            "Detection score", options=list(chosen.scores), format_func=lambda s: SCORE_LABELS.get(s, s).split(" (")[0],
            key=state.SAMPLE_SCORE, on_change=_use_sample,
            help="This sample carries all four detection scores of every model; pick the one JECS selects on.",
        )
    if state.active().key != _sample_key():
        st.button("Use this sample", on_click=_use_sample, type="primary", icon=":material/check:")

with drop.container(border=True):
    st.subheader(":material/upload_file: Upload a score table")
    options = st.columns(2)
    options[0].radio(
        "Layout", ["auto", "wide", "long"], key=state.UPLOAD_LAYOUT, horizontal=True,
        help="'auto' reads a table with `model` and `score` columns (and no `score_` columns) as long.",
    )
    options[1].checkbox(
        "Lower scores = member", key=state.UPLOAD_LOWER,
        help="Tick when smaller scores mean more member-like (raw perplexity, loss); scores are negated on load.",
    )
    limit = state.upload_limit_mb()
    uploaded = st.file_uploader(
        "CSV or Parquet file", type=list(UPLOAD_TYPES), key="jecs.uploader",
        help=f"At most {limit:g} MB (server.maxUploadSize). Files are parsed as CSV or Parquet only.",
    )
    payload = st.session_state.pop(state.UPLOAD_PAYLOAD, None)  # hook: (file name, bytes)
    outcome = None
    if uploaded is not None:
        outcome = state.load_upload(uploaded.name, uploaded.getvalue(), uploaded.file_id)
    elif payload is not None:
        name, data = payload
        outcome = state.load_upload(name, data, hashlib.sha256(data).hexdigest())
    if outcome is not None:
        ok, message = outcome
        if ok:
            st.success(message, icon=":material/check_circle:")
        else:
            st.error(message, icon=":material/error:")
            st.caption(f"The active data set is unchanged: {state.active().name}.")
    with st.expander("Expected format"):
        st.markdown(FORMAT_HELP)

data = state.active()
table = data.table
st.header(f"Active: {data.name}", divider="gray")
cards = st.columns(4)
cards[0].metric("Test items (n)", f"{table.n:,}", border=True, help="Candidates to select from.")
cards[1].metric("Calibration items (m)", f"{table.m:,}", border=True, help="Known members of every model.")
cards[2].metric("Models (K)", table.K, border=True)
if table.has_labels:
    share = float(table.contaminated.mean())
    cards[3].metric("Member labels", "present", border=True,
                    help=f"{share:.1%} of test items are members of at least one model (contaminated).")
else:
    cards[3].metric("Member labels", "absent", border=True, help="Without labels GCP and power cannot be shown.")
st.markdown("**Models:** " + ", ".join(f"`{m}`" for m in table.models))
details = f"Source: `{table.source}`"
if table.source_sha256:
    details += f" · SHA-256 `{table.source_sha256[:12]}…`"
details += " · scores negated on load (lower = member)" if table.flipped else " · larger score = more member-like"
st.caption(details)

st.subheader("Score distributions per model")
st.caption(
    "Density of each model's scores: calibration (known members) against the test items"
    + (", split into members and non-members of that model." if table.has_labels else ".")
)
shown = list(table.models)
if table.K > 8:
    shown = st.multiselect("Models shown", table.models, default=list(table.models[:8]), help="Pick up to 16 models to draw.", max_selections=16)
if shown:
    st.plotly_chart(plot_score_distributions(table, shown), key="score-distributions")

with st.expander("Preview the table (first 200 rows of each split)"):
    frame = table.to_frame()
    st.dataframe(frame.groupby("split", sort=False).head(200), hide_index=True)

st.page_link("views/select_page.py", label="Continue to Select", icon=":material/arrow_forward:")
