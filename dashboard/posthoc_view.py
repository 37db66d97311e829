"""The post-hoc bound on the Select page: the δ setting (kept in the URL) and each card's post-hoc line.

The bound is :func:`jecs_core.fit_post_hoc` on the max-p of the p-values the cards' rules ran on (the
items', or the clusters' with the cluster toggle on) with the calibration size ``m`` (left out where test
items are copies): the export records the same. One fit per (data set, clusters, δ), cached; a card's
bound is ``fit.bound(selection)``, one pass over its mask, cached per (data set, α, options, δ), so
dragging α back to a value seen costs a lookup.
The sentence is :func:`jecs_core.posthoc.post_hoc_line`, the same words ``jecs select`` prints.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import streamlit as st

from jecs_core import Comparison, ScoreTable, fit_post_hoc
from jecs_core.posthoc import post_hoc_calibration_size, post_hoc_line
from jecs_core.posthoc.copies import clustered
from jecs_core.posthoc.fit import check_delta

from . import commit_view, compute, hand_edit, state
from .report import PostHocContext

DELTA_MIN, DELTA_MAX = 0.001, 0.5
URL_DELTA = "delta"
_URL_READ = "jecs.delta_url_read"
_URL_NOTICE = "jecs.delta_notice"
# Under a clustered selection the bound still counts items: copies of one item count one by one.
CLUSTER_NOTE = " (counting items: each copy of a duplicated item counts)"
# Beside a bound of the whole set, which says nothing: why.
URN_OFF_NOTE = (" — no bound after looking here: copied test items (or covariate-aware p-values) leave closed "
                "testing alone, which cannot vouch for this set")
NOTHING_NOTE = " — no bound after looking here: at this δ the bound cannot vouch for any item of this set"


def _parse_delta(text) -> float | None:
    """A δ from the URL, or ``None`` when it is not a number in the widget's range."""
    try:
        value = check_delta(float(text))
    except (TypeError, ValueError):
        return None
    return value if DELTA_MIN <= value <= DELTA_MAX else None


def restore_delta() -> None:
    """Once per session, read ``delta`` from the URL; a bad value keeps the default and leaves a notice."""
    s = st.session_state
    if s.get(_URL_READ):
        return
    s[_URL_READ] = True
    text = st.query_params.get(URL_DELTA)
    if text is None:
        return
    value = _parse_delta(text)
    if value is None:
        s[_URL_NOTICE] = (f"The link's δ is not a number between {DELTA_MIN:g} and {DELTA_MAX:g}; "
                          f"δ = {state.DELTA_DEFAULT:g} is used instead.")
        return
    s[state.DELTA] = value


def delta_notice() -> None:
    """The one-line notice for a bad ``delta`` in the link (shown once; no user text is echoed)."""
    notice = st.session_state.pop(_URL_NOTICE, None)
    if notice:
        st.info(notice, icon=":material/info:")


def delta_control(container=None) -> float:
    """The δ widget; returns the checked value."""
    (container or st).number_input(
        "Post-hoc δ", min_value=DELTA_MIN, max_value=DELTA_MAX, step=0.01, format="%.3f", key=state.DELTA,
        help="Error level of the post-hoc bound on each card: with probability at least 1 − δ every card's bound "
        "holds at once, for any α picked after looking (and for a hand-edited set).")
    return current_delta()


def current_delta() -> float:
    """δ from the session (the default when unset or out of range)."""
    value = _parse_delta(st.session_state.get(state.DELTA, state.DELTA_DEFAULT))
    return state.DELTA_DEFAULT if value is None else value


def write_delta_url(delta: float) -> None:
    """Keep δ in the address bar so a shared link reproduces the cards."""
    state.set_query({URL_DELTA: f"{delta:g}"})


@st.cache_resource(show_spinner="Fitting the post-hoc bound...", max_entries=8)
def post_hoc_fit(shown_key: str, delta: float, _table: ScoreTable, _shown: Comparison):
    """:func:`jecs_core.fit_post_hoc` on the max-p of the p-values ``_shown`` ran on (the clusters' with the
    cluster toggle on, as the export's record), with ``m`` unless test items are copies
    (:func:`jecs_core.posthoc.post_hoc_calibration_size`). ``shown_key`` names those p-values."""
    p_max = np.asarray(_shown.pvalues).max(axis=1)
    return fit_post_hoc(p_max, delta=delta, calibration_size=post_hoc_calibration_size(_table, comparison=_shown))


@st.cache_resource(show_spinner=False, max_entries=64)
def card_bounds(data_key: str, shown_key: str, alpha: float, options, delta: float, _table: ScoreTable,
                _shown: Comparison) -> dict[str, tuple[int, int]]:
    """Per rule: ``(bound, n_selected)`` of its selection in ``_shown`` (item-level masks)."""
    fit = post_hoc_fit(shown_key, delta, _table, _shown)
    out = {}
    for method in _shown.methods:
        mask = np.asarray(_shown.selected(method), dtype=bool)
        out[method] = (int(fit.bound(mask)), int(np.count_nonzero(mask)))
    return out


def card_lines(bounds: Mapping[str, tuple[int, int]], delta: float, *, clustered: bool = False,
               urn_off: bool = False) -> dict[str, str]:
    """The post-hoc sentence of every card, from :func:`card_bounds`; a bound of the whole set says why it
    says nothing (``urn_off``: the calibration urn was left out, for copies or covariate-aware p-values)."""
    note = CLUSTER_NOTE if clustered else ""
    why = URN_OFF_NOTE if urn_off else NOTHING_NOTE
    return {m: post_hoc_line(bound, size, delta=delta) + (note if size else "") + (why if size and bound == size else "")
            for m, (bound, size) in bounds.items()}


def lines_for(data_key: str, table: ScoreTable, shown: Comparison, options, *, clustered: bool = False) -> dict[str, str]:
    """Every card's post-hoc line at the session's δ (cached per data set, α, options and δ)."""
    delta = current_delta()
    shown_key = compute.cluster_key(data_key) if clustered else data_key
    bounds = card_bounds(data_key, shown_key, round(float(shown.alpha), 4), options, delta, table, shown)
    urn_off = post_hoc_fit(shown_key, delta, table, shown).calibration_size is None and table.m > 0
    return card_lines(bounds, delta, clustered=clustered, urn_off=urn_off)


def set_bound(data_key: str, table: ScoreTable, shown: Comparison, mask: np.ndarray) -> tuple[int, int]:
    """``(bound, size)`` of any item set (a hand-edited one from ``shown``) at the session's δ."""
    shown_key = compute.cluster_key(data_key) if clustered(shown) else data_key
    fit = post_hoc_fit(shown_key, current_delta(), table, shown)
    mask = np.asarray(mask, dtype=bool)
    return int(fit.bound(mask)), int(np.count_nonzero(mask))


def report_context(data_key: str, table: ScoreTable, comparison: Comparison, method: str) -> PostHocContext:
    """δ, the hand-edited set of the inspected rule (if any) and the commit of α, for the export and report."""
    edited = hand_edit.current(data_key, table.test_ids, comparison.selected(method), method, comparison.alpha)
    return PostHocContext(delta=current_delta(), hand_mask=None if edited is None else edited.mask,
                          hand_record=None if edited is None else edited.record(), commit=commit_view.report_record())
