"""The Score page's form and its run (split from views/score_page.py to keep each short).

Imports ``scoring`` only when called, so the dashboard runs without the optional extra.
"""

from __future__ import annotations

import streamlit as st

from jecs_core.io import spreadsheet_safe

from . import scoring_run, state
from .plain import escape
from .settings import OperatorSettings

LAST_REPORT, LAST_WIDE = "score.last_report", "score.last_wide"


def _score_choices():
    from scoring import DEFAULT_SCORE, SCORE_LABELS
    from scoring.registry import active_scores

    names = list(active_scores(reference=False))  # scores that need a reference model are not offered here
    return names, names.index(DEFAULT_SCORE) if DEFAULT_SCORE in names else 0, SCORE_LABELS


def _inputs():
    from scoring.settings import DEFAULT_MAX_LENGTH  # the CLI's --max-length default

    names, default, labels = _score_choices()
    with st.container(border=True):
        left, right = st.columns(2, gap="large")
        left.text_area(
            "Models (NAME=PATH, one per line)", key="score.models", height=140,
            placeholder="base=models/smollm2-135m\ntuned=models/run-7/model.gguf",
            help="Local Hugging Face model directories (safetensors), or a .gguf file, inside the allowed "
            "directories. Nothing is downloaded; remote code is never run.",
        )
        right.file_uploader("Texts table (CSV or Parquet)", type=["csv", "parquet"], key="score.texts_upload",
                            help="Columns item_id, split (calibration/test), text, optional member_<model> labels.")
        right.text_input("…or a path to the texts table on this server", key="score.texts_path")
        c1, c2, c3, c4 = st.columns(4)
        c1.selectbox("Score for the selection", names, index=default, key="score.name",
                     format_func=lambda s: labels.get(s, s).split(" (")[0],
                     help="Every score is computed and kept; this one becomes the active data set. "
                     + " · ".join(labels.get(n, n) for n in names))
        c2.number_input("Max tokens per text", 8, 8192, DEFAULT_MAX_LENGTH, 8, key="score.max_length",
                        help="Longer texts are truncated (the report says how many).")
        c3.number_input("k for Min-K% / Min-K%++", 0.01, 1.0, 0.2, 0.05, key="score.k")
        c4.toggle("Prepend BOS", value=False, key="score.bos",
                  help="Score the first token too, for tokenizers that add no BOS.")


def _texts(settings: OperatorSettings):
    upload = st.session_state.get("score.texts_upload")
    path = (st.session_state.get("score.texts_path") or "").strip()
    if upload is not None:
        return scoring_run.read_uploaded_texts(upload.name, upload.getvalue()), upload.name
    if path:
        return scoring_run.read_texts_path(path, settings), path.replace("\\", "/").rsplit("/", 1)[-1]
    raise ValueError("texts: upload a texts table or give its path")


def _run(settings: OperatorSettings) -> None:
    from scoring import SCORE_LABELS, ScoreSettings, run_scoring

    s = st.session_state
    models = scoring_run.resolve_models(scoring_run.parse_model_lines(s["score.models"] or ""), settings)
    texts, source = _texts(settings)
    score = s["score.name"]
    options = ScoreSettings(k_mink=float(s["score.k"]), k_minkpp=float(s["score.k"]),
                            max_length=int(s["score.max_length"]), prepend_bos=bool(s["score.bos"]))
    cache_dir = scoring_run.session_cache_dir(settings, s)
    bar = st.progress(0.0, text="Loading the first model…")
    progress = scoring_run.Progress()

    def poll(p: scoring_run.Progress) -> None:
        bar.progress(min(1.0, p.done / p.total) if p.total else 0.0, text=p.text())

    output = scoring_run.run_in_worker(
        lambda: run_scoring(texts, models, score, settings=options, progress=progress, cache_dir=cache_dir),
        progress, poll)
    bar.empty()
    table, dropped = scoring_run.scored_table(output.wide, source=f"scored: {source} ({SCORE_LABELS[score]})")
    key = scoring_run.content_key(output.wide, score, options)
    state.activate(table, key, f"{source} scored with {len(models)} model(s)", "scoring")
    s[LAST_REPORT] = output.report.summary()
    s[LAST_WIDE] = output.wide
    for note in output.report.notes:  # names a model path the operator allowed; drawn as text
        st.warning(escape(note), icon=":material/warning:")
    if dropped:
        st.warning(f"{len(dropped)} text(s) had nothing to score (NaN) and were left out:")
        st.text(", ".join(dropped[:10]) + (" …" if len(dropped) > 10 else ""))
    st.success(f"Scored {table.n + table.m:,} texts with {table.K} model(s); the result is now the active data set.",
               icon=":material/check_circle:")


def form(settings: OperatorSettings) -> None:
    """The inputs, the run button, and the run with live progress; errors as one message, never a traceback."""
    _inputs()
    if not st.button("Score and use as the active data set", type="primary", icon=":material/play_arrow:",
                     key="score.run"):
        return
    try:
        _run(settings)
    except (ValueError, OSError) as exc:
        st.error(escape(exc), icon=":material/error:")
    except Exception as exc:  # a model that fails to load or run: say so, never a traceback
        st.error(escape(f"Scoring failed: {exc.__class__.__name__}: {exc}"), icon=":material/error:")


def download_bytes(wide) -> bytes:
    """The score table as CSV, safe to open in a spreadsheet (formula-leading text cells neutralised)."""
    return spreadsheet_safe(wide).to_csv(index=False).encode()


def last_run() -> None:
    """The last run's report and its score table (spreadsheet-safe CSV)."""
    s = st.session_state
    if LAST_REPORT not in s:
        return
    st.subheader("Last run")
    st.code(s[LAST_REPORT], language=None, wrap_lines=True)  # long lines (paths, notes) wrap, not cut off
    st.download_button("Download the score table (CSV)", download_bytes(s[LAST_WIDE]),
                       file_name="scores.csv", mime="text/csv", key="score.download", icon=":material/download:")
    st.page_link("views/select_page.py", label="Continue to Select", icon=":material/arrow_forward:")
