"""Cached jecs_core computations.

Everything expensive is keyed on a short ``data_key`` string (the sample key, or the
upload's SHA-256 plus load options) rather than on the table itself, so a cache
hit costs a dictionary lookup, not a hash of the score matrix.  The table is passed
as ``_table`` (leading underscore: Streamlit does not hash it).

* p-values: per data set, only through :func:`jecs_core.table_pvalues` (the one path), or its
  covariate-aware form when the data set's key names covariates (:mod:`dashboard.shift_keys`);
* the alpha-free fits of every registered rule that has one: per (data, rule settings), each
  rule fitted with the options it declares (:class:`dashboard.rule_controls.RuleSettings`);
* moving alpha only reruns the step-ups (:func:`comparison`, not cached: milliseconds).

``st.cache_resource`` (not ``cache_data``): the results are read-only arrays and frozen
dataclasses, so sharing one object avoids copying (and pickling) a 10^6 x 16 matrix on
every rerun.  Keys are content-derived, so two sessions never see each other's data
under one key.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import streamlit as st

from jecs_core import REGISTRY, Comparison, ScoreTable, compare_pvalues, table_pvalues

from . import samples, shift_keys
from .rule_controls import RuleSettings


@st.cache_data(show_spinner="Loading sample...", max_entries=8)
def load_sample(key: str, score: str | None = None) -> ScoreTable:
    return samples.get(key).load(score)


@st.cache_resource(show_spinner="Computing conformal p-values...", max_entries=8)
def pvalues(data_key: str, _table: ScoreTable) -> np.ndarray:
    """Per-model conformal p-values of the test items, shape (n, K), read-only.

    Covariate-aware when ``data_key`` names covariates (:mod:`dashboard.shift_keys`).
    """
    p = table_pvalues(_table) if shift_keys.spec(data_key) is None else shift_pvalues(data_key, _table).pvalues
    p.setflags(write=False)
    return p


@st.cache_resource(show_spinner="Computing covariate-aware p-values...", max_entries=8)
def shift_pvalues(data_key: str, _table: ScoreTable):
    """The covariate-aware p-values ``data_key`` names, with the method used and why
    (:class:`jecs_core.shift.ShiftPValues`); a ``ValueError`` names what the table cannot give."""
    from jecs_core.shift.table import table_shift_pvalues  # scikit-learn: only for these

    covariates, method = shift_keys.spec(data_key)
    return table_shift_pvalues(_table, covariates=covariates, method=method)


@st.cache_resource(show_spinner="Fitting the rules...", max_entries=32)
def fits(data_key: str, settings: RuleSettings, _table: ScoreTable) -> Mapping[str, object]:
    """Alpha-free fits (``Rule.prepare``) of every registered rule that has its own ``fit``.

    Each rule gets only the options it declares; rules without a fit are re-run per alpha by
    :func:`jecs_core.compare_pvalues`.
    """
    p = pvalues(data_key, _table)
    return {name: rule.prepare(p, **settings.for_rule(name)) for name, rule in REGISTRY.items() if rule.fit is not None}


def comparison(data_key: str, alpha: float, settings: RuleSettings, table: ScoreTable) -> Comparison:
    """Every registered rule at ``alpha``, reusing the cached p-values and alpha-free fits."""
    return _comparison(data_key, round(float(alpha), 4), settings, table)


@st.cache_resource(show_spinner=False, max_entries=16)
def _comparison(data_key: str, alpha: float, settings: RuleSettings, _table: ScoreTable) -> Comparison:
    # Cached too: dragging alpha back and forth revisits values, and rules without an
    # alpha-free fit (per-model BH, JMCS) re-sort 10^6 x K p-values on every new alpha.
    return compare_pvalues(pvalues(data_key, _table), alpha=alpha, models=_table.models,
                           contaminated=_table.contaminated, fits=fits(data_key, settings, _table), **settings)


@st.cache_resource(show_spinner=False, max_entries=16)
def summary(data_key: str, alpha: float, settings: RuleSettings, _comparison: Comparison):
    """``comparison.summary()`` once per setting (the cards and notes read it)."""
    return _comparison.summary()


@st.cache_resource(show_spinner="Computing audit diagnostics...", max_entries=8)
def diagnostics(data_key: str, alpha: float, settings: RuleSettings, _table: ScoreTable):
    """The label-free audit diagnostics of :mod:`jecs_core.diagnostics` (they judge the paper's JECS, so
    they take its options), or ``None`` for a table too small for them."""
    from .report import audit_diagnostics_or_none

    return audit_diagnostics_or_none(_table, alpha=alpha, **settings.for_rule("jecs"))


# Tables (plain keys) whose near-duplicate pass someone asked for above the page's limit, up to the
# command line's; keys are content-derived, so the choice only ever widens a check on the same data.
_NEAR_IN_FULL: set[str] = set()


def near_max(data_key: str) -> int:
    """The most test texts the near-duplicate pass takes for this table: the page's limit, or the command
    line's once :func:`check_near_duplicates_in_full` was called for it."""
    from jecs_core.checks.duplicates import NEAR_MAX_TEXTS

    from .explain import NEAR_MAX_TEXTS_PAGE

    return NEAR_MAX_TEXTS if shift_keys.base_key(data_key) in _NEAR_IN_FULL else NEAR_MAX_TEXTS_PAGE


def near_pass_skipped(data_key: str, table: ScoreTable) -> bool:
    """True when the page skipped the near-duplicate pass on a table the command line would check."""
    from jecs_core.checks.duplicates import near_pass_limited

    return near_pass_limited(table, near_max(data_key))


def check_near_duplicates_in_full(data_key: str) -> None:
    """From now on, look for near-duplicate texts in this table up to the command line's limit."""
    _NEAR_IN_FULL.add(shift_keys.base_key(data_key))


def cluster_key(data_key: str) -> str:
    """The key of the per-cluster results: the clusters change when the near-duplicate pass widens."""
    return f"{data_key}:cluster:{near_max(data_key)}"


def duplicates(data_key: str, _table: ScoreTable):
    """Duplicated test items and their clusters (:func:`jecs_core.checks.find_duplicates`); near-duplicate
    texts only up to :func:`near_max` items (a note says so above it). Computed once per table:
    covariate-aware p-values do not change which items are copies."""
    return _duplicates(shift_keys.base_key(data_key), near_max(data_key), _table)


@st.cache_resource(show_spinner="Looking for duplicated items...", max_entries=8)
def _duplicates(data_key: str, near_max: int, _table: ScoreTable):
    from jecs_core.checks import find_duplicates

    return find_duplicates(_table, near_max=near_max)


def cluster_comparison(data_key: str, alpha: float, settings: RuleSettings, _table: ScoreTable) -> Comparison:
    """Every rule with one hypothesis per cluster of duplicated items (``jecs select --cluster duplicates``)."""
    return _cluster_comparison(data_key, cluster_key(data_key), round(float(alpha), 4), settings, _table)


@st.cache_resource(show_spinner=False, max_entries=16)
def _cluster_comparison(data_key: str, clusters_key: str, alpha: float, settings: RuleSettings,
                        _table: ScoreTable) -> Comparison:
    from jecs_core.checks import cluster_comparison as by_cluster

    return by_cluster(pvalues(data_key, _table), duplicates(data_key, _table).clusters, alpha=alpha,
                      models=_table.models, contaminated=_table.contaminated, **settings)
