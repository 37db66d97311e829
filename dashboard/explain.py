"""Why an item is kept or dropped, and what on a selection deserves a warning (no Streamlit here).

Everything is read off the registered rules' results through the declared shape
(:class:`jecs_core.SelectionResult`: ``selected``, ``threshold``, ``step_up_line()``,
``model_selections()``), never by a rule's name, so a rule registered later is explained
as soon as its result fills that shape.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from jecs_core import REGISTRY, Comparison, ScoreTable

# Display names of the statistics a step-up ranks (``StepUpLine.statistic``).
_STATISTICS = {"p_tilde": "transformed value p̃", "p_max": "max-p p*"}
# The near-duplicate pass (MinHash) runs in the Select page's first run on a new data set and grows with
# the texts (seconds at this size on the 2-core reference machine). Above it the page skips it, with a note.
NEAR_MAX_TEXTS_PAGE = 5_000


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
    """Carried string columns in input order, ``text`` (the item's own text, by the data contract) first."""
    extra = table.test_extra
    found = [c for c in extra.columns if pd.api.types.is_string_dtype(extra[c]) or pd.api.types.is_object_dtype(extra[c])]
    return sorted(found, key=lambda column: column != "text")


def ranking(result) -> Ranking | None:
    """The statistic a step-up result ranks on (its ``step_up_line()``), or ``None`` for rules without
    a single step-up (e.g. per-model BH)."""
    line = result.step_up_line()
    if line is None:
        return None
    return Ranking(_STATISTICS[line.statistic], np.asarray(line.values, dtype=float), int(line.r_star),
                   float(line.threshold), float(line.pi0))


def find_items(table: ScoreTable, query: str, *, limit: int = 50) -> np.ndarray:
    """Indices of items matching ``query``: the exact id first, then ids starting with it, then text hits.

    Matching is case-insensitive; an exact id match alone is returned when there is one (the query as
    typed first, so an id whose spaces matter is found, then without its surrounding spaces).
    """
    if not query.strip():
        return np.arange(0)
    ids = pd.Series(table.test_ids, dtype=str)
    for candidate in dict.fromkeys((query, query.strip())):
        exact = np.flatnonzero(ids.to_numpy() == candidate)
        if exact.size:
            return exact[:limit]
    query = query.strip()
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
    per_model = result.model_selections()
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


def _blocking_model(comparison: Comparison, models) -> str:
    """A clause naming the model whose p-value alone is the items' max-p for half of them or more: an item is
    selected only when every model finds it unlike its members, so one model can keep all out."""
    p = np.asarray(comparison.pvalues)
    if p.ndim != 2 or p.shape[1] < 2 or not p.shape[0]:
        return ""
    holders = p == p.max(axis=1, keepdims=True)
    alone = holders.sum(axis=1) == 1  # p-values on the 1/(m+1) grid tie often: a tie is no model's doing
    counts = np.bincount(np.argmax(p[alone], axis=1), minlength=p.shape[1]) if alone.any() else np.zeros(p.shape[1])
    top = int(counts.argmax())
    if counts[top] < 0.5 * p.shape[0]:
        return ""
    return (f". Or a model that cannot tell members apart keeps every item out: {models[top]} alone gives the largest "
            f"p-value for {int(counts[top]):,} of the {p.shape[0]:,} items (if its scores are no detector, leave it out)")


def selection_warnings(table: ScoreTable, comparison: Comparison, *, duplicates=None) -> list[tuple[str | None, str]]:
    """``(method or None, message)`` for everything an auditor should not miss on this selection.

    ``duplicates`` is the table's :func:`jecs_core.checks.find_duplicates` report when the caller
    holds one (the near-duplicate pass runs MinHash in Python: a page passes its cached report).
    """
    out: list[tuple[str | None, str]] = []
    n, m, alpha = table.n, table.m, comparison.alpha
    smallest = smallest_pvalue(m)
    from jecs_core.checks import ClusterResult, data_warnings, find_duplicates, score_direction

    direction = score_direction(table)
    if duplicates is None:
        duplicates = find_duplicates(table, near_max=NEAR_MAX_TEXTS_PAGE)
    clustered = any(isinstance(result, ClusterResult) for result in comparison.results.values())
    # The CLI's lines (one wording for both): reversed scores, split scales, one-value columns, copies, names.
    for line in data_warnings(table, direction=direction, duplicates=duplicates, clustered=clustered):
        text = line.split(": ", 1)[1]  # the page shows warnings in a box: no "warning:" prefix
        out.append((None, text[:1].upper() + text[1:]))
    if smallest > alpha:
        out.append((None, f"The calibration set is too small: with m = {m:,} calibration items the smallest p-value "
                          f"is 1/(m+1) = {smallest:.3g}, above α = {alpha:g}, so no p-value can reach α and no valid "
                          "rule can select anything. Add calibration items (known members of every model)."))
    for method in comparison.methods:
        result = comparison.result(method)
        label = REGISTRY[method].label
        threshold = result.threshold
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
                                "p-value. More calibration items make smaller p-values possible"
                                + _blocking_model(comparison, table.models) + "."))
    return out


def diagnostics_basis(shift_method: str | None) -> str | None:
    """:func:`jecs_core.diagnostics.plain_basis` as a sentence, for the Select page and the report."""
    from jecs_core.diagnostics import plain_basis

    clause = plain_basis(shift_method)
    return None if clause is None else clause[0].upper() + clause[1:] + "."


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
