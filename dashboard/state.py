"""Session-state keys and helpers shared by the frame (app.py) and the pages.

The active data set lives in four keys:

* ``ACTIVE_TABLE`` - the :class:`jecs_core.ScoreTable` every page reads;
* ``ACTIVE_KEY`` - a short string identifying it by content (process-wide caches are keyed on
  it, so two sessions share a cache entry only when their tables are the same);
* ``ACTIVE_NAME`` - its display name;
* ``ACTIVE_ORIGIN`` - ``"sample"``, ``"upload"`` or ``"scoring"``.

The URL carries the data set (``sample`` and ``score`` for a bundled sample, ``data`` for an
upload or a scoring result) so F5 or a shared link reopens it; the Select page adds its
own keys (``alpha``, ``lam``, ``knn``, ``method``, ``fig``, ``alpha2``, ``delta``).
``UPLOAD_PAYLOAD`` is a hook: a ``(file_name, bytes)`` pair placed there is loaded by the
Data page exactly as an uploaded file would be (tests use it; so can an embedding app).
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from jecs_core import ScoreTable

from . import compute, rule_controls, samples, upload
from .token_store import TokenStore

ACTIVE_TABLE = "jecs.table"
ACTIVE_KEY = "jecs.data_key"
ACTIVE_NAME = "jecs.data_name"
ACTIVE_ORIGIN = "jecs.data_origin"
ACTIVE_TOKEN = "jecs.data_token"
NOTICE = "jecs.notice"

SAMPLE_CHOICE = "jecs.sample"
SAMPLE_SCORE = "jecs.sample_score"
ALPHA = "jecs.alpha"
# The dashboard's one alpha range: every alpha slider and every alpha read from a URL use it.
ALPHA_MIN, ALPHA_MAX, ALPHA_STEP = 0.01, 0.50, 0.01
ALPHA_SLIDER = {"min_value": ALPHA_MIN, "max_value": ALPHA_MAX, "step": ALPHA_STEP, "format": "%.2f"}
# The paper JECS's controls, drawn by rule_controls from the declared options (keys named there).
LAM_MODE = "jecs.lam_mode"
LAM = "jecs.lam"
KNN_MODE = "jecs.knn_mode"
KNN = "jecs.knn"
# The post-hoc bound's error level (URL key ``delta``) and the "commit alpha first" toggle (per session only).
DELTA = "jecs.delta"
DELTA_DEFAULT = 0.10
COMMIT_FIRST = "jecs.commit_first"
UPLOAD_LAYOUT = "jecs.upload_layout"
UPLOAD_LOWER = "jecs.upload_lower_is_member"
UPLOAD_SIGNATURE = "jecs.upload_signature"
UPLOAD_PAYLOAD = "jecs.upload_payload"
UPLOAD_MESSAGE = "jecs.upload_message"

# URL query keys owned by the frame.
URL_SAMPLE, URL_SCORE, URL_DATA = "sample", "score", "data"

AUTO, MANUAL = rule_controls.AUTO, rule_controls.MANUAL

# Widget values that must survive a page switch, with their first values.
PERSISTENT_DEFAULTS = {
    SAMPLE_CHOICE: samples.DEFAULT_SAMPLE,
    SAMPLE_SCORE: None,
    ALPHA: 0.10,
    **rule_controls.session_defaults(),  # every declared rule option's control
    DELTA: DELTA_DEFAULT,
    COMMIT_FIRST: False,
    UPLOAD_LAYOUT: "auto",
    UPLOAD_LOWER: False,
}


@dataclass(frozen=True)
class ActiveData:
    table: ScoreTable
    key: str
    name: str
    origin: str


@dataclass(frozen=True)
class Held:
    """An upload or scoring result held by the server under an unguessable URL token."""

    table: ScoreTable
    key: str
    name: str
    origin: str


# Process-wide, so F5 (a new session) finds the data again through ``?data=<token>``.
HELD_CAPACITY = 4
_HELD: TokenStore[Held] = TokenStore(HELD_CAPACITY)
hold = _HELD.hold
held = _HELD.get


@dataclass(frozen=True)
class UploadOutcome:
    """What the Data page shows after an upload: ``ok`` and the lines of the message."""

    ok: bool
    lines: tuple[str, ...]
    key: str | None = None  # the data key it was made active under


def init_session() -> None:
    """Set defaults once, keep widget values across pages, and load the first data set.

    On a new session the data set named by the URL becomes active: ``?data=<token>`` (an
    upload or scoring result still held by this server), else ``?sample=<key>[&score=<name>]``,
    else the default sample.
    """
    for key, default in PERSISTENT_DEFAULTS.items():
        # Re-assigning a widget key keeps its value when its page is not shown.
        st.session_state[key] = st.session_state.get(key, default)
    if ACTIVE_TABLE in st.session_state:
        return
    token = st.query_params.get(URL_DATA)
    if token:
        item = held(token)
        if item is not None:
            activate(item.table, item.key, item.name, item.origin, token=token)
            return
        st.session_state[NOTICE] = ("The data set in the link is no longer held by this server (it keeps the last "
                                    f"{HELD_CAPACITY} uploads); the default sample is shown instead.")
    requested = st.query_params.get(URL_SAMPLE)
    key = requested if requested in samples.SAMPLES else samples.DEFAULT_SAMPLE
    score = st.query_params.get(URL_SCORE)
    unknown = [name for name, ok in ((URL_SAMPLE, requested in samples.SAMPLES),
                                     (URL_SCORE, score in samples.get(key).scores)) if name in st.query_params and not ok]
    if unknown and NOTICE not in st.session_state:  # names only: the link's own text is never echoed
        st.session_state[NOTICE] = (f"The link's {' and '.join(unknown)} {'is' if len(unknown) == 1 else 'are'} not one "
                                    "this server offers; the default is shown instead.")
    score = score if score in samples.get(key).scores else None
    st.session_state[SAMPLE_CHOICE] = key
    st.session_state[SAMPLE_SCORE] = score or (samples.get(key).scores or (None,))[0]
    activate_sample(key, score)


def activate(table: ScoreTable, key: str, name: str, origin: str, *, token: str | None = None) -> None:
    """Make ``table`` active; uploads and scoring results are also held under a URL token (F5 keeps them)."""
    if origin != "sample" and token is None:
        token = hold(Held(table, key, name, origin))
    st.session_state[ACTIVE_TABLE] = table
    st.session_state[ACTIVE_KEY] = key
    st.session_state[ACTIVE_NAME] = name
    st.session_state[ACTIVE_ORIGIN] = origin
    st.session_state[ACTIVE_TOKEN] = token


def sample_data_key(key: str, score: str | None = None) -> str:
    """The ``data_key`` of a bundled sample (with a detection score other than its first, when given)."""
    return f"sample:{key}" if score is None else f"sample:{key}:{score}"


def sample_of_key(data_key: str) -> tuple[str, str | None] | None:
    """``(sample key, score or None)`` of a bundled sample's :func:`sample_data_key`; ``None`` for any other key."""
    if not data_key.startswith("sample:"):
        return None
    parts = data_key.split(":")
    return parts[1], parts[2] if len(parts) > 2 else None


