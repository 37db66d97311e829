"""Run the Monte-Carlo protocol for the Evaluate page and keep the results per data set.

Runs start on a button press (they take seconds), report progress through a
callback, and are stored in session state keyed by the data set and settings,
so switching pages does not lose them and changing a setting never shows a
stale result. :func:`readable` turns a summary or sweep frame into the table the page
shows; :func:`download_frame` adds the provenance columns of the CSV.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from jecs_core import ScoreTable
from jecs_core.evaluate import evaluate, sweep_k, sweep_knn, sweep_lambda, sweep_rho
from jecs_core.io import spreadsheet_safe
from jecs_core.simulate.scenarios import three_block

RESULTS = "jecs.evaluate.results"
SE_NOTE_FALLBACK = ("These standard errors cover only the subsampling noise on this one fixed table, not the "
                    "variation between independent tables of the same design.")


@dataclass(frozen=True)
class RunKey:
    """Everything a result depends on (the data set by its key)."""

    kind: str  # "protocol", "twin" or a sweep name
    data_key: str
    reps: int
    alphas: tuple[float, ...]
    seed: int
    extra: tuple = ()
    methods: tuple[str, ...] | None = None


def stored(key: RunKey):
    return st.session_state.get(RESULTS, {}).get(key)


def store(key: RunKey, value) -> None:
    st.session_state.setdefault(RESULTS, {})[key] = value


def se_note() -> str:
    """The evaluation engine's sentence on what the protocol's SE covers."""
    try:
        from jecs_core.evaluate.summary import SE_SCOPE_NOTE
    except ImportError:
        return SE_NOTE_FALLBACK
    return SE_SCOPE_NOTE


def twin_available() -> bool:
    try:
        from jecs_core.diagnostics import twin_evaluate  # noqa: F401
    except ImportError:
        return False
    return True


def run_protocol(key: RunKey, table: ScoreTable, progress) -> pd.DataFrame:
    """Mean GCP and power with SEs per method x alpha (``Evaluation.summary``)."""
    result = evaluate(table, alphas=key.alphas, reps=key.reps, seed=key.seed, methods=key.methods, progress=progress)
    return result.summary


def run_twin(key: RunKey, table: ScoreTable, progress) -> pd.DataFrame:
    """The unconditional GCR on fresh synthetic twins of the table (``reps`` twin tables per pattern)."""
    from jecs_core.diagnostics import twin_evaluate

    return twin_evaluate(table, alphas=key.alphas, tables=key.reps, seed=key.seed, methods=key.methods,
                         progress=progress).summary


def run_sweep(key: RunKey, table: ScoreTable) -> pd.DataFrame:
    options = {"alphas": key.alphas, "reps": key.reps, "seed": key.seed}
    if key.methods is not None:
        options["methods"] = key.methods
    if key.kind == "lambda":
        return sweep_lambda(table, **options)
    if key.kind == "knn":
        return sweep_knn(table, **options)
    if key.kind == "k":
        return sweep_k(table, **options)
    if key.kind == "rho":
        (n_models,) = key.extra
        pool_seed = np.random.SeedSequence(key.seed)

        def make_table(rho: float):
            # The same pool seed for every rho: only the training fraction changes.
            return three_block(np.random.default_rng(pool_seed), n_models=n_models, rho=rho)

        return sweep_rho(make_table, **options)
    raise ValueError(f"unknown sweep {key.kind!r}")


# Shown columns, in order, with their headers; anything else (method ids, raw flags, repeats) is left out.
_SHOWN = {"setting": "setting", "pattern": "pattern", "label": "rule", "guarantee": "guarantee", "alpha": "α",
          "gcp": "GCP", "gcp_se": "GCP ± SE", "gcr": "GCR", "gcr_se": "GCR ± SE", "gcp_sd": "GCP SD between tables", "power": "power",
          "power_se": "power ± SE", "mean_selected": "mean selected", "over_target": "above α", "over_2se": "above α + 2 SE",
          "fallback_rate": "fallback rate", "jecs_fallback_rate": "fallback rate"}


def readable(frame: pd.DataFrame) -> pd.DataFrame:
    """A summary or sweep frame as a plain table: one column per quantity, text flags, no None."""
    out = pd.DataFrame(index=frame.index)
    for column, header in _SHOWN.items():
        if column not in frame.columns or header in out.columns:
            continue
        values = frame[column]
        if column in ("over_target", "over_2se"):
            values = values.map({True: "† yes", False: ""})
        elif column == "setting":
            values = values.map(lambda v: "auto" if v is None or (isinstance(v, float) and np.isnan(v)) else str(v))
        elif column in ("fallback_rate", "jecs_fallback_rate"):
            if values.isna().all():
                continue
            # Only rules with a fit can fall back; the others get an empty cell, not NaN.
            values = values.map(lambda v: "" if pd.isna(v) else f"{v:.1%}")
        out[header] = values
    return out.reset_index(drop=True)


def download_frame(frame: pd.DataFrame, *, data_name: str, data_key: str, seed: int) -> pd.DataFrame:
    """The frame with the data set's name and key and the seed in front, so the CSV says what it measured."""
    return pd.concat([pd.DataFrame({"data_set": data_name, "data_key": data_key, "seed": seed}, index=frame.index),
                      frame], axis=1)


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """CSV safe to open in a spreadsheet: a data-set name like ``=cmd()`` is written as text."""
    return spreadsheet_safe(frame).to_csv(index=False).encode()
