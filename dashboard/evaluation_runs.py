"""Run the Monte-Carlo protocol for the Evaluate page and keep the results per data set.

Runs start on a button press (they take seconds), report progress through a
callback, and are stored in session state keyed by the data set and settings,
so switching pages does not lose them and changing a setting never shows a
stale result.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from jecs_core import ScoreTable
from jecs_core.evaluate import evaluate, sweep_k, sweep_knn, sweep_lambda, sweep_rho
from jecs_core.simulate.scenarios import three_block

RESULTS = "jecs.evaluate.results"


@dataclass(frozen=True)
class RunKey:
    """Everything a result depends on (the data set by its key)."""

    kind: str  # "protocol" or a sweep name
    data_key: str
    reps: int
    alphas: tuple[float, ...]
    seed: int
    extra: tuple = ()


def stored(key: RunKey):
    return st.session_state.get(RESULTS, {}).get(key)


def store(key: RunKey, value) -> None:
    st.session_state.setdefault(RESULTS, {})[key] = value


def run_protocol(key: RunKey, table: ScoreTable, progress) -> pd.DataFrame:
    """Mean GCP and power with SEs per method x alpha (``Evaluation.summary``)."""
    result = evaluate(table, alphas=key.alphas, reps=key.reps, seed=key.seed, progress=progress)
    return result.summary


def run_sweep(key: RunKey, table: ScoreTable) -> pd.DataFrame:
    options = {"alphas": key.alphas, "reps": key.reps, "seed": key.seed}
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