def _other_score(key: str, score: str | None) -> str | None:
    """``score`` when it picks a detection score other than the sample's first (the default), else ``None``."""
    sample = samples.get(key)
    return None if score is None or not sample.scores or score == sample.scores[0] else score


def chosen_sample_key(key: str, score: str | None = None) -> str:
    """The data key :func:`activate_sample` gives the sample ``key`` picked with ``score``."""
    return sample_data_key(key, _other_score(key, score))


def activate_sample(key: str, score: str | None = None) -> None:
    """Make a bundled sample active; ``score`` picks a detection score for samples that carry several."""
    score, name = _other_score(key, score), samples.get(key).name
    if score is None:  # the call the warm-up and the Select page make, so the cached table is the same one
        activate(compute.load_sample(key), sample_data_key(key), name, "sample")
        return
    activate(compute.load_sample(key, score), sample_data_key(key, score), f"{name} · {score}", "sample")


def active() -> ActiveData:
    s = st.session_state
    return ActiveData(s[ACTIVE_TABLE], s[ACTIVE_KEY], s[ACTIVE_NAME], s[ACTIVE_ORIGIN])


def url_for_active() -> dict[str, str]:
    """The frame's query parameters for the active data set."""
    s = st.session_state
    if s.get(ACTIVE_ORIGIN) != "sample":
        return {URL_DATA: s[ACTIVE_TOKEN]} if s.get(ACTIVE_TOKEN) else {}
    sample, score = sample_of_key(s[ACTIVE_KEY])
    return {URL_SAMPLE: sample, **({URL_SCORE: score} if score is not None else {})}


def sync_url() -> None:
    """Write the active data set into the address bar (only the keys that changed)."""
    wanted = url_for_active()
    for name in (URL_SAMPLE, URL_SCORE, URL_DATA):
        if name not in wanted and name in st.query_params:
            del st.query_params[name]
    set_query(wanted)


def set_query(wanted: dict[str, str]) -> None:
    """Write ``wanted`` into the address bar: only the keys that changed, and a repeated key once."""
    changed = {k: v for k, v in wanted.items() if st.query_params.get_all(k) != [v]}
    if changed:
        st.query_params.update(changed)


def upload_limit_mb() -> float:
    """The upload limit: Streamlit's ``server.maxUploadSize`` (MB), else the package default."""
    try:
        return float(st.get_option("server.maxUploadSize"))
    except Exception:  # option missing in an unusual runtime
        return float(upload.DEFAULT_MAX_UPLOAD_MB)


def load_upload(name: str, data: bytes, file_token: str, progress=None) -> UploadOutcome:
    """Parse an uploaded file once per (file, load options) and make it active when valid.

    ``file_token`` identifies the file (Streamlit's file id, or a hash for the hook);
    ``progress(step)`` is told each stage. The active data set is left unchanged when the
    file is invalid; the outcome lists every problem the data contract found.
    """
    layout, lower = st.session_state[UPLOAD_LAYOUT], bool(st.session_state[UPLOAD_LOWER])
    signature = (file_token, layout, lower)
    if st.session_state.get(UPLOAD_SIGNATURE) == signature:
        return st.session_state[UPLOAD_MESSAGE]
    try:
        table = upload.parse_upload(name, data, layout=layout, lower_is_member=lower, max_mb=upload_limit_mb(),
                                    progress=progress)
    except ValueError as exc:  # ScoreTableError and the contract's other refusals
        outcome = UploadOutcome(False, tuple(upload.problems(name, data, exc)))
    except Exception as exc:  # never show a traceback for a user's file
        outcome = UploadOutcome(False, (f"{name}: could not be loaded ({exc.__class__.__name__}: {exc})",))
    else:
        activate(table, upload.upload_key(table, layout), name, "upload")
        outcome = UploadOutcome(True, (f"Loaded {name}: {table.n:,} test items, {table.m:,} calibration items, "
                                       f"{table.K} models.",), upload.upload_key(table, layout))
    st.session_state[UPLOAD_SIGNATURE] = signature
    st.session_state[UPLOAD_MESSAGE] = outcome
    return outcome
