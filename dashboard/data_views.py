"""Sections of the Data page below the chooser: distributions, member AUC, the shift check.

Caches are keyed by the data key, which names the table's content (a sample key or a
SHA-256), so two sessions share an entry only for the same table.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from jecs_core import ScoreTable

from . import data_summary, state
from .figures import plot_score_distributions
from .plain import escape


def score_label(name: str) -> str:
    """The scoring registry's label of a detection score (the name itself without the scoring package)."""
    try:
        from scoring import SCORE_LABELS  # names only: importing scoring loads no torch
    except Exception:  # the optional package missing or broken: the name is still meaningful
        return name
    return SCORE_LABELS.get(name, name).split(" (")[0]


def contract_warnings(table: ScoreTable) -> None:
    """The data contract's warnings at the current α (e.g. a calibration set too small to reach it), reversed
    scores (the usual upload mistake: a loss read as larger = member) and columns named almost as a role takes."""
    from jecs_core.checks import role_lookalikes, score_direction

    lines = [*table.warnings(float(st.session_state.get(state.ALPHA, 0.1))), *score_direction(table).warnings(),
             *role_lookalikes(table)]
    for line in lines:  # the box says it is a warning: the command line's prefix is left out
        st.warning(escape(line.removeprefix("warning: ")), icon=":material/warning:")


def distributions(table: ScoreTable) -> None:
    st.subheader("Score distributions per model")
    st.caption("Density of each model's scores: calibration (known members) against the test items"
               + (", split into members and non-members of that model." if table.has_labels else "."))
    shown = list(table.models)
    if table.K > 8:
        shown = st.multiselect("Models shown", table.models, default=list(table.models[:8]),
                               help="Pick up to 16 models to draw.", max_selections=16)
    if shown:
        st.plotly_chart(_distributions(state.active().key, table, tuple(shown)), key="score-distributions")


@st.cache_data(show_spinner="Drawing the score distributions…", max_entries=16)
def _distributions(data_key: str, _table: ScoreTable, shown: tuple[str, ...]):
    return plot_score_distributions(_table, list(shown))


@st.cache_data(show_spinner="Computing each model's member AUC…", max_entries=16)
def _member_auc(data_key: str, _table: ScoreTable) -> pd.DataFrame:
    return data_summary.member_auc(_table)


def member_auc_section(data_key: str, table: ScoreTable) -> None:
    """How well each model's score separates its members from its non-members on the test items."""
    st.subheader("How well each score finds members")
    frame = _member_auc(data_key, table)
    mean = float(frame["auc"].mean())
    st.caption(
        "AUC of each model's score for its own member labels on the test items: the chance that a random member "
        "scores above a random non-member (0.5 = no signal, 1 = perfect). Selection can only be as good as this "
        f"signal; mean AUC {mean:.3f}."
    )
    st.dataframe(
        frame, hide_index=True, width="stretch", key="member-auc",
        column_config={
            "model": st.column_config.TextColumn("model"),
            "members": st.column_config.NumberColumn("members (test)", format="%d"),
            "non_members": st.column_config.NumberColumn("non-members (test)", format="%d"),
            "auc": st.column_config.ProgressColumn("member AUC", format="%.3f", min_value=0.0, max_value=1.0),
        },
    )
    weak = frame[frame["auc"] < 0.6]
    if len(weak):
        st.warning(f"{len(weak)} model(s) have a member AUC below 0.6: their scores barely tell members apart, "
                   "so their p-values carry little information.", icon=":material/warning:")


@st.cache_data(show_spinner="Running the shift check…", max_entries=8)
def _shift(data_key: str, _table: ScoreTable):
    return data_summary.run_shift_check(_table)


def shift_section(data_key: str, table: ScoreTable) -> None:
    """Are the calibration items like the test items? (needs covariates or texts, and the core's check)."""
    if not data_summary.shift_available() or data_summary.shift_inputs(table) is None:
        return
    st.subheader("Are the calibration items like the test items?")
    st.caption(
        "Every rule assumes the calibration items (known members) are exchangeable with the test items' members. "
        "The shift check asks whether a classifier on the covariates (x_ columns) and simple text features tells "
        "calibration from test items better than chance: cross-fitted AUC with a permutation p-value."
    )
    if not st.toggle("Run the shift check", key="jecs.shift_run", help="Refits the classifier 199 times; seconds."):
        return
    check = _shift(data_key, table)
    cols = st.columns(3)
    cols[0].metric("AUC calibration vs test", f"{check.auc:.3f}", border=True)
    cols[1].metric("Permutation p-value", f"{check.pvalue:.3g}", border=True)
    cols[2].metric("Verdict", "shifted" if check.shifted else "no shift found", border=True)
    if check.shifted:
        st.warning("The calibration items differ from the test items (drivers: " + escape(", ".join(check.drivers()))
                   + "). p-values may be miscalibrated; consider covariate-aware p-values"
                   + (" (below)." if table.covariate_names else " (they need x_ covariate columns)."),
                   icon=":material/warning:")
    drivers = pd.DataFrame({"feature": check.features, "AUC alone": check.feature_auc,
                            "AUC drop when shuffled": check.importance})
    st.caption("How much the classifier leans on each feature: the AUC lost when that feature is shuffled.")
    st.bar_chart(drivers, x="feature", y="AUC drop when shuffled", horizontal=True, height=220)
    st.dataframe(drivers, hide_index=True, width="stretch", key="shift-drivers")


@st.cache_data(show_spinner="Building the preview…", max_entries=8)
def _preview(data_key: str, _table: ScoreTable, rows: int) -> pd.DataFrame:
    return _table.to_frame().groupby("split", sort=False).head(rows)


def preview(data_key: str, table: ScoreTable, rows: int = 200) -> None:
    """The first rows of each split, built on request (a million-row table takes a second or two)."""
    if st.toggle(f"Preview the table (first {rows} rows of each split)", key="jecs.preview"):
        st.dataframe(_preview(data_key, table, rows), hide_index=True)
