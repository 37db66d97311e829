"""Cached jecs_core computations.

Everything expensive is keyed on a short ``data_key`` string (the sample key, or the
upload's SHA-256 plus load options) rather than on the table itself, so a cache
hit costs a dictionary lookup, not a hash of the score matrix.  The table is passed
as ``_table`` (leading underscore: Streamlit does not hash it).

* p-values: per data set;
* the alpha-free JECS fit: per (data, lam, knn);
* moving alpha only reruns the step-ups (:func:`comparison`, not cached: milliseconds).
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from jecs_core import Comparison, JECSFit, ScoreTable, compare_pvalues, conformal_pvalues, fit_jecs

from . import samples


@st.cache_data(show_spinner="Loading sample...", max_entries=8)
def load_sample(key: str, score: str | None = None) -> ScoreTable:
    return samples.get(key).load(score)


@st.cache_data(show_spinner=False, max_entries=16)
def pvalues(data_key: str, _table: ScoreTable) -> np.ndarray:
    """Per-model conformal p-values of the test items, shape (n, K)."""
    return conformal_pvalues(_table.test, _table.calibration)


@st.cache_data(show_spinner=False, max_entries=64)
def jecs_fit(data_key: str, lam, knn: int | None, _table: ScoreTable) -> JECSFit:
    """The alpha-free JECS fit (lambda choice, envelope, transformed values, pi0)."""
    return fit_jecs(pvalues(data_key, _table).max(axis=1), lam=lam, knn=knn, warn=False)


def comparison(data_key: str, alpha: float, lam, knn: int | None, table: ScoreTable) -> Comparison:
    """All four selections at ``alpha``, reusing the cached p-values and JECS fit."""
    return compare_pvalues(
        pvalues(data_key, table),
        alpha=alpha,
        lam=lam,
        knn=knn,
        models=table.models,
        contaminated=table.contaminated,
        fits={"jecs": jecs_fit(data_key, lam, knn, table)},
    )
