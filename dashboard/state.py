"""Session-state keys and helpers shared by the frame (app.py) and the pages.

The active data set lives in four keys:

* ``ACTIVE_TABLE`` - the :class:`jecs_core.ScoreTable` every page reads;
* ``ACTIVE_KEY`` - a short string identifying it (caches are keyed on it);
* ``ACTIVE_NAME`` - its display name;
* ``ACTIVE_ORIGIN`` - ``"sample"`` or ``"upload"``.

Selection settings are widget keys kept alive across page switches by :func:`init_session`.
``UPLOAD_PAYLOAD`` is a hook: a ``(file_name, bytes)`` pair placed there is loaded by the
Data page exactly as an uploaded file would be (tests use it; so can an embedding app).
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from jecs_core import ScoreTable, ScoreTableError

from . import compute, samples, upload

ACTIVE_TABLE = "jecs.table"
ACTIVE_KEY = "jecs.data_key"
ACTIVE_NAME = "jecs.data_name"
ACTIVE_ORIGIN = "jecs.data_origin"

SAMPLE_CHOICE = "jecs.sample"
SAMPLE_SCORE = "jecs.sample_score"
ALPHA = "jecs.alpha"
LAM_MODE = "jecs.lam_mode"
LAM = "jecs.lam"
KNN_MODE = "jecs.knn_mode"
KNN = "jecs.knn"
UPLOAD_LAYOUT = "jecs.upload_layout"
UPLOAD_LOWER = "jecs.upload_lower_is_member"
UPLOAD_SIGNATURE = "jecs.upload_signature"
UPLOAD_PAYLOAD = "jecs.upload_payload"
UPLOAD_MESSAGE = "jecs.upload_message"

AUTO, MANUAL = "Auto", "Manual"

# Widget values that must survive a page switch, with their first values.
PERSISTENT_DEFAULTS = {
    SAMPLE_CHOICE: samples.DEFAULT_SAMPLE,
    ALPHA: 0.10,
    LAM_MODE: AUTO,
    LAM: 0.70,
    KNN_MODE: AUTO,
    KNN: 10,
    UPLOAD_LAYOUT: "auto",
    UPLOAD_LOWER: False,
}


@dataclass(frozen=True)
class ActiveData:
    table: ScoreTable
    key: str
    name: str
    origin: str


def init_session() -> None:
    """Set defaults once, keep widget values across pages, and load the first data set.

    On a new session the sample named by the ``?sample=<key>`` query parameter
    (if registered) or the default sample becomes active.
    """
    for key, default in PERSISTENT_DEFAULTS.items():
        # Re-assigning a widget key keeps its value when its page is not shown.
        st.session_state[key] = st.session_state.get(key, default)
    if ACTIVE_TABLE not in st.session_state:
        requested = st.query_params.get("sample")
        key = requested if requested in samples.SAMPLES else samples.DEFAULT_SAMPLE
        st.session_state[SAMPLE_CHOICE] = key
        activate_sample(key)


def activate(table: ScoreTable, key: str, name: str, origin: str) -> None:
    st.session_state[ACTIVE_TABLE] = table
    st.session_state[ACTIVE_KEY] = key
    st.session_state[ACTIVE_NAME] = name
    st.session_state[ACTIVE_ORIGIN] = origin


def activate_sample(key: str, score: str | None = None) -> None:
    """Make a bundled sample active; ``score`` picks a detection score for samples that carry several."""
    sample = samples.get(key)
    if score is None or not sample.scores or score == sample.scores[0]:
        activate(compute.load_sample(key), f"sample:{key}", sample.name, "sample")
        return
    activate(compute.load_sample(key, score), f"sample:{key}:{score}", f"{sample.name} · {score}", "sample")


def active() -> ActiveData:
    s = st.session_state
    return ActiveData(s[ACTIVE_TABLE], s[ACTIVE_KEY], s[ACTIVE_NAME], s[ACTIVE_ORIGIN])


def lambda_setting():
    """``"auto"`` or the manual lambda, from the Select page's controls."""
    return "auto" if st.session_state[LAM_MODE] == AUTO else float(st.session_state[LAM])


def knn_setting() -> int | None:
    return None if st.session_state[KNN_MODE] == AUTO else int(st.session_state[KNN])


def upload_limit_mb() -> float:
    """The upload limit: Streamlit's ``server.maxUploadSize`` (MB), else the package default."""
    try:
        return float(st.get_option("server.maxUploadSize"))
    except Exception:  # option missing in an unusual runtime
        return float(upload.DEFAULT_MAX_UPLOAD_MB)


def load_upload(name: str, data: bytes, file_token: str) -> tuple[bool, str]:
    """Parse an uploaded file once per (file, load options) and make it active when valid.

    ``file_token`` identifies the file (Streamlit's file id, or a hash for the hook).
    Returns ``(ok, message)``: the readable error of an invalid file, or a confirmation.
    The active data set is left unchanged when the file is invalid.
    """
    layout, lower = st.session_state[UPLOAD_LAYOUT], bool(st.session_state[UPLOAD_LOWER])
    signature = (file_token, layout, lower)
    if st.session_state.get(UPLOAD_SIGNATURE) == signature:
        return st.session_state[UPLOAD_MESSAGE]
    try:
        table = upload.parse_upload(name, data, layout=layout, lower_is_member=lower, max_mb=upload_limit_mb())
    except ScoreTableError as exc:
        outcome = (False, str(exc))
    except Exception as exc:  # never show a traceback for a user's file
        outcome = (False, f"{name}: could not be loaded ({exc.__class__.__name__}: {exc})")
    else:
        activate(table, upload.upload_key(table, layout), name, "upload")
        outcome = (True, f"Loaded {name}: {table.n:,} test items, {table.m:,} calibration items, {table.K} models.")
    st.session_state[UPLOAD_SIGNATURE] = signature
    st.session_state[UPLOAD_MESSAGE] = outcome
    return outcome
