"""Tables shown on the pages, built from jecs_core's own frames (no numbers computed here)."""

from __future__ import annotations

import pandas as pd

from jecs_core import Comparison, JECSFit, ScoreTable, selection_frame

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


def selected_items(table: ScoreTable, comparison: Comparison, method: str, query: str = "") -> pd.DataFrame:
    """The items ``method`` selects, from the export frame, filtered by a case-insensitive search.

    The search matches ``item_id`` and every text column carried from the input (e.g. ``text``).
    """
    frame = selection_frame(table, comparison, method)
    frame = frame[frame["selected"] == 1].drop(columns="selected")
    query = query.strip()
    if query:
        extra = table.test_extra
        text_cols = ["item_id"] + [
            c for c in extra.columns if pd.api.types.is_string_dtype(extra[c]) or pd.api.types.is_object_dtype(extra[c])
        ]
        hit = pd.Series(False, index=frame.index)
        for col in dict.fromkeys(text_cols):
            hit |= frame[col].astype(str).str.contains(query, case=False, regex=False, na=False)
        frame = frame[hit]
    return frame.reset_index(drop=True)


def grid_table(fit: JECSFit) -> pd.DataFrame:
    """The per-lambda table of the JECS fit, with readable column names."""
    return fit.grid.to_frame().rename(columns=GRID_COLUMNS)
