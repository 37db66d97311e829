"""Per-item explanations and selection warnings, checked against brute-force recomputation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jecs_core
from dashboard import explain, samples
from jecs_core.simulate.synthetic import wide_table


@pytest.fixture(scope="module")
def table():
    return samples.get(samples.PAPER_SAMPLE).loader()


@pytest.fixture(scope="module")
def comparison(table):
    return jecs_core.compare_methods(table, alpha=0.1)


def test_explanation_matches_brute_force(table, comparison):
    rng = np.random.default_rng(0)
    for method in comparison.methods:
        result = comparison.result(method)
        for index in rng.choice(table.n, 25, replace=False):
            item = explain.explain_item(table, comparison, int(index), method)
            row = comparison.pvalues[index]
            assert item.driver == table.models[int(np.argmax(row))] and item.p_max == row.max()
            assert item.pvalues["drives_max"].sum() == 1
            kept = bool(result.selected[index])
            assert item.selected[method] == kept
            assert ("keeps it" in item.reason) == kept and item.item_id in table.test_ids.astype(str)
            if item.ranking is not None:
                stat = item.ranking.values
                assert item.rank == 1 + int((stat < stat[index]).sum())
                # A step-up keeps exactly the items whose rank is within r*.
                assert kept == (item.rank <= item.ranking.r_star)


def test_explain_rejects_a_bad_index(table, comparison):
    with pytest.raises(ValueError, match="index"):
        explain.explain_item(table, comparison, table.n, "jmcs")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["a1", "a12", "b7", "A1x", "c", "a1"]), min_size=3, max_size=12), st.sampled_from(["a1", "a", "A", "b", "zz"]))
def test_find_items_exact_then_prefix(ids, query):
    ids = [f"{v}-{i}" if ids.count(v) > 1 else v for i, v in enumerate(ids)]  # ids are unique in a table
    frame = wide_table(np.zeros((5, 2)), np.arange(2 * len(ids), dtype=float).reshape(-1, 2), np.zeros((len(ids), 2)))
    frame.loc[frame["split"] == "test", "item_id"] = ids
    table = jecs_core.table_from_frame(frame)
    found = list(explain.find_items(table, query))
    test_ids = list(table.test_ids.astype(str))
    if query in test_ids:
        assert found == [test_ids.index(query)]
    else:
        assert found == [i for i, v in enumerate(test_ids) if v.lower().startswith(query.lower())]


@pytest.mark.filterwarnings("ignore::jecs_core.JECSFallbackWarning")
def test_warnings_small_calibration():
    rng = np.random.default_rng(4)
    # Five calibration rows: the smallest p-value is 1/6 > alpha.
    frame = wide_table(rng.standard_normal((5, 2)), rng.standard_normal((40, 2)) - 3, np.zeros((40, 2)))
    table = jecs_core.table_from_frame(frame)
    comparison = jecs_core.compare_methods(table, alpha=0.1)
    messages = [m for _, m in explain.selection_warnings(table, comparison)]
    assert any("1/(m+1) = 0.167" in m and "too small" in m for m in messages)
    assert explain.smallest_pvalue(5) == pytest.approx(1 / 6)


@pytest.mark.filterwarnings("ignore::jecs_core.JECSFallbackWarning")
def test_warnings_take_the_callers_duplicate_report(monkeypatch):
    from jecs_core.checks import find_duplicates

    rng = np.random.default_rng(5)
    scores = rng.standard_normal((30, 2)) + 3
    frame = wide_table(rng.standard_normal((50, 2)), np.vstack([scores, scores[:10]]), np.zeros((40, 2)))
    table = jecs_core.table_from_frame(frame)
    comparison = jecs_core.compare_methods(table, alpha=0.1)
    report = find_duplicates(table, near=False)
    expected = explain.selection_warnings(table, comparison)
    assert any("identical" in m.lower() or "duplicat" in m.lower() for _, m in expected)

    def recompute(*args, **kwargs):
        raise AssertionError("the page's cached report must be used")

    monkeypatch.setattr("jecs_core.checks.find_duplicates", recompute)
    assert explain.selection_warnings(table, comparison, duplicates=report) == expected


def test_bh_reach_is_the_smallest_rank_that_can_pass():
    for n, m, alpha in [(560, 240, 0.05), (100, 9, 0.3), (1000, 99, 0.1)]:
        need = explain.bh_reach(n, m, alpha)
        assert 1 / (m + 1) <= alpha * need / n + 1e-12
        assert need == 1 or 1 / (m + 1) > alpha * (need - 1) / n


def test_jmcs_zero_is_explained():
    rng = np.random.default_rng(5)
    # m = 19 calibration rows: smallest p = 0.05; BH at 0.1 needs half the items at that p-value.
    frame = wide_table(rng.standard_normal((19, 2)) + 1, rng.standard_normal((100, 2)), np.zeros((100, 2)))
    table = jecs_core.table_from_frame(frame)
    comparison = jecs_core.compare_methods(table, alpha=0.1, methods=["jmcs"])
    assert comparison.result("jmcs").n_selected == 0
    (method, message), = [w for w in explain.selection_warnings(table, comparison) if w[0] == "jmcs"]
    assert "selects nothing" in message and f"at least {explain.bh_reach(100, 19, 0.1):,}" in message


def test_a_model_that_keeps_every_item_out_is_named_beside_the_calibration_advice():
    from pathlib import Path

    import pandas as pd

    frame = pd.read_csv(Path(__file__).resolve().parents[2] / "sample_data" / "synthetic_k4.csv")
    frame = frame.drop(columns=[c for c in frame if c.startswith("member_")])
    frame["score_junk"] = np.arange(len(frame)) % 97  # an item number, not a detector
    table = jecs_core.table_from_frame(frame)
    comparison = jecs_core.compare_methods(table, alpha=0.1, methods=["jmcs"])
    (method, message), = [w for w in explain.selection_warnings(table, comparison) if w[0] == "jmcs"]
    assert "selects nothing" in message and ". Or a model that cannot tell members apart keeps every item out: junk alone" \
        in message
    clean = jecs_core.table_from_frame(frame.drop(columns="score_junk"))
    found = explain.selection_warnings(clean, jecs_core.compare_methods(clean, alpha=0.1, methods=["jmcs"]))
    assert not any("cannot tell members apart" in text for _, text in found)


def test_gcp_note_only_when_over_alpha(table, comparison):
    for method in comparison.methods:
        note = explain.gcp_note(comparison, method)
        assert (note is not None) == (comparison.metrics(method).gcp > comparison.alpha)


def test_the_items_own_text_is_the_text_column_wherever_it_stands():
    loaded = jecs_core.load_scores_bytes(b"item_id,split,score_a,source,text\nc1,calibration,2,007,first\n"
                                         b"c2,calibration,3,010,second\nt1,test,0.5,011,the passage\n", "up.csv")
    assert explain.text_columns(loaded) == ["text", "source"]  # carried columns are read as written, as text
    comparison = jecs_core.compare_methods(loaded, alpha=0.1, methods=[jecs_core.DEFAULT_METHOD])
    item = explain.explain_item(loaded, comparison, 0, jecs_core.DEFAULT_METHOD)
    assert item.text == "the passage"


def test_the_page_says_when_it_skips_the_near_duplicate_pass(monkeypatch):
    monkeypatch.setattr(explain, "NEAR_MAX_TEXTS_PAGE", 1)
    loaded = jecs_core.load_scores_bytes(b"item_id,split,score_a,text\nc1,calibration,2,a\nc2,calibration,3,b\n"
                                         b"t1,test,0.5,one text\nt2,test,0.7,another\n", "up.csv")
    comparison = jecs_core.compare_methods(loaded, alpha=0.1, methods=[jecs_core.DEFAULT_METHOD])
    messages = [m for _, m in explain.selection_warnings(loaded, comparison)]
    assert "Near-duplicate texts not checked above 1 test items (n = 2); jecs select checks up to 50,000" in messages


def test_tied_largest_p_values_name_no_model():
    from types import SimpleNamespace

    p = np.full((100, 3), 0.05)  # every item's p-values tie on the coarse grid
    p[:60] = [0.9, 0.85, 0.8]
    assert explain._blocking_model(SimpleNamespace(pvalues=p), ("alpha", "beta", "gamma")).count("alpha") == 1
    p[:60] = [0.9, 0.9, 0.9]  # ties everywhere: no model holds the max-p alone
    assert explain._blocking_model(SimpleNamespace(pvalues=p), ("alpha", "beta", "gamma")) == ""
