"""'Commit α first': hide every count until α is committed, then lock α and record the times.

The honest alternative to the post-hoc bound: an α fixed before the results were seen keeps the
rule's own guarantee.  While the mode is on and α is not committed the Select page draws no card,
selection, figure, item or export; "Commit α" records α and the UTC time, locks the slider, and the
first display of the results is timed too.  Uncommitting (or turning the mode off) is recorded.
The record lives in this session only (``st.session_state``), and the α values whose results this
session displayed are kept so the report can say whether the committed α had been seen already.
"""

from __future__ import annotations

from datetime import datetime, timezone

import streamlit as st

from . import state

RECORD = "jecs.commit_record"  # {"alpha", "committed_utc", "first_shown_utc"} while committed
LOG = "jecs.commit_log"  # earlier commits, each with the time it was undone
SHOWN = "jecs.alphas_shown"  # alphas whose results this session displayed, in order
URL_COMMIT = "commit"  # ?commit=first opens a session with the mode on, before anything is shown
_URL_READ = "jecs.commit_url_read"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def mode_on() -> bool:
    return bool(st.session_state.get(state.COMMIT_FIRST, False))


def committed() -> dict | None:
    """The commit record while the mode is on and α is committed, else ``None``."""
    return st.session_state.get(RECORD) if mode_on() else None


def _undo(reason: str) -> None:
    record = st.session_state.pop(RECORD, None)
    if record is not None:
        st.session_state.setdefault(LOG, []).append({**record, "undone_utc": _now(), "how": reason})


def _on_mode_change() -> None:
    if not mode_on():
        _undo("commit mode turned off")


def _commit() -> None:
    alpha = round(float(st.session_state[state.ALPHA]), 4)
    st.session_state[RECORD] = {"alpha": float(alpha), "committed_utc": _now(), "first_shown_utc": None,
                                "alphas_shown_before": list(st.session_state.get(SHOWN, []))}


def restore_mode() -> None:
    """Once per session: ``?commit=first`` turns the mode on before the first results are drawn.

    Only the mode travels in a link; a commit and its times stay in the session that made them.
    """
    if st.session_state.get(_URL_READ):
        return
    st.session_state[_URL_READ] = True
    if st.query_params.get(URL_COMMIT) == "first":
        st.session_state[state.COMMIT_FIRST] = True


def mode_toggle(container=None) -> bool:
    """The toggle and the commit / uncommit button.

    Drawn outside the page's fragment: every switch between hidden and shown results is then a
    full run, so the fragment never fills a slot the previous full run left empty.
    """
    where = container or st
    on = where.toggle(
        "Commit α first", key=state.COMMIT_FIRST, on_change=_on_mode_change,
        help="Hide counts and selections until you commit α; α is then locked, and the report states that it was "
        "committed before the results were seen, with the times. The honest alternative to the post-hoc bound.")
    if on and st.session_state.get(RECORD) is None:
        where.button("Commit α", on_click=_commit, type="primary", key="commit-alpha", icon=":material/lock:",
                     help="Fix the α on the slider and show the results.")
    elif on:
        where.button("Uncommit α", on_click=_undo, args=("uncommitted",), key="uncommit-alpha",
                     icon=":material/lock_open:", help="Unlock α (recorded); the results are hidden again.")
    return on


def locked_alpha() -> float | None:
    """The committed α, which the slider must keep (``None``: the slider is free)."""
    record = committed()
    return None if record is None else record["alpha"]


def gate(alpha: float, container=None) -> bool:
    """Whether the results at ``alpha`` may be drawn; says why not, or when α was committed."""
    if not mode_on():
        return True
    where = container or st
    record = committed()
    if record is None:
        where.info(f"Counts hidden: choose α (now {alpha:g}), then press Commit α. The results appear only after "
                   "the commit.", icon=":material/visibility_off:")
        return False
    if record["first_shown_utc"] is None:
        record["first_shown_utc"] = _now()
    where.caption(statement(record))
    return True


def note_shown(alpha: float) -> None:
    """Remember that this session displayed the results at ``alpha``."""
    seen = st.session_state.setdefault(SHOWN, [])
    if float(alpha) not in seen:
        seen.append(float(alpha))


def report_record() -> dict | None:
    """The commit statement for the report and sidecar: the record, earlier undone commits, the statement."""
    record = committed()
    if record is None:
        return None
    return {**record, "undone_earlier": [dict(r) for r in st.session_state.get(LOG, [])], "statement": statement(record)}


def statement(record: dict) -> str:
    """In words: α, when it was committed, when the results were first shown, and what was seen before."""
    alpha, before = record["alpha"], record.get("alphas_shown_before") or []
    shown = record.get("first_shown_utc")
    text = f"α = {alpha:g} was committed at {record['committed_utc']} UTC"
    if alpha in before:
        text += (", but this session had displayed the results at that α before the commit, so the commit does not "
                 "fix α before looking")
    else:
        text += ", before the results at that α were seen"
    text += f"; results first shown at {shown} UTC." if shown else "; results not shown yet."
    others = [f"{a:g}" for a in before if a != alpha]
    if others:
        text += f" Before the commit this session displayed results at α = {', '.join(others)}."
    return text
