"""Why an item is kept or dropped, and what on a selection deserves a warning (no Streamlit here).

Everything is read off the registered rules' result objects by their attributes
(``selected``, ``step`` with ``r_star`` / ``threshold``, a ranking statistic
``p_tilde`` or ``p_max``, ``per_model``), never by a rule's name, so a rule registered
later is explained as soon as its result carries those attributes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from jecs_core import REGISTRY, Comparison, ScoreTable

# Ranking statistics a step-up rule may expose, most specific first, with their display names.
_STATISTICS = (("p_tilde", "transformed value p̃"), ("p_max", "max-p p*"))


@dataclass(frozen=True)
class Ranking:
    """How a step-up rule ranks the items: the statistic, r* and the cut-off on it."""

    name: str
    values: np.ndarray
    r_star: int
    threshold: float
    pi0: float = 1.0


@dataclass(frozen=True)
class ItemExplanation:
    """One item under one rule.

    Attributes
    ----------
    index : int
        Row of the item among the test items.
    pvalues : pandas.DataFrame
        One row per model: ``model``, ``p_value``, ``drives_max`` (the model whose p-value is p*).
    driver : str
        The model with the largest p-value (p* = its p-value).
    rank : int or None
        1-based rank of the item's statistic among the n items (ties share the smaller rank).
    selected : dict
        Method -> whether that rule keeps the item.
    reason : str
        In words, why ``method`` keeps or drops it.
    """

    index: int
    item_id: str
    text: str | None
    method: str
    p_max: float
    driver: str
    pvalues: pd.DataFrame
    ranking: Ranking | None
    rank: int | None
    selected: dict
    reason: str


def text_columns(table: ScoreTable) -> list[str]:
    """Carried string columns (e.g. ``text``) in input order."""
    extra = table.test_extra
    return [c for c in extra.columns if pd.api.types.is_string_dtype(extra[c]) or pd.api.types.is_object_dtype(extra[c])]


def _field(result, *names):
    """The first of ``names`` found on the result or on its ``step`` (rules expose them either way)."""
    for source in (result, getattr(result, "step", None)):
        for name in names:
            value = getattr(source, name, None) if source is not None else None
            if value is not None:
                return value
    return None


def ranking(result) -> Ranking | None:
    """The statistic a step-up result ranks on, or ``None`` for rules without one (e.g. per-model BH).

    A step-up result exposes ``r_star`` and ``threshold`` (itself or on ``step``) and a statistic
    ``p_tilde`` or ``p_max``; its null-share factor is ``pi0_hat`` or ``step.pi0`` (1 for BH).
    """
    r_star, threshold = _field(result, "r_star"), _field(result, "threshold")
    if r_star is None or threshold is None:
        return None
    pi0 = _field(result, "pi0_hat", "pi0")
    p_max = _field(result, "p_max")
    for attr, name in _STATISTICS:
        values = getattr(result, attr, None)
        if values is not None:
            values = np.asarray(values, dtype=float)
            if attr == "p_tilde" and p_max is not None and np.array_equal(values, np.asarray(p_max, dtype=float)):
                name = dict(_STATISTICS)["p_max"]  # an identity envelope (Storey-BH): the statistic is p* itself
            return Ranking(name, values, int(r_star), float(threshold), 1.0 if pi0 is None else float(pi0))
    return None


def find_items(table: ScoreTable, query: str, *, limit: int = 50) -> np.ndarray:
    """Indices of items matching ``query``: the exact id first, then ids starting with it, then text hits.

    Matching is case-insensitive; an exact id match alone is returned when there is one.
    """
    query = query.strip()
    if not query:
        return np.arange(0)
    ids = pd.Series(table.test_ids, dtype=str)
    exact = np.flatnonzero(ids.to_numpy() == query)
    if exact.size:
        return exact[:limit]
    lowered = ids.str.lower()
    needle = query.lower()
    prefix = np.flatnonzero(lowered.str.startswith(needle).to_numpy())
    hits = [prefix]
    for col in text_columns(table):
        values = table.test_extra[col].astype(str).str.lower()
        hits.append(np.flatnonzero(values.str.contains(needle, regex=False).to_numpy()))
    order = list(dict.fromkeys(int(i) for part in hits for i in part))
    return np.asarray(order[:limit], dtype=int)


def _rank(values: np.ndarray, index: int) -> int:
    return int(np.count_nonzero(values < values[index])) + 1


def _reason(result, method: str, table: ScoreTable, index: int, stat: Ranking | None, rank: int | None) -> str:
    kept = bool(result.selected[index])
    label = REGISTRY[method].label
    verb = "keeps" if kept else "drops"
    if stat is not None:
        value = stat.values[index]
        if stat.r_star == 0:
            return (f"{label} selects nothing at this α (r* = 0): no {stat.name} lies under its step-up line, "
                    f"so this item ({stat.name} = {value:.4g}, rank {rank:,}) is dropped with every other.")
        side = "within" if kept else "beyond"
        return (f"{label} {verb} it: its {stat.name} = {value:.4g} ranks {rank:,} of {len(stat.values):,}, {side} "
                f"r* = {stat.r_star:,} (the rule keeps the r* smallest; cut-off {stat.threshold:.4g}).")
    per_model = getattr(result, "per_model", None)
    if per_model is not None:
        keep = [m for m, on in zip(table.models, per_model[index]) if on]
        drop = [m for m, on in zip(table.models, per_model[index]) if not on]
        return (f"{label} {verb} it: the per-model BH selections keep it for {len(keep)} of {table.K} models"
                + (f" (dropped by {', '.join(drop[:6])}{'…' if len(drop) > 6 else ''})." if drop else "."))
    return f"{label} {verb} it."


def explain_item(table: ScoreTable, comparison: Comparison, index: int, method: str) -> ItemExplanation:
    """Explain test item ``index`` under ``method`` (a rule present in ``comparison``)."""
    n = comparison.pvalues.shape[0]
    if not 0 <= index < n:
        raise ValueError(f"index must be in [0, {n}), got {index}")
    result = comparison.result(method)
    row = comparison.pvalues[index]
    driver = int(np.argmax(row))
    frame = pd.DataFrame({"model": list(table.models), "p_value": row, "drives_max": np.arange(len(row)) == driver})
    stat = ranking(result)
    rank = None if stat is None else _rank(stat.values, index)
    texts = text_columns(table)
    text = None if not texts else str(table.test_extra[texts[0]].iloc[index])
    return ItemExplanation(
        index=int(index), item_id=str(table.test_ids[index]), text=text, method=method, p_max=float(row[driver]),
        driver=table.models[driver], pvalues=frame, ranking=stat, rank=rank,
        selected={m: bool(comparison.selected(m)[index]) for m in comparison.methods},
        reason=_reason(result, method, table, index, stat, rank),
    )


def smallest_pvalue(m: int) -> float:
    """The smallest conformal p-value a calibration set of size ``m`` can give: 1 / (m + 1)."""
    return 1.0 / (m + 1)


def bh_reach(n: int, m: int, alpha: float, *, pi0: float = 1.0) -> int:
    """How many items must tie at the smallest p-value for a step-up at ``alpha`` to select any.

    The step-up keeps rank r when p_(r) <= alpha r / (pi0 n); with p_(r) >= 1/(m+1) that needs
    r >= pi0 n / (alpha (m+1)).
    """
    return int(np.ceil(pi0 * n / (alpha * (m + 1)) - 1e-9))


def _on_pvalue_scale(result, smallest: float) -> bool:
    """True when the rule ranks raw p-values (its statistic never goes below 1/(m+1))."""
    stat = ranking(result)
    return stat is not None and stat.values.size > 0 and float(stat.values.min()) >= smallest - 1e-12


def selection_warnings(table: ScoreTable, comparison: Comparison) -> list[tuple[str | None, str]]:
    """``(method or None, message)`` for everything an auditor should not miss on this selection."""
    out: list[tuple[str | None, str]] = []
    n, m, alpha = table.n, table.m, comparison.alpha
    smallest = smallest_pvalue(m)
    from jecs_core.checks import find_duplicates, score_direction

    direction = score_direction(table)
    if direction.likely_reversed:
        aucs = ", ".join(f"{name} {auc:.2f}" for name, auc in zip(direction.models, direction.auc)
                         if name in direction.reversed_models)
        out.append((None, "The scores may run the other way (lower = member): the test items score above the "
                          f"calibration members for {len(direction.reversed_models)} of {len(direction.models)} model(s) "
                          f"(share of pairs with the test item higher: {aucs}; 1/2 or below is expected), so the max-p "
                          "values pile up near 1 and the rules select little or nothing. If lower scores mean member, "
                          'tick "Lower scores = member" on the Data page and upload the file again (the CLI: --lower-is-member).'))
    for line in find_duplicates(table, near=table.n <= 5_000).warnings():
        text = line.split(": ", 1)[1]  # the page shows warnings in a box: no "warning:" prefix
        out.append((None, text[:1].upper() + text[1:]))
    if smallest > alpha:
        out.append((None, f"The calibration set is too small: with m = {m:,} calibration items the smallest p-value "
                          f"is 1/(m+1) = {smallest:.3g}, above α = {alpha:g}, so no p-value can reach α and no valid "
                          "rule can select anything. Add calibration items (known members of every model)."))
    for method in comparison.methods:
        result = comparison.result(method)
        label = REGISTRY[method].label
        threshold = _field(result, "threshold")
        if threshold is not None and threshold > 1:
            out.append((method, f"{label}: the cut-off {threshold:.3g} is above 1, so every item passes whatever its "
                                "p-values; the selection says nothing about contamination."))
        if n and result.n_selected == n:
            out.append((method, f"{label} selects every item ({n:,} of {n:,}): nothing was filtered out."))
        elif (result.n_selected == 0 and smallest <= alpha and not direction.likely_reversed
              and _on_pvalue_scale(result, smallest)):
            need = bh_reach(n, m, alpha, pi0=ranking(result).pi0)
            out.append((method, f"{label} selects nothing. With m = {m:,} calibration items the smallest p-value is "
                                f"1/(m+1) = {smallest:.3g}; the step-up at α = {alpha:g} keeps rank r only when "
                                f"p ≤ α·r/n, so at least {need:,} of the n = {n:,} items would need that smallest "
                                "p-value. More calibration items make smaller p-values possible."))
    return out


def gcp_note(comparison: Comparison, method: str, *, gcp: float | None = None) -> str | None:
    """A sentence when labels show this rule's realized GCP above alpha on this table, else ``None``.

    ``gcp`` (from ``comparison.summary()``) saves recomputing the metrics.
    """
    if gcp is None:
        found = comparison.metrics(method)
        gcp = None if found is None else found.gcp
    if gcp is None or not gcp > comparison.alpha:
        return None
    return (f"On this labelled table its selection has a realized contamination share (GCP) of {gcp:.3f}, "
            f"above the target α = {comparison.alpha:g}: it did not keep its target here.")
