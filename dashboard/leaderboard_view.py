"""Sections and state of the Leaderboard page (``views/leaderboard_page.py`` arranges them).

The page ranks the active data set's models on the clean subset the Select page's rule
picks at the same α (the shared ``alpha`` and ``method`` keys), from per-item results:
the ones a sample ships (``Sample.results_file``) or a file the user uploads.  Every
number comes from :func:`jecs_core.leaderboard.leaderboard`; nothing is computed here.

Uploads are taken in by :mod:`dashboard.leaderboard_results` (per session). When the active data set has neither
shipped nor uploaded results, the page shows the shipped leaderboard sample instead and
says so.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from functools import partial

import pandas as pd
import streamlit as st

from jecs_core import DEFAULT_METHOD, REGISTRY, ScoreTable
from jecs_core.io import csv_bytes
from jecs_core.leaderboard import LeaderboardWarning, by_rank, leaderboard

from . import compute, posthoc_view, rule_controls, samples, select_view, shift_view, state
from .leaderboard_results import LOG_ID_FIELD, LOG_MODELS, RESULTS, ResultsFile, held
from .plain import escape
from .report import ReportInputs, build_report
from .rule_controls import RuleSettings
from .select_view import METHOD
from .select_view import URL_LOADED as SELECT_URL_LOADED

# METHOD is shared with the Select page: the clean subset is its selection.
METRIC = "jecs.lb_metric"
URL_LOADED = "jecs.lb_url_loaded"
URL_RESULTS, URL_METRIC = "results", "metric"
RESULTS_NOTICE = "jecs.lb_results_notice"


def _opening_alpha(data: state.ActiveData) -> float | None:
    """The α of the sample this page shows (``Sample.alpha``): the active one if it ships results, else the fallback."""
    sample = samples.SAMPLES.get(data.key.split(":")[1]) if data.origin == "sample" else None
    if sample is None or sample.results_file is None:
        sample = samples.SAMPLES.get(samples.LEADERBOARD_SAMPLE)
    return sample.alpha if sample is not None else None


def restore_state(data: state.ActiveData) -> None:
    """Keep the page's values across pages and, once per session, read ``alpha``, ``method``, ``metric``, ``results``.

    A session that opens here with no α in the URL (and has not been on the Select page)
    starts at the shown sample's own α, when it has one.
    """
    s = st.session_state
    s[METHOD] = s.get(METHOD, DEFAULT_METHOD)
    s[METRIC] = s.get(METRIC, "")
    s[LOG_MODELS] = s.get(LOG_MODELS, "")
    s[LOG_ID_FIELD] = s.get(LOG_ID_FIELD, "")
    if s.get(URL_LOADED):
        return
    s[URL_LOADED] = True
    q = st.query_params
    alpha = select_view.link_number(q.get("alpha"), state.ALPHA_MIN, state.ALPHA_MAX)
    if alpha is not None:
        s[state.ALPHA] = round(alpha, 2)
    elif not s.get(SELECT_URL_LOADED) and _opening_alpha(data) is not None:
        s[state.ALPHA] = _opening_alpha(data)
    if q.get("method") in REGISTRY:
        s[METHOD] = q["method"]
    ignored = [key for key, ok in (("alpha", alpha is not None),
                                   ("method", q.get("method") in REGISTRY)) if key in q and not ok]
    if not s.get(SELECT_URL_LOADED):  # else the Select page read the link, and the controls are what was chosen
        ignored += rule_controls.restore_from_url(q)  # since (its URL shows the options this table allows)
    select_view.note_ignored(ignored)
    if q.get(URL_METRIC):
        s[METRIC] = str(q[URL_METRIC])[:100]
    token = q.get(URL_RESULTS)
    if token:
        item = held(token)
        if item is not None:
            s[RESULTS] = (token, item)
        else:
            # Said on this page, the one the link opens (the frame's notice shows on Select and Data only).
            st.session_state[RESULTS_NOTICE] = "The results in the link are no longer held by this server; upload them again."


def write_url(alpha: float, settings: RuleSettings, delta: float) -> None:
    """The page's state in the address bar (the data set is the frame's), rule options and δ included."""
    s = st.session_state
    wanted = {"alpha": f"{alpha:g}", "method": s[METHOD], **rule_controls.url_values(settings),
              posthoc_view.URL_DELTA: f"{delta:g}"}
    if s[METRIC].strip():
        wanted[URL_METRIC] = s[METRIC].strip()
    elif URL_METRIC in st.query_params:
        del st.query_params[URL_METRIC]
    upload = s.get(RESULTS)
    if upload is not None:
        wanted[URL_RESULTS] = upload[0]
    elif URL_RESULTS in st.query_params:
        del st.query_params[URL_RESULTS]
    state.set_query(wanted)


@dataclass(frozen=True)
class Subject:
    """What the page ranks: a score table, its cache key and name, and the results to rank it on."""

    table: ScoreTable
    key: str
    name: str
    results: ResultsFile | None
    fallback: bool  # True when the leaderboard sample stands in for an active data set without results


def _sample_results(key: str) -> ResultsFile | None:
    sample = samples.SAMPLES.get(key)
    if sample is None or sample.results_file is None or not sample.results_file.is_file():
        return None
    return ResultsFile(sample.results_file.name, _read_shipped(str(sample.results_file)), "sample")


@st.cache_data(show_spinner=False, max_entries=4)
def _read_shipped(path: str) -> bytes:
    # Only the paths the sample registry names reach here, never a path a user typed.
    with open(path, "rb") as handle:
        return handle.read()


def subject(data: state.ActiveData) -> Subject:
    """The active data set with this session's upload or its shipped results; else the leaderboard sample."""
    upload = st.session_state.get(RESULTS)
    if upload is not None:
        return Subject(data.table, data.key, data.name, upload[1], False)
    found = state.sample_of_key(data.key) if data.origin == "sample" else None
    sample_key = None if found is None else found[0]
    shipped = _sample_results(sample_key) if sample_key else None
    if shipped is not None or samples.LEADERBOARD_SAMPLE not in samples.SAMPLES:
        return Subject(data.table, data.key, data.name, shipped, False)
    key = samples.LEADERBOARD_SAMPLE
    return Subject(compute.load_sample(key), state.sample_data_key(key), samples.get(key).name, _sample_results(key), True)


