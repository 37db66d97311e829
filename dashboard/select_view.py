"""Sections of the Select page (``views/select_page.py`` arranges them inside one fragment).

Rules, labels and colours come from :data:`jecs_core.REGISTRY`; user-supplied strings
(ids, texts, model names) are drawn with ``st.text`` or as table cells.
"""

from __future__ import annotations

import streamlit as st

from jecs_core import DEFAULT_METHOD, REGISTRY, Comparison, ScoreTable

from . import explain, rule_controls, state, tables
from .figures import FIGURE_KEYS, envelope_source, get_figure_spec
from .report import figure_html
from .rule_controls import RuleSettings
from .theme import short_label

METHOD = "jecs.method"
FIGURE = "jecs.figure"
COMPARE = "jecs.compare"
ALPHA2 = "jecs.alpha2"
WHICH = "jecs.items_which"
QUERY = "jecs.table_query"
PAGE = "jecs.items_page"
URL_LOADED = "jecs.url_loaded"
URL_IGNORED = "jecs.url_ignored"  # the notice for link values the page could not use
DIAGNOSTICS = "jecs.show_diagnostics"
PANEL = "jecs.panel"
PANELS = {"figures": "Figures", "items": "Items and explanations", "export": "Export and report"}

# Select-page keys kept across page switches, with their first values.
DEFAULTS = {PANEL: "figures", DIAGNOSTICS: False, METHOD: DEFAULT_METHOD, FIGURE: FIGURE_KEYS[0], COMPARE: False, ALPHA2: 0.20, WHICH: "selected",
            QUERY: "", PAGE: 1}


def link_number(text, low: float, high: float, cast=float):
    """A link value as a number in [low, high], or ``None`` (text, NaN, out of range)."""
    try:
        value = cast(text)
    except (TypeError, ValueError):
        return None
    return value if low <= value <= high else None


def restore_state() -> None:
    """Keep this page's widget values across pages and, once per session, read them from the URL.

    URL keys: ``alpha``, one per declared rule option (:mod:`dashboard.rule_controls`: ``lam`` and
    ``knn`` of the paper's JECS, ``auto`` or a value), ``method``, ``view`` (the open panel), ``fig``,
    ``alpha2`` (turns the side-by-side view on).
    """
    s = st.session_state
    for key, default in DEFAULTS.items():
        s[key] = s.get(key, default)
    if s.get(URL_LOADED):
        return
    s[URL_LOADED] = True
    q = st.query_params
    alpha = link_number(q.get("alpha"), state.ALPHA_MIN, state.ALPHA_MAX)
    if alpha is not None:
        s[state.ALPHA] = round(alpha, 2)
    ignored = rule_controls.restore_from_url(q)
    if q.get("method") in REGISTRY:
        s[METHOD] = q["method"]
    if q.get("fig") in FIGURE_KEYS:
        s[FIGURE] = q["fig"]
    if q.get("view") in PANELS:
        s[PANEL] = q["view"]
    alpha2 = link_number(q.get("alpha2"), state.ALPHA_MIN, state.ALPHA_MAX)
    if alpha2 is not None:
        s[COMPARE], s[ALPHA2] = True, round(alpha2, 2)
    taken = {"alpha": alpha is not None, "alpha2": alpha2 is not None, "method": q.get("method") in REGISTRY,
             "fig": q.get("fig") in FIGURE_KEYS, "view": q.get("view") in PANELS}
    note_ignored([key for key, ok in taken.items() if key in q and not ok] + ignored)


def note_ignored(ignored: list[str]) -> None:
    """Leave the notice for link keys whose values the page could not use (names only: never the link's text)."""
    if ignored:
        scale = (f" (α from {state.ALPHA_MIN:g} to {state.ALPHA_MAX:g})"
                 if {"alpha", "alpha2"} & set(ignored) else "")
        st.session_state[URL_IGNORED] = (
            f"The link's {', '.join(ignored)} {'is not a value' if len(ignored) == 1 else 'are not values'} this page "
            f"takes{scale}; the defaults are shown instead.")


def url_notice() -> None:
    """The one-line notice for link values the page could not use (shown once)."""
    notice = st.session_state.pop(URL_IGNORED, None)
    if notice:
        st.info(notice, icon=":material/info:")


def write_url(alpha: float, settings: RuleSettings) -> None:
    """Put the view in the address bar so a link reproduces it (``sample`` is the frame's)."""
    s = st.session_state
    wanted = {"alpha": f"{alpha:g}", **rule_controls.url_values(settings), "method": s[METHOD], "view": s[PANEL],
              "fig": s[FIGURE]}
    if s[COMPARE]:
        wanted["alpha2"] = f"{float(s[ALPHA2]):g}"
    elif "alpha2" in st.query_params:
        del st.query_params["alpha2"]
    state.set_query(wanted)


def fit_line(comparison: Comparison, method: str, table: ScoreTable) -> None:
    """The fitted quantities of the inspected rule: its result's `fit_summary()` rows."""
    result = comparison.result(method)
    if result.fallback_reason is not None:
        st.warning(f"{REGISTRY[method].label} fell back to JMCS: {result.fallback_reason}", icon=":material/warning:")
    shown = {"lambda": "λ", "pi0_hat": "π̂0", "F_fit_lambda": "F_fit(λ)"}
    parts = [f"{shown.get(row.key, row.label)} = {row.text}" for row in result.fit_summary()]
    if parts:
        st.caption(f"{REGISTRY[method].label}: " + " · ".join(parts) + f" · n = {table.n:,}")


