"""Per-item results the Leaderboard page ranks on: the sample's file or this session's upload.

An upload is results tables (CSV or Parquet, long or wide: one, or several each holding other
models) or lm-eval ``--log_samples`` logs, one JSONL per model, named in upload order.  Uploaded bytes are parsed in memory by
:mod:`jecs_core.leaderboard` and held process-wide only under an unguessable token
(``?results=<token>``), so F5 or a shared link finds them and no other session can.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import streamlit as st

from jecs_core.formats import JSONL_SUFFIXES, suffix
from jecs_core.leaderboard import ResultsTable, combine_results, load_results_bytes
from jecs_core.leaderboard.lmeval import parse_samples_lines, samples_table

from . import state, upload
from .token_store import TokenStore

RESULTS = "jecs.lb_results"  # this session's uploaded results: (token, ResultsFile)
RESULTS_SIGNATURE = "jecs.lb_results_signature"
RESULTS_PAYLOAD = "jecs.lb_results_payload"  # a (name, bytes) pair, or a list of them, loads like an upload (tests)
LOG_MODELS = "jecs.lb_log_models"  # the model of each uploaded lm-eval sample log, in upload order
LOG_ID_FIELD = "jecs.lb_log_id_field"  # a field of each log's ``doc`` naming the item (default: doc_id)
RESULT_TYPES = ("csv", "parquet", "jsonl")


@dataclass(frozen=True)
class ResultsFile:
    """Per-item results as bytes, named: one table, several tables, or lm-eval sample logs with their models.

    ``key`` identifies the content (the cache key, never the name).
    """

    name: str
    data: bytes
    origin: str  # "sample" or "upload"
    logs: tuple[tuple[str, str, bytes], ...] = ()  # (model, file name, bytes) per lm-eval sample log
    id_field: str | None = None  # the logs' item id: this field of ``doc``, else doc_id
    tables: tuple[tuple[str, bytes], ...] = ()  # (file name, bytes) per table, when several were uploaded

    @property
    def key(self) -> str:
        digest = hashlib.sha256(self.data)
        for model, name, data in self.logs:
            digest.update(f"\0{model}\0{name}\0".encode() + hashlib.sha256(data).digest())
        for name, data in self.tables:
            digest.update(f"\0{name}\0".encode() + hashlib.sha256(data).digest())
        digest.update(f"\0{self.id_field}".encode())
        return digest.hexdigest()[:24]

    def load(self, metric: str | None) -> ResultsTable:
        """The :class:`ResultsTable` (``ValueError`` with a one-line reason when the content is refused)."""
        if self.tables:
            return combine_results([load_results_bytes(data, name, metric=metric) for name, data in self.tables])
        if not self.logs:
            return load_results_bytes(self.data, self.name, metric=metric)
        key = metric or "acc"
        per_model = {}
        for model, name, data in self.logs:
            per_model[model] = parse_samples_lines(data.splitlines(), metric=key, id_field=self.id_field, source=name)
        return samples_table(per_model, metric=key, source=self.name)


HELD_CAPACITY = 8
_HELD: TokenStore[ResultsFile] = TokenStore(HELD_CAPACITY)
hold = _HELD.hold
held = _HELD.get


def _received(uploaded) -> ResultsFile | None:
    """The uploaded file(s) as one :class:`ResultsFile` (``ValueError``: the upload cannot be used as it is)."""
    payload = st.session_state.pop(RESULTS_PAYLOAD, None)
    files = [payload] if payload is not None and not isinstance(payload, list) else payload
    files = files or [(f.name, f.getvalue()) for f in (uploaded or [])]
    if not files:
        return None
    logs = [(str(n), bytes(d)) for n, d in files if suffix(n) in JSONL_SUFFIXES]
    if not logs:
        if len(files) > 1:  # each holds other models (one file per model, say); combined on load
            tables = tuple((str(n), bytes(d)) for n, d in files)
            return ResultsFile(", ".join(n for n, _ in tables), b"", "upload", tables=tables)
        return ResultsFile(str(files[0][0]), bytes(files[0][1]), "upload")
    if len(logs) != len(files):
        raise ValueError("a results table and lm-eval sample logs uploaded together; upload one kind")
    models = [m.strip() for m in str(st.session_state[LOG_MODELS]).split(",") if m.strip()]
    if len(models) != len(logs):
        raise ValueError(f"{len(logs)} lm-eval sample log(s) uploaded: name the model of each, in upload order, "
                         f"under 'Models of the sample logs' (got {len(models)} name(s))")
    if len(set(models)) != len(models):
        raise ValueError(f"a model is named twice in 'Models of the sample logs': {models}")
    name = ", ".join(n for n, _ in logs)
    id_field = str(st.session_state.get(LOG_ID_FIELD) or "").strip() or None
    return ResultsFile(name, b"", "upload", tuple((m, n, d) for m, (n, d) in zip(models, logs)), id_field)


def take_upload(uploaded) -> str | None:
    """Hold newly uploaded results for this session; returns a one-line problem, or ``None``.

    ``uploaded`` is Streamlit's list of files; a ``(name, bytes)`` pair (or a list of them)
    placed under :data:`RESULTS_PAYLOAD` is taken instead (tests).
    """
    s = st.session_state
    try:
        item = _received(uploaded)
    except ValueError as exc:
        return str(exc)
    if item is None:
        return None
    for name, data in item.tables or ((item.name, item.data),):  # before anything decodes a Parquet file
        problem = upload.parquet_footprint_problem(name, data, state.upload_limit_mb())
        if problem:
            return problem
    signature = item.key + item.name
    if s.get(RESULTS_SIGNATURE) != signature:
        s[RESULTS] = (hold(item), item)
        s[RESULTS_SIGNATURE] = signature
    return None


def forget_upload() -> None:
    st.session_state.pop(RESULTS, None)
    st.session_state.pop(RESULTS_SIGNATURE, None)
