"""The post-hoc bound in the HTML report and the dashboard's sidecar: the CLI's numbers, escaped strings, hand edits, commits."""

from __future__ import annotations

import json
from html import escape

import numpy as np
import pytest

import jecs_core
from dashboard import export
from dashboard.hand_edit import HandEdited, apply, store
from dashboard.report import PostHocContext, ReportInputs, build_report
from dashboard.report.posthoc import NOT_COMMITTED, section_html
from jecs_core.posthoc import post_hoc_line, post_hoc_record
from jecs_core.simulate.synthetic import wide_table

HOSTILE = "<img src=x onerror=alert(1)>"


def _labelled(prefix: str, seed: int):
    """A labelled table whose 60 test ids start with ``prefix``, and its comparison at alpha = 0.2."""
    rng = np.random.default_rng(seed)
    test = np.vstack([rng.standard_normal((30, 2)) - 3, rng.standard_normal((30, 2))])
    frame = wide_table(rng.standard_normal((120, 2)), test, np.r_[np.zeros((30, 2)), np.ones((30, 2))])
    frame.loc[frame["split"] == "test", "item_id"] = [f"{prefix}{i}" for i in range(60)]
    table = jecs_core.table_from_frame(frame)
    return table, jecs_core.compare_methods(table, alpha=0.2)


@pytest.fixture(scope="module")
def hostile():
    """A labelled table whose test ids are HTML."""
    return _labelled(HOSTILE, 3)


def _hand(table, comparison, method=jecs_core.DEFAULT_METHOD):
    base = comparison.selected(method)
    items = {int(np.flatnonzero(base)[0]): False, int(np.flatnonzero(~base)[0]): True}
    mask = apply(base, items)
    ids = np.asarray(table.test_ids).astype(str)
    edited = HandEdited(mask, method, comparison.alpha, tuple(ids[mask & ~base]), tuple(ids[base & ~mask]))
    return edited


def test_section_states_delta_bound_and_method_as_the_library(hostile):
    table, comparison = hostile
    method = jecs_core.DEFAULT_METHOD
    html = section_html(table, comparison, method, PostHocContext(delta=0.2))
    record = post_hoc_record(comparison.pvalues, comparison.selected(method), delta=0.2, calibration_size=table.m)
    bound = jecs_core.post_hoc_bound(comparison.pvalues, comparison.selected(method), delta=0.2,
                                     calibration_size=table.m)
    assert record["max_contaminated"] == bound
    assert "<td>0.2</td>" in html and "<td>80%</td>" in html and f"<td>{record['method']}</td>" in html
    assert f"at most {bound:,} of {record['n_selected']:,} items contaminated" in html
    assert escape(post_hoc_line(bound, record["n_selected"], delta=0.2)) in html
    assert escape(NOT_COMMITTED) in html


def test_hand_edited_set_and_commit_in_the_report_with_ids_escaped(hostile):
    table, comparison = hostile
    edited = _hand(table, comparison)
    commit = {"alpha": 0.2, "committed_utc": "2026-01-02T03:04:05+00:00", "first_shown_utc": "2026-01-02T03:04:09+00:00",
              "undone_earlier": [{"alpha": 0.1, "committed_utc": "2026-01-02T03:00:00+00:00", "how": "uncommitted",
                                  "undone_utc": "2026-01-02T03:01:00+00:00"}],
              "statement": "α = 0.2 was committed at 2026-01-02T03:04:05+00:00 UTC, before the results at that α were "
              "seen; results first shown at 2026-01-02T03:04:09+00:00 UTC."}
    context = PostHocContext(delta=0.1, hand_mask=edited.mask, hand_record=edited.record(), commit=commit)
    html = build_report(ReportInputs(table=table, comparison=comparison, method=jecs_core.DEFAULT_METHOD,
                                     data_name=HOSTILE, post_hoc=context))
    section = html.split("<section id='post-hoc'>", 1)[1].split("</section>", 1)[0]
    bound = jecs_core.post_hoc_bound(comparison.pvalues, edited.mask, delta=0.1, calibration_size=table.m)
    assert edited.label.startswith(f"hand-edited from {jecs_core.REGISTRY[jecs_core.DEFAULT_METHOD].label} at α = 0.2")
    assert edited.label in section and f"at most {bound:,} of {int(edited.mask.sum()):,}" in section
    assert "2026-01-02T03:04:05+00:00 UTC" in section and "2026-01-02T03:04:09+00:00 UTC" in section
    assert "uncommitted at 2026-01-02T03:01:00+00:00 UTC" in section
    assert "<img src=x" not in html and "&lt;img src=x onerror=alert(1)&gt;" in section
    sidecar = html.split("<section id='selection'>", 1)[1]
    assert "hand_edited" in sidecar and "alpha_commit" in sidecar


def test_sidecar_download_is_the_cli_block_and_follows_delta_and_the_hand_edit(hostile):
    table, comparison = hostile
    method = jecs_core.DEFAULT_METHOD
    plain = json.loads(export.json_bytes(table, comparison, method, post_hoc=PostHocContext(delta=0.25)))
    cli = jecs_core.selection_metadata(table, comparison, method, post_hoc_delta=0.25)["post_hoc"]
    assert plain["post_hoc"] == cli and cli["delta"] == 0.25
    assert "hand_edited" not in plain and "alpha_commit" not in plain
    edited = _hand(table, comparison)
    context = PostHocContext(delta=0.1, hand_mask=edited.mask, hand_record=edited.record())
    record = json.loads(export.json_bytes(table, comparison, method, post_hoc=context))
    expected = post_hoc_record(comparison.pvalues, edited.mask, delta=0.1, calibration_size=table.m)
    assert {k: record["post_hoc"][k] for k in expected} == expected
    assert record["post_hoc"]["set"] == edited.label
    assert record["hand_edited"]["added_ids"] == list(edited.added) and len(edited.removed) == 1
    other = json.loads(export.json_bytes(table, comparison, "jmcs", post_hoc=context))
    assert "hand_edited" not in other  # the edit started from another rule
    everything = json.loads(export.json_bytes(table, comparison, "all", post_hoc=context))
    assert everything["post_hoc"] == jecs_core.selection_metadata(table, comparison, "all")["post_hoc"]


def test_store_keeps_only_changes_from_the_rule():
    from dashboard import hand_edit

    base = np.array([True, True, False, False])
    store("ticks-test", [0, 2], base, [False, True])
    assert hand_edit.overrides("ticks-test") == {0: False, 2: True}
    assert apply(base, hand_edit.overrides("ticks-test")).tolist() == [False, True, True, False]
    store("ticks-test", [0], base, [True])  # a tick undone
    assert hand_edit.overrides("ticks-test") == {2: True}
    assert hand_edit.overrides("other") == {}  # edits belong to one data set


def test_each_listed_id_and_model_is_isolated_so_an_override_reorders_only_itself():
    # A right-to-left override in one id would otherwise print every id after it reversed.
    table, comparison = _labelled("id\u202e", 4)
    edited = _hand(table, comparison)
    context = PostHocContext(delta=0.1, hand_mask=edited.mask, hand_record=edited.record())
    html = build_report(ReportInputs(table=table, comparison=comparison, method=jecs_core.DEFAULT_METHOD,
                                     data_name="d", post_hoc=context))
    for listed in (*edited.added, *edited.removed):
        assert f"\u2068{escape(listed)}\u2069" in html
    assert f"\u2068{table.models[0]}\u2069, \u2068{table.models[1]}\u2069" in html