def panel_picker() -> str:
    """Figures, items or export: one panel open at a time, so an alpha step sends only that one."""
    return st.segmented_control("Show", list(PANELS), key=PANEL, required=True, format_func=PANELS.get)


def figure_picker() -> str:
    """The open figure (a segmented control, not tabs: hidden tabs would be built and sent too)."""
    return st.segmented_control("Figure", FIGURE_KEYS, key=FIGURE, required=True,
                                format_func=lambda k: get_figure_spec(k).title, label_visibility="collapsed")


def draw_figure(key: str, comparison: Comparison, method: str) -> None:
    """Build and send only figure ``key``, with its caption and a one-figure HTML download."""
    spec = get_figure_spec(key)
    fig = spec.build(comparison, method)
    st.caption(spec.caption)
    if key in ("envelope", "grid"):
        source, _ = envelope_source(comparison, method)
        if source is not None and source != method:
            st.caption(f"{REGISTRY[method].label} fits no envelope of its own; this is the fit of "
                       f"{REGISTRY[source].label}, shown for reference.")
    if fig is None:
        st.info(f"{spec.title} does not apply to {REGISTRY[method].label}.")
        return
    st.plotly_chart(fig, key=f"fig-{key}")
    st.download_button(f"Download this figure (HTML, {spec.title})", lambda: figure_html(fig).encode("utf-8"),
                       file_name=f"jecs_{key}_alpha{comparison.alpha:.2f}.html", mime="text/html",
                       on_click="ignore", icon=":material/download:", key=f"download-fig-{key}")
    if key == "grid":
        _, fit = envelope_source(comparison, method)
        st.dataframe(tables.grid_table(fit), hide_index=True, key="grid-table")


def side_by_side(table: ScoreTable, first: Comparison, second: Comparison) -> None:
    """Counts of every rule at two alphas, and how many items the second alpha adds or removes."""
    left, right = st.columns(2, gap="large")
    for column, comp in ((left, first), (right, second)):
        with column:
            st.markdown(f"**α = {comp.alpha:g}**")
            st.dataframe(tables.counts_table(comp), hide_index=True, key=f"counts-{comp.alpha:g}-{id(column)}")
    method = st.session_state[METHOD]
    a, b = first.selected(method), second.selected(method)
    st.caption(f"{short_label(method)}: {int((b & ~a).sum()):,} items kept at α = {second.alpha:g} but not at "
               f"α = {first.alpha:g}; {int((a & ~b).sum()):,} the other way.")
    for _, message in explain.selection_warnings(table, second):
        st.warning(f"At α = {second.alpha:g}: {message}", icon=":material/warning:")


def diagnostics_toggle() -> bool:
    return st.toggle("Audit diagnostics (label-free: is the paper's JECS in its safe regime here?)", key=DIAGNOSTICS,
                     help="Cross-model score correlation, tail size and λ-sensitivity, a bootstrap band for π̂0, and "
                     "every rule's GCR on synthetic twins of this audit.")


def diagnostics_section(data_key: str, table: ScoreTable, alpha: float, settings: RuleSettings) -> None:
    """Label-free audit diagnostics, on request (about a second per data set and α; cached)."""
    from . import compute

    found = compute.diagnostics(data_key, alpha, settings, table)
    if found is None:
        st.info("The table is too small for the label-free audit diagnostics.")
        return
    with st.container(border=True, key="diagnostics"):
        (st.success if found.jecs_safe else st.warning)(found.verdict)
        for flag in found.flags:
            st.warning(str(flag), icon=":material/warning:")
        basis = explain.diagnostics_basis(_shift_method(data_key, table))
        if basis is not None:
            st.caption(basis)
        st.text("\n".join(found.lines()))


def _shift_method(data_key: str, table: ScoreTable) -> str | None:
    """The covariate method of the p-values the page's rules read; ``None`` without covariates."""
    from . import compute, shift_keys

    return None if shift_keys.spec(data_key) is None else compute.shift_pvalues(data_key, table).method


def warm_default_view() -> None:
    """Compute the landing view of a new session through the caches the Select page reads.

    The default sample's table, p-values and fits, every rule at the default α and the cards'
    post-hoc bounds at the default δ, under the keys the page uses with a new session's values.
    The server's warm-up thread calls it before any session (:func:`dashboard.runtime_gc.lifespan`),
    so the first visitor's run finds them cached.  A view that differs (another sample, α or
    option from a link) misses these entries and is computed by its own run, as always.
    """
    from . import compute, posthoc_view, samples

    key = samples.DEFAULT_SAMPLE
    table, data_key = compute.load_sample(key), state.sample_data_key(key)
    alpha = round(float(state.PERSISTENT_DEFAULTS[state.ALPHA]), 4)
    settings = rule_controls.current(rule_controls.session_defaults())
    shown = compute.comparison(data_key, alpha, settings, table)
    compute.summary(data_key, alpha, settings, shown)
    posthoc_view.card_bounds(data_key, data_key, alpha, settings, state.DELTA_DEFAULT, table, shown)
