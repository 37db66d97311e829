"""The post-hoc bound on the Select page (AppTest): card lines, δ in the URL, hand edits, "commit α first"."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import jecs_core
from dashboard import commit_view, hand_edit, samples, state
from dashboard.report import PostHocContext
from dashboard.report.posthoc import section_html

APP = str(Path(__file__).resolve().parents[2] / "app.py")
LINE = re.compile(r"data-method='([^']+)'.*?<div class='jecs-posthoc'>picked after looking: with ([\d.]+)% confidence "
                  r"at most (\d+) of these (\d+) items are contaminated", re.S)


@pytest.fixture(scope="module")
def table():
    return samples.get(samples.DEFAULT_SAMPLE).loader()


def _app(**params) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def _cards(at) -> str:
    found = [h.proto.body for h in at.get("html") if "class='jecs-cards'" in h.proto.body]
    return found[0] if found else ""


def _lines(at) -> dict[str, tuple[float, int, int]]:
    cards = _cards(at).split("<div class='jecs-card' ")
    out = {}
    for card in cards[1:]:
        match = LINE.search(card)
        assert match, card
        out[match[1]] = (float(match[2]), int(match[3]), int(match[4]))
    return out


def _clustered_select(table, name: str) -> AppTest:
    """The Select page on ``table`` (uploaded as ``<name>.csv``) with the cluster toggle on."""
    at = _app()
    for key, value in ((state.ACTIVE_TABLE, table), (state.ACTIVE_KEY, f"test:posthoc-{name}"),
                       (state.ACTIVE_NAME, f"{name}.csv"), (state.ACTIVE_ORIGIN, "upload"), (state.ACTIVE_TOKEN, None)):
        at.session_state[key] = value
    at.switch_page("views/select_page.py").run()
    at.toggle(key="select.cluster").set_value(True).run()
    return at


def _expected(table, alpha, delta=0.1) -> dict[str, tuple[int, int]]:
    comparison = jecs_core.compare_methods(table, alpha=alpha)
    return {m: (jecs_core.post_hoc_bound(comparison.pvalues, comparison.selected(m), delta=delta,
                                        calibration_size=table.m), int(comparison.selected(m).sum()))
            for m in comparison.methods}


def test_every_card_shows_the_library_bound_and_it_follows_alpha(table):
    at = _app()
    assert not at.exception
    for alpha in (0.1, 0.25):
        at.slider(key=state.ALPHA).set_value(alpha).run()
        assert not at.exception
        lines = _lines(at)
        assert set(lines) == set(jecs_core.METHODS)
        assert {m: v[1:] for m, v in lines.items()} == _expected(table, alpha)
        assert {v[0] for v in lines.values()} == {90.0}


def test_delta_from_the_url_and_its_widget(table):
    at = _app(delta="0.2")
    assert not at.exception and not at.info
    assert at.number_input(key=state.DELTA).value == pytest.approx(0.2)
    lines = _lines(at)
    assert {v[0] for v in lines.values()} == {80.0}
    assert {m: v[1:] for m, v in lines.items()} == _expected(table, 0.1, delta=0.2)
    assert at.query_params["delta"] == "0.2"
    at.number_input(key=state.DELTA).set_value(0.05).run()
    assert {v[0] for v in _lines(at).values()} == {95.0} and at.query_params["delta"] == "0.05"


@pytest.mark.parametrize("bad", ["abc", "0", "1.5", "-0.1", "nan", "<b>0.1</b>"])
def test_a_bad_delta_in_the_url_falls_back_with_one_notice(bad):
    at = _app(delta=bad)
    assert not at.exception
    notices = [i.value for i in at.info if "δ" in i.value]
    assert len(notices) == 1 and "δ = 0.1 is used instead" in notices[0] and "<b>" not in notices[0]
    assert {v[0] for v in _lines(at).values()} == {90.0}
    assert at.query_params["delta"] == "0.1"


def test_a_hand_edit_moves_the_bound_of_the_edited_set(table):
    at = _app(view="items")
    at.toggle(key=hand_edit.EDITING).set_value(True).run()
    assert not at.exception and len(at.data_editor) == 1
    editor = at.data_editor[0]
    page = editor.value
    base = jecs_core.compare_methods(table, alpha=0.1).selected(jecs_core.DEFAULT_METHOD)
    ids = np.asarray(table.test_ids).astype(str)
    at.session_state[editor.key] = {"edited_rows": {0: {hand_edit.IN_SET: False}, 1: {hand_edit.IN_SET: False}},
                                    "added_rows": [], "deleted_rows": []}
    at.run()
    assert not at.exception
    mask = base.copy()
    mask[np.isin(ids, page["item_id"].iloc[:2].to_numpy())] = False
    bound = jecs_core.post_hoc_bound(table_pvalues(table), mask, delta=0.1, calibration_size=table.m)
    texts = [t.value for t in at.text]
    assert any(t.startswith("Hand-edited set, hand-edited from ") and "(0 added, 2 removed)" in t for t in texts)
    assert f"at most {bound} of these {int(mask.sum())} items are contaminated" in " ".join(texts)
    # Undo one tick in the same editor (it keeps its key, so its edits accumulate): one item removed.
    assert [e.key for e in at.data_editor] == [editor.key]
    at.session_state[editor.key] = {"edited_rows": {0: {hand_edit.IN_SET: True}, 1: {hand_edit.IN_SET: False}},
                                    "added_rows": [], "deleted_rows": []}
    at.run()
    mask[np.isin(ids, page["item_id"].iloc[:1].to_numpy())] = True
    bound = jecs_core.post_hoc_bound(table_pvalues(table), mask, delta=0.1, calibration_size=table.m)
    texts = " ".join(t.value for t in at.text)
    assert "(0 added, 1 removed)" in texts and f"at most {bound} of these {int(mask.sum())} items" in texts
    at.button(key="hand-reset").click().run()
    assert not any(t.startswith("Hand-edited set") for t in (x.value for x in at.text))


def table_pvalues(table):
    return jecs_core.table_pvalues(table)


def test_commit_mode_hides_counts_until_the_commit_then_locks_alpha(table):
    at = _app(commit="first")
    assert not at.exception and _cards(at) == "" and not at.get("plotly_chart")
    assert any("Counts hidden" in i.value for i in at.info)
    at.slider(key=state.ALPHA).set_value(0.2).run()
    assert _cards(at) == ""
    at.button(key="commit-alpha").click().run()
    assert not at.exception and _cards(at) and at.slider(key=state.ALPHA).disabled
    record = at.session_state[commit_view.RECORD]
    assert record["alpha"] == 0.2 and record["committed_utc"] and record["first_shown_utc"]
    statement = commit_view.statement(record)
    assert "before the results at that α were seen" in statement and record["committed_utc"] in statement
    html = section_html(table, jecs_core.compare_methods(table, alpha=0.2), jecs_core.DEFAULT_METHOD,
                        PostHocContext(commit={**record, "statement": statement}))
    assert record["committed_utc"] in html and record["first_shown_utc"] in html
    at.button(key="uncommit-alpha").click().run()
    assert _cards(at) == "" and not at.slider(key=state.ALPHA).disabled
    assert at.session_state[commit_view.LOG][0]["how"] == "uncommitted"


def test_commit_after_seeing_says_so():
    at = _app()
    at.toggle(key=state.COMMIT_FIRST).set_value(True).run()
    assert _cards(at) == ""
    at.button(key="commit-alpha").click().run()
    statement = commit_view.statement(at.session_state[commit_view.RECORD])
    assert "had displayed the results at that α before the commit" in statement


def test_clustered_cards_bound_items_and_say_so():
    """One hypothesis per cluster: the card's bound is on the item-level p-values of the expanded item set."""
    import pandas as pd

    from jecs_core.checks import cluster_comparison, find_duplicates

    rng = np.random.default_rng(2)
    cal, clean = rng.normal(0, 1, (150, 2)), rng.normal(-3, 1, (60, 2))
    test = np.vstack([clean, np.repeat(rng.normal(0, 1, (3, 2)), 10, axis=0)])
    frame = pd.DataFrame({"item_id": [f"c{i}" for i in range(150)] + [f"t{i}" for i in range(90)],
                          "split": ["calibration"] * 150 + ["test"] * 90,
                          "score_a": np.r_[cal[:, 0], test[:, 0]], "score_b": np.r_[cal[:, 1], test[:, 1]]})
    table = jecs_core.table_from_frame(frame, source="dup.csv")
    at = _clustered_select(table, "dup")
    assert not at.exception
    clustered = cluster_comparison(jecs_core.table_pvalues(table), find_duplicates(table, near=True).clusters,
                                   alpha=0.1, models=table.models)
    lines = _lines(at)
    assert jecs_core.posthoc.post_hoc_calibration_size(table) is None  # copies: closed testing alone
    for method in clustered.methods:
        mask = clustered.selected(method)
        bound = jecs_core.post_hoc_bound(jecs_core.table_pvalues(table), mask, delta=0.1)
        assert lines[method][1:] == (bound, int(mask.sum()))
    assert "each copy of a duplicated item counts" in _cards(at)


