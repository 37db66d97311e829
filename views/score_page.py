"""Score page: turn local causal LMs and a texts table into the score table JECS selects from."""

import streamlit as st

from dashboard import scoring_run, state

st.title("Score texts with local models")
st.caption(
    "Computes the four detection scores (Perplexity, Min-K%, Min-K%++, Modified Entropy) of every text under "
    "every model, one model in memory at a time, offline. The chosen score becomes the active data set. "
    "Scores are cached per model and text, so an interrupted run resumes."
)

missing = scoring_run.scoring_available()
if missing:
    st.info(
        f"Scoring needs the optional scoring extra ({missing} not installed). Install it with\n\n"
        '`python -m pip install "torch==2.13.0" -e ".[scoring]"`\n\nthen restart the dashboard.',
        icon=":material/info:",
    )
    st.stop()

from scoring import SCORE_LABELS, SCORE_NAMES, ScoreSettings, run_scoring  # noqa: E402  (optional extra)

with st.container(border=True):
    left, right = st.columns(2, gap="large")
    models_text = left.text_area(
        "Models (NAME=PATH, one per line)", key="score.models", height=140,
        placeholder="base=/models/smollm2-135m\ntuned=/models/run-7/model.gguf",
        help="Local Hugging Face model directories, or a .gguf file. Nothing is downloaded; remote code is never run.",
    )
    texts_upload = right.file_uploader("Texts table (CSV or Parquet)", type=["csv", "parquet"], key="score.texts_upload",
                                       help="Columns item_id, split (calibration/test), text, and optional member_<model> labels.")
    texts_path = right.text_input("…or a local path to the texts table", key="score.texts_path")
    c1, c2, c3, c4 = st.columns(4)
    score = c1.selectbox("Score for the selection", SCORE_NAMES, index=SCORE_NAMES.index("minkpp"),
                         format_func=lambda s: SCORE_LABELS[s], key="score.name")
    max_length = c2.number_input("Max tokens per text", 8, 8192, 512, 8, key="score.max_length",
                                 help="Longer texts are truncated (the report says how many).")
    k_ratio = c3.number_input("k for Min-K% / Min-K%++", 0.01, 1.0, 0.2, 0.05, key="score.k")
    prepend_bos = c4.toggle("Prepend BOS", value=False, key="score.bos",
                            help="Score the first token too, for tokenizers that add no BOS.")

if st.button("Score and use as the active data set", type="primary", icon=":material/play_arrow:", key="score.run"):
    try:
        models = scoring_run.parse_model_lines(models_text)
        if texts_upload is not None:
            texts = scoring_run.read_uploaded_texts(texts_upload.name, texts_upload.getvalue())
            source = texts_upload.name
        elif texts_path.strip():
            from scoring import read_texts

            texts = read_texts(texts_path.strip())
            source = texts_path.strip()
        else:
            raise ValueError("texts: upload a texts table or give its local path")
        settings = ScoreSettings(k_mink=float(k_ratio), k_minkpp=float(k_ratio), max_length=int(max_length),
                                 prepend_bos=bool(prepend_bos))
        bar = st.progress(0.0, text="Loading the first model…")

        def report(done: int, total: int, message: str) -> None:
            bar.progress(min(1.0, done / max(total, 1)), text=message)

        output = run_scoring(texts, models, score, settings=settings, progress=report)
        bar.empty()
        table, dropped = scoring_run.scored_table(output.wide, source=f"scored: {source} ({SCORE_LABELS[score]})")
    except (ValueError, OSError) as exc:
        st.error(str(exc), icon=":material/error:")
    except Exception as exc:  # a model that fails to load or run: say so, never a traceback
        st.error(f"Scoring failed: {exc.__class__.__name__}: {exc}", icon=":material/error:")
    else:
        key = f"scored:{source}:{score}:{','.join(models)}:{max_length}:{k_ratio}:{prepend_bos}"
        state.activate(table, key, f"{source} scored with {len(models)} model(s)", "scoring")
        st.session_state["score.last_report"] = output.report.summary()
        st.session_state["score.last_wide"] = output.wide
        if dropped:
            st.warning(f"{len(dropped)} text(s) had nothing to score (NaN) and were left out: {', '.join(dropped[:10])}"
                       + (" …" if len(dropped) > 10 else ""))
        st.success(f"Scored {table.n + table.m:,} texts with {table.K} model(s); the result is now the active data set.",
                   icon=":material/check_circle:")

if "score.last_report" in st.session_state:
    st.subheader("Last run")
    st.code(st.session_state["score.last_report"], language=None)
    st.download_button("Download the score table (CSV)", st.session_state["score.last_wide"].to_csv(index=False).encode(),
                       file_name="scores.csv", mime="text/csv", key="score.download")
    st.page_link("views/select_page.py", label="Continue to Select", icon=":material/arrow_forward:")
