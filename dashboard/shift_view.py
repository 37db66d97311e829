"""Covariate-aware p-values on the Data page, and their record in the exports.

Choosing them makes a new active data set: the same table under a key that names the covariates
and the method (:mod:`dashboard.shift_keys`), held under a URL token like an upload, so every page,
a reload and a shared link use them.  "Back to plain p-values" makes the plain data set active again.
"""

from __future__ import annotations

import streamlit as st

from jecs_core import ScoreTable
from jecs_core.cli.options import covariate_fields

from . import compute, shift_keys, state
from .plain import escape

COVARIATES = "jecs.shift_covariates"
METHOD = "jecs.shift_method"
METHODS = {"auto": "auto (the documented rule)", "weighted": "weighted (density ratio)",
           "residual": "residual (location-scale)"}


def covariate_section(data: state.ActiveData) -> None:
    """Choose covariate-aware p-values for the active data set (drawn only when its table has covariates)."""
    table = data.table
    if not table.covariate_names:
        return
    st.subheader("Covariate-aware p-values")
    st.caption("When the calibration items differ from the test items in their covariates, plain conformal "
               "p-values can be miscalibrated. Covariate-aware p-values reweight the calibration scores by a "
               "density ratio, or compare scores after removing what the covariates explain "
               "(docs/CALIBRATION-SHIFT.md); `jecs select --covariates` computes the same.")
    chosen = shift_keys.spec(data.key)
    if chosen is not None:
        _in_use(data, table, chosen)
        return
    names = list(table.covariate_names)
    kept = st.session_state.get(COVARIATES)
    if kept is not None and not set(kept) <= set(names):  # chosen on another table
        del st.session_state[COVARIATES]
    picked = st.multiselect("Covariates", names, default=names, key=COVARIATES,
                            help="The x_ columns the p-values account for.")
    method = st.selectbox("Method", list(METHODS), format_func=METHODS.get, key=METHOD)
    if st.button("Use covariate-aware p-values", icon=":material/tune:", disabled=not picked,
                 key="jecs.shift_apply"):
        _apply(data, tuple(picked) if len(picked) < len(names) else "all", method)


def _apply(data: state.ActiveData, covariates, method: str) -> None:
    key = shift_keys.key_for(data.key, covariates, method)
    try:
        compute.shift_pvalues(key, data.table)  # computed (and cached) here, so no page meets the error
    except ValueError as exc:
        st.error("Covariate-aware p-values could not be computed: " + escape(" ".join(str(exc).split())),
                 icon=":material/error:")
        return
    state.activate(data.table, key, data.name + shift_keys.NAME_SUFFIX, "covariates")
    st.rerun()


def _in_use(data: state.ActiveData, table: ScoreTable, chosen) -> None:
    covariates, _ = chosen
    shift = compute.shift_pvalues(data.key, table)
    st.info("In use for every page: " + escape(describe(covariates, shift)), icon=":material/tune:")
    if st.button("Back to plain p-values", icon=":material/undo:", key="jecs.shift_undo"):
        plain = shift_keys.base_key(data.key)
        sample = state.sample_of_key(plain)
        if sample is not None:
            state.activate_sample(*sample)
        else:
            state.activate(table, plain, shift_keys.base_name(data.name), "upload")
        st.rerun()


def describe(covariates, shift) -> str:
    """One line: the covariates, the method used (and asked for) and why."""
    names = "all covariates" if covariates == "all" else ", ".join(covariates)
    asked = "" if shift.requested == shift.method else f" (asked for {shift.requested})"
    return f"{names}; method {shift.method}{asked}: {shift.reason}"


def record(data_key: str, table: ScoreTable) -> dict:
    """The sidecar's and the report's covariate fields, as ``jecs select --covariates`` records them
    (``{}`` for plain p-values)."""
    chosen = shift_keys.spec(data_key)
    if chosen is None:
        return {}
    return {**covariate_fields(*chosen), "shift": compute.shift_pvalues(data_key, table).to_dict()}
