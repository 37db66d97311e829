"""Tables shown on the pages, built from jecs_core's own numbers (none computed here).

The items table is paged on the server: :func:`item_indices` picks the matching rows
(cheap boolean work on index arrays) and :func:`items_page` builds a frame for the
visible page only, so a 10^6-item audit sends the browser 50 rows, not 10^6.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from jecs_core import Comparison, JECSFit, ScoreTable

from .explain import find_items, ranking, text_columns

GRID_COLUMNS = {
    "lambda": "λ",
    "m_R": "m_R (tail size)",
    "k_n": "k_n",
    "g_hat": "g_hat(λ+)",
    "F_fit_lambda": "F_fit(λ)",
    "slope": "slope F_fit(λ)/λ",
    "pi0_hat": "pi0_hat",
    "usable": "usable",
    "few_tail_points": "few tail points",
    "chosen": "chosen",
}
WHICH = ("selected", "dropped", "all")
PAGE_SIZE = 50
# Columns the page's views add beside the items table's own (the hand editor's tick).
IN_SET = "in set"
PAGE_NAMES = frozenset({"item_id", IN_SET})


@dataclass(frozen=True)
class ItemsPage:
    frame: pd.DataFrame
    total: int  # rows matching the filter
    page: int  # 1-based, clipped to [1, pages]
    pages: int


def item_indices(table: ScoreTable, comparison: Comparison, method: str, *, which: str = "selected",
                 query: str = "") -> np.ndarray:
    """Rows of the test items shown: ``which`` of ``method``'s selection, filtered by the search.

    The search finds the exact id first, then ids starting with the query, then text hits
    (see :func:`dashboard.explain.find_items`); matches keep that order.
    """
    if which not in WHICH:
        raise ValueError(f"which must be one of {WHICH}, got {which!r}")
    selected = comparison.selected(method)
    keep = {"selected": selected, "dropped": ~selected, "all": np.ones_like(selected)}[which]
    if query.strip():
        found = find_items(table, query, limit=table.n)
        return found[keep[found]]
    return np.flatnonzero(keep)


def items_page(table: ScoreTable, comparison: Comparison, method: str, *, which: str = "selected", query: str = "",
               page: int = 1, page_size: int = PAGE_SIZE) -> ItemsPage:
    """One page of the items table: id, text columns, kept, p*, the rule's statistic, per-model p-values."""
    if page_size < 1:
        raise ValueError(f"page_size must be >= 1, got {page_size}")
    rows = item_indices(table, comparison, method, which=which, query=query)
    pages = max(1, -(-len(rows) // page_size))
    page = int(min(max(1, page), pages))
    shown = rows[(page - 1) * page_size: page * page_size]
    own = {"kept": comparison.selected(method)[shown], "p_max": comparison.p_max[shown]}
    stat = ranking(comparison.result(method))
    if stat is not None and stat.name != "max-p p*":  # p* is already a column
        own[stat.name] = stat.values[shown]
    own.update({f"p_{model}": comparison.pvalues[shown, k] for k, model in enumerate(table.models)})
    frame = pd.DataFrame({"item_id": np.asarray(table.test_ids)[shown].astype(str)})
    carried = text_columns(table)
    taken = {*own, *PAGE_NAMES, *carried}
    for col in carried:  # a carried column named like one of the page's own keeps its cells, marked
        name = _marked(col, taken) if col in own or col in PAGE_NAMES else col
        taken.add(name)
        frame[name] = table.test_extra[col].to_numpy()[shown]
    for name, values in own.items():
        frame[name] = values
    return ItemsPage(frame=frame, total=int(len(rows)), page=page, pages=pages)


def _marked(col: str, taken: set) -> str:
    """``col (from the file)``, numbered when the file carries that name too."""
    name, number = f"{col} (from the file)", 1
    while name in taken:
        number += 1
        name = f"{col} (from the file, {number})"
    return name


def grid_table(fit: JECSFit) -> pd.DataFrame:
    """The per-lambda table of the JECS fit, with readable column names."""
    return fit.grid.to_frame().rename(columns=GRID_COLUMNS)


def counts_table(comparison: Comparison) -> pd.DataFrame:
    """One row per rule: its label, selected count and, when labelled, GCP, power and whether GCP > alpha."""
    summary = comparison.summary()
    out = pd.DataFrame({"rule": summary["label"], "selected": summary["n_selected"]})
    for column, name in (("gcp", "GCP"), ("power", "power"), ("over_alpha", "GCP > α")):
        if column in summary.columns:
            out[name] = summary[column]
    return out