@st.cache_resource(show_spinner="Ranking the models...", max_entries=32)
def _board(data_key: str, results_key: str, metric: str, alpha: float, method: str, settings: RuleSettings,
           delta: float, _table: ScoreTable, _results: ResultsFile):
    results = _results.load(metric or None)
    with warnings.catch_warnings():  # the mismatches are on the board (``warnings``) and shown on the page
        warnings.simplefilter("ignore", LeaderboardWarning)
        # leaderboard() takes the paper JECS's options (lam, knn, lambda_grid) and hands each rule its own.
        return leaderboard(_table, results, alpha=alpha, method=method, delta=delta, **settings.for_rule("jecs"),
                           pvalues=compute.pvalues(data_key, _table))


def rule_settings(subject: Subject) -> tuple[RuleSettings, float]:
    """The rule options and δ of the Select page, as this table allows them, named under the controls."""
    settings, problem = rule_controls.usable(rule_controls.current(),
                                             lambda chosen: compute.fits(subject.key, chosen, subject.table))
    if problem:
        st.warning(escape(problem), icon=":material/warning:")
    delta = posthoc_view.current_delta()
    options = [f"{key} = {text}" for key, text in rule_controls.url_values(settings).items()]
    st.caption(f"Set on the Select page: {', '.join(options)} (the paper's JECS); post-hoc δ = {delta:g}.")
    return settings, delta


def board(subject: Subject, metric: str, alpha: float, method: str, settings: RuleSettings, *, delta: float):
    """``(Leaderboard, None)``, or ``(None, one-line message)`` when the results cannot be used."""
    try:
        return _board(subject.key, subject.results.key, metric, round(float(alpha), 4), method, settings, delta,
                      subject.table, subject.results), None
    except ValueError as exc:
        return None, _named(subject.results.name, " ".join(str(exc).split()))
    except Exception as exc:  # never a traceback for a user's file
        return None, f"{subject.results.name}: could not be used ({exc.__class__.__name__}: {' '.join(str(exc).split())})"


def _named(name: str, message: str) -> str:
    """``message`` led by the file's name, once (the readers name it themselves)."""
    return message if message.startswith(f"{name}:") else f"{name}: {message}"


def error_line(message: str) -> None:
    st.error(escape(message), icon=":material/error:")


TABLE_COLUMNS = {
    "model": "Model", "rank_clean": "Rank (clean)", "rank_all": "Rank (full)", "accuracy_clean": "Clean",
    "ci_low": "95% low", "ci_high": "95% high", "bound_low": "Range low", "bound_high": "Range high",
    "accuracy_all": "Full", "inflation": "Inflation", "inflation_low": "Inflation low",
    "inflation_high": "Inflation high", "n_clean": "Clean items", "n_all": "All items",
}


def table_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """The leaderboard's columns the table shows, best clean rank first, with readable headers."""
    shown = [c for c in TABLE_COLUMNS if c in frame.columns]
    return by_rank(frame)[shown].rename(columns=TABLE_COLUMNS)