def test_clustered_cards_and_the_export_record_agree_where_clusters_come_from_near_duplicate_texts():
    """Paraphrases with their own scores: no exact copies, yet the clusters' shared p-values are copies."""
    pytest.importorskip("datasketch", reason="near-duplicate texts need the 'text' extra")
    import pandas as pd

    from dashboard.report.posthoc import post_hoc_block
    from jecs_core.checks import cluster_comparison, find_duplicates

    rng = np.random.default_rng(5)
    words = [f"w{i}" for i in range(4000)]
    base = [" ".join(rng.choice(words, 80)) for _ in range(4)]
    texts = [f"cal {i}" for i in range(200)] + [" ".join(rng.choice(words, 80)) for _ in range(80)] \
        + [b.replace(b.split()[k], "changed", 1) for b in base for k in range(5)]
    test = np.vstack([rng.normal(-3, 1, (80, 2)), rng.normal(0, 1, (20, 2))])
    frame = pd.DataFrame({"item_id": [f"c{i}" for i in range(200)] + [f"t{i}" for i in range(100)],
                          "split": ["calibration"] * 200 + ["test"] * 100,
                          "score_a": np.r_[rng.normal(0, 1, 200), test[:, 0]],
                          "score_b": np.r_[rng.normal(0, 1, 200), test[:, 1]], "text": texts})
    table = jecs_core.table_from_frame(frame, source="near.csv")
    assert jecs_core.posthoc.post_hoc_calibration_size(table) == table.m  # no exact copies
    at = _clustered_select(table, "near")
    assert not at.exception
    clusters = find_duplicates(table, near=True).clusters
    assert np.unique(clusters).size < table.n  # the paraphrases form clusters
    clustered = cluster_comparison(jecs_core.table_pvalues(table), clusters, alpha=0.1, models=table.models)
    lines = _lines(at)
    for method in clustered.methods:
        record = post_hoc_block(table, clustered, method, PostHocContext(delta=0.1))
        assert record["method"] == "closed-simes-hommel"
        assert lines[method][1:] == (record["max_contaminated"], record["n_selected"])


def test_a_card_whose_bound_is_its_whole_set_says_why():
    from dashboard import posthoc_view

    bounds = {"whole": (5, 5), "some": (1, 10), "empty": (0, 0)}
    plain = posthoc_view.card_lines(bounds, 0.1)
    assert plain["whole"].endswith(posthoc_view.NOTHING_NOTE)
    assert not plain["some"].endswith(posthoc_view.NOTHING_NOTE) and "no bound" not in plain["empty"]
    copies = posthoc_view.card_lines(bounds, 0.1, urn_off=True)
    assert copies["whole"].endswith(posthoc_view.URN_OFF_NOTE) and "no bound" not in copies["some"]
