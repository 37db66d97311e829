"""Page tables: the items table (kept / dropped / all, search, server-side pages) and the lambda grid."""

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


@pytest.fixture(scope="module")
def comparison(table):
    return jecs_core.compare_methods(table, alpha=0.1)


def _all_pages(table, comparison, method, **kw):
    first = tables.items_page(table, comparison, method, page=1, page_size=40, **kw)
    frames = [tables.items_page(table, comparison, method, page=p, page_size=40, **kw).frame for p in range(1, first.pages + 1)]
    return first, pd.concat(frames, ignore_index=True)


@pytest.mark.parametrize("which", tables.WHICH)
def test_pages_together_are_the_rule_selection(table, comparison, which):
    for method in comparison.methods:
        first, joined = _all_pages(table, comparison, method, which=which)
        keep = comparison.selected(method)
        mask = {"selected": keep, "dropped": ~keep, "all": np.ones_like(keep)}[which]
        assert list(joined["item_id"]) == list(table.test_ids[mask].astype(str))
        assert first.total == mask.sum() and len(first.frame) <= 40
        assert (joined["kept"] == (which != "dropped")).all() or which == "all"
        np.testing.assert_array_equal(joined["p_max"], comparison.p_max[mask])


def test_text_column_sits_next_to_the_id(table, comparison):
    page = tables.items_page(table, comparison, "jmcs", which="all")
    assert list(page.frame.columns[:2]) == ["item_id", "text"]
    assert [c for c in page.frame.columns if c.startswith("p_")][1:] == [f"p_{m}" for m in table.models]


def test_page_is_clipped_and_small(table, comparison):
    last = tables.items_page(table, comparison, "jmcs", which="all", page=10_000)
    assert last.page == last.pages and 0 < len(last.frame) <= tables.PAGE_SIZE
    assert tables.items_page(table, comparison, "jmcs", which="all", page=-3).page == 1
    with pytest.raises(ValueError, match="which"):
        tables.items_page(table, comparison, "jmcs", which="kept")
    with pytest.raises(ValueError, match="page_size"):
        tables.items_page(table, comparison, "jmcs", page_size=0)


def test_search_exact_id_first_then_prefix_then_text(table, comparison):
    ids = table.test_ids.astype(str)
    one = ids[5]
    exact = tables.item_indices(table, comparison, "jmcs", which="all", query=one)
    assert list(exact) == [5]
    prefix = one[:-1]
    hits = tables.item_indices(table, comparison, "jmcs", which="all", query=prefix)
    brute = [i for i, v in enumerate(ids) if v.lower().startswith(prefix.lower())]
    assert list(hits[: len(brute)]) == brute
    history = tables.item_indices(table, comparison, "jmcs", which="all", query="HISTORY")
    assert len(history) and all("history" in table.test_extra["text"].iloc[i] for i in history)
    assert len(tables.item_indices(table, comparison, "jmcs", which="all", query="no such words")) == 0
    dropped = tables.item_indices(table, comparison, "jmcs", which="dropped", query="history")
    assert not comparison.selected("jmcs")[dropped].any()


def test_grid_table_renames_only(comparison):
    fit = comparison.jecs.fit
    shown = tables.grid_table(fit)
    assert len(shown) == len(fit.grid.lambdas) and "chosen" in shown.columns
    np.testing.assert_array_equal(shown["λ"], fit.grid.to_frame()["lambda"])


def test_counts_table_follows_the_summary(comparison):
    shown = tables.counts_table(comparison)
    summary = comparison.summary()
    assert list(shown["rule"]) == [jecs_core.REGISTRY[m].label for m in comparison.methods]
    np.testing.assert_array_equal(shown["selected"], summary["n_selected"])
    np.testing.assert_array_equal(shown["GCP > α"], summary["gcp"] > comparison.alpha)


def test_a_carried_column_named_like_a_page_column_keeps_its_cells():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"item_id": [f"i{i}" for i in range(40)], "split": ["calibration"] * 20 + ["test"] * 20,
                          "score_m1": rng.normal(size=40), "score_m2": rng.normal(size=40)})
    frame["kept"] = [f"note{i}" for i in range(40)]
    frame["in set"] = "x"
    frame["transformed value p̃"] = "mine"
    table = jecs_core.table_from_frame(frame)
    comparison = jecs_core.compare_methods(table, alpha=0.5)
    shown = tables.items_page(table, comparison, "jecs", which="all", page_size=40).frame
    assert shown["kept (from the file)"].tolist() == [f"note{i}" for i in range(20, 40)]
    assert shown["in set (from the file)"].eq("x").all() and shown["transformed value p̃ (from the file)"].eq("mine").all()
    assert shown["kept"].tolist() == comparison.selected("jecs").tolist()
    assert shown["transformed value p̃"].dtype.kind == "f" and tables.IN_SET not in shown.columns



def test_a_carried_column_already_named_like_the_mark_keeps_its_name_and_the_marked_one_is_numbered():
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"item_id": [f"i{i}" for i in range(30)], "split": ["calibration"] * 10 + ["test"] * 20,
                          "score_m1": rng.normal(size=30)})
    frame["kept"] = "theirs"
    frame["kept (from the file)"] = "literal"
    table = jecs_core.table_from_frame(frame)
    comparison = jecs_core.compare_methods(table, alpha=0.5)
    shown = tables.items_page(table, comparison, "jecs", which="all", page_size=20).frame
    assert shown["kept (from the file)"].eq("literal").all()
    assert shown["kept (from the file, 2)"].eq("theirs").all()
    assert shown["kept"].tolist() == comparison.selected("jecs").tolist()
    assert shown.columns.is_unique

def test_an_id_whose_spaces_matter_is_found_as_typed():
    rng = np.random.default_rng(1)
    ids = ["m1", "m1 ", " x ", "x\ny", "x"]
    frame = pd.DataFrame({"item_id": [f"c{i}" for i in range(10)] + ids, "split": ["calibration"] * 10 + ["test"] * 5,
                          "score_a": rng.normal(size=15)})
    table = jecs_core.table_from_frame(frame)
    comparison = jecs_core.compare_methods(table, alpha=0.5)
    assert list(tables.item_indices(table, comparison, "jmcs", which="all", query="m1 ")) == [1]
    assert list(tables.item_indices(table, comparison, "jmcs", which="all", query="m1")) == [0]
    assert list(tables.item_indices(table, comparison, "jmcs", which="all", query=" x ")) == [2]
    assert list(tables.item_indices(table, comparison, "jmcs", which="all", query="  x")) == [4]  # no id "  x": stripped