FIGURE_CAPTION = ("Hollow dot: the model's mean on the full benchmark; filled dot: on the clean subset, with its "
                  "95% interval; shaded band: the range of its mean on the truly clean items if the contaminated "
                  "items the subset may still hold were all answered right or all wrong. The arrow runs from full "
                  "to clean; the right margin gives the rank on each (▲ gained, ▼ lost).")
TABLE_CAPTION = ("Rank 1 is the best. The 95% interval is Wilson's for a 0/1 metric, a bootstrap otherwise; "
                 "inflation is full minus clean, with its interval. 'Range' bounds the mean on the truly clean "
                 "items (see the figure).")


def summary_cards(board) -> None:
    """Three numbers: the clean subset's size, how many models change rank, the largest inflation."""
    frame = board.frame
    moved = int((frame["move"].fillna(0) != 0).sum())  # a model without one of the ranks does not count
    inflation = frame["inflation"].dropna()  # a model without results on the clean items has none
    cols = st.columns(3)
    cols[0].metric("Clean items", f"{int(frame['n_clean'].max()):,} of {int(frame['n_all'].max()):,}",
                   help="Test items the rule selects at this α; every model is ranked on these.")
    cols[1].metric("Models that change rank", f"{moved} of {len(frame)}")
    help_text = "Full-benchmark mean minus clean-subset mean; the model is named below."
    if inflation.empty:
        cols[2].metric("Largest inflation", "–", help=help_text)
        cols[2].text("(no model has results on the clean items)")
    else:
        worst = frame.loc[inflation.idxmax()]
        cols[2].metric("Largest inflation", f"{float(worst['inflation']):+.3f}", help=help_text)
        if float(worst["inflation"]) > 0:
            cols[2].text(f"({worst['model']})")
        else:  # every model does at least as well on the clean items as on all of them
            cols[2].text("(no inflation: each model scores at least as well on the clean items)")
    st.caption(f"With {1 - board.delta:.0%} confidence the {board.n_clean:,} clean items hold at most "
               f"{board.max_contaminated:,} contaminated ones (post-hoc bound); the ranges on the truly clean items "
               "follow from that number.")


def pairwise_section(board) -> None:
    """The pairwise comparisons on the clean subset (paired on the shared items, multiplicity-adjusted)."""
    pairs = board.pairwise
    if pairs.empty:
        return
    with st.expander("Which rank differences on the clean subset are significant?"):
        st.caption("Each pair of models compared on the same clean items; the p-values are adjusted for "
                   "the number of pairs.")
        st.dataframe(pairs, hide_index=True, key="leaderboard-pairs")


def has_clean_items(board) -> bool:
    """False (and says so) when the rule selects no test item: there is nothing to rank on."""
    if board.n_clean:
        return True
    st.warning(f"{REGISTRY[board.method].label} selects no test item at α = {board.alpha:g}, so there is no clean "
               "subset to rank on. Raise α or pick another rule.", icon=":material/warning:")
    return False


def warning_lines(board) -> None:
    """Each mismatch between the results and the score table, counted (nothing is dropped silently)."""
    for line in board.warnings:
        st.warning(escape(line), icon=":material/warning:")


def _report_bytes(subject: Subject, board, alpha: float, settings: RuleSettings) -> bytes:
    comparison = compute.comparison(subject.key, alpha, settings, subject.table)
    inputs = ReportInputs(table=subject.table, comparison=comparison, method=board.method, data_name=subject.name,
                          options=settings, leaderboard=board, shift=shift_view.record(subject.key, subject.table) or None)
    return build_report(inputs).encode("utf-8")


def downloads(board, subject: Subject, alpha: float, settings: RuleSettings) -> None:
    """The leaderboard as CSV and the audit report with its leaderboard section (both built on click)."""
    stem = "".join(ch if ch.isalnum() else "-" for ch in subject.name).strip("-").lower()[:60] or "data"
    row = st.columns(2)
    row[0].download_button("Leaderboard CSV", partial(leaderboard_csv, board),
                           file_name=f"jecs_leaderboard_{stem}_alpha{alpha:.2f}.csv", mime="text/csv",
                           on_click="ignore", icon=":material/download:", type="primary", key="download-leaderboard")
    row[1].download_button("Audit report with the leaderboard (HTML)",
                           partial(_report_bytes, subject, board, alpha, settings),
                           file_name=f"jecs_report_{stem}_leaderboard_alpha{alpha:.2f}.html", mime="text/html",
                           on_click="ignore", icon=":material/summarize:", key="download-leaderboard-report")


def leaderboard_csv(board) -> bytes:
    """The leaderboard's frame as the CSV ``jecs leaderboard --out`` writes (spreadsheet-safe cells)."""
    return csv_bytes(board.frame)
