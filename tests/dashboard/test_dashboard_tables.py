"""Page tables come from jecs_core's frames: selected items (with search) and the lambda grid."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import jecs_core
from dashboard import samples, tables


@pytest.fixture(scope="module")
def table():
    base = samples.get(samples.PAPER_SAMPLE).loader()
    text = pd.DataFrame({"text": [f"Question {i} about {'physics' if i % 3 else 'history'}" for i in range(base.n)]})
    return jecs_core.ScoreTable(base.models, base.calibration, base.test, base.calibration_ids, base.test_ids,
                                base.test_members, text, base.source, base.source_sha256)


def test_selected_items_are_the_selection(table):
    comparison = jecs_core.compare_methods(table, alpha=0.1)
    for method in jecs_core.METHODS:
        items = tables.selected_items(table, comparison, method)
        assert list(items["item_id"]) == list(table.test_ids[comparison.selected(method)])
        assert "selected" not in items.columns and "text" in items.columns
    items = tables.selected_items(table, comparison, "jecs")
    np.testing.assert_array_equal(items["p_tilde"], comparison.jecs.p_tilde[comparison.selected("jecs")])


def test_search_matches_id_and_text(table):
    comparison = jecs_core.compare_methods(table, alpha=0.1)
    everything = tables.selected_items(table, comparison, "jecs")
    history = tables.selected_items(table, comparison, "jecs", "HISTORY")
    assert 0 < len(history) < len(everything) and history["text"].str.contains("history").all()
    one = everything["item_id"].iloc[0]
    assert one in set(tables.selected_items(table, comparison, "jecs", one)["item_id"])
    assert len(tables.selected_items(table, comparison, "jecs", "no such words")) == 0
    assert len(tables.selected_items(table, comparison, "jecs", "  ")) == len(everything)


def test_grid_table_renames_only(table):
    fit = jecs_core.compare_methods(table, alpha=0.1).jecs.fit
    shown = tables.grid_table(fit)
    assert len(shown) == len(fit.grid.lambdas) and "chosen" in shown.columns
    np.testing.assert_array_equal(shown["λ"], fit.grid.to_frame()["lambda"])
