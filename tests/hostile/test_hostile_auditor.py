"""The auditor's mistakes caught without labels: reversed scores, duplicated items, cluster-level selection."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jecs_core as jc
from jecs_core.checks import cluster_pvalues, data_warnings, expand_clusters, find_duplicates, score_direction
from jecs_core.conformal import conformal_pvalues
from jecs_core.rules import select


def _frame(rng, *, m=150, clean=60, copies=(), shift=-3.0, K=2, text=True):
    cal = rng.normal(0, 1, (m, K))
    parts = [rng.normal(shift, 1, (clean, K))] + [np.repeat(rng.normal(0, 1, (1, K)), c, axis=0) for c in copies]
    test = np.vstack(parts)
    n = len(test)
    frame = pd.DataFrame({"item_id": [f"c{i}" for i in range(m)] + [f"t{i}" for i in range(n)],
                          "split": ["calibration"] * m + ["test"] * n})
    for k in range(K):
        frame[f"score_m{k}"] = np.r_[cal[:, k], test[:, k]]
    if text:
        words = np.array(["alpha", "river", "stone", "cloud", "maple", "orbit", "piano", "tiger", "lemon", "quartz",
                          "violet", "harbor", "candle", "meadow", "falcon", "copper", "signal", "winter"])
        draw = lambda: " ".join(rng.choice(words, 12))  # noqa: E731  (distinct random passages)
        texts = [draw() for _ in range(m + clean)]
        for c in copies:
            texts += [draw()] * c
        frame["text"] = texts
    return frame


def test_reversed_scores_flagged_and_right_way_not():
    rng = np.random.default_rng(3)
    frame = _frame(rng)
    assert score_direction(jc.table_from_frame(frame)).reversed_models == ()
    flipped = frame.assign(score_m0=-frame["score_m0"], score_m1=-frame["score_m1"])
    check = score_direction(jc.table_from_frame(flipped))
    assert check.reversed_models == ("m0", "m1") and check.share_pmax_high > 0.5
    (line,) = check.warnings()
    assert "--lower-is-member" in line and "Lower scores = member" in line
    assert score_direction(jc.table_from_frame(flipped, lower_is_member=True)).reversed_models == ()


def test_auc_matches_brute_force():
    rng = np.random.default_rng(4)
    frame = _frame(rng, m=40, clean=30).round(1)
    table = jc.table_from_frame(frame)
    check = score_direction(table)
    for k in range(table.K):
        t, c = table.test[:, k][:, None], table.calibration[:, k][None, :]
        assert check.auc[k] == pytest.approx(((t > c) + 0.5 * (t == c)).mean())


def test_direction_false_alarm_rate_on_exchangeable_tables():
    # Test items drawn like the calibration members (every test item a member): the check must stay quiet.
    rng = np.random.default_rng(5)
    alarms = 0
    for _ in range(200):
        frame = _frame(rng, m=60, clean=40, shift=0.0, text=False)
        alarms += score_direction(jc.table_from_frame(frame)).likely_reversed
    assert alarms <= 2


def test_duplicate_counts_and_clusters():
    rng = np.random.default_rng(6)
    report = find_duplicates(jc.table_from_frame(_frame(rng, copies=(10, 10, 5))))
    assert (report.score_groups, report.score_rows) == (3, 25)
    assert (report.text_groups, report.text_rows) == (3, 25)
    assert report.n_clusters == 60 + 3
    assert "25 items in 3 groups of identical score rows" in report.warnings()[0]
    assert find_duplicates(jc.table_from_frame(_frame(rng))).warnings() == []


def test_near_duplicate_texts_found_with_datasketch():
    pytest.importorskip("datasketch")
    rng = np.random.default_rng(7)
    frame = _frame(rng, clean=20)
    frame.loc[frame.index[-1], "text"] = frame["text"].iloc[-2] + "."  # a near copy of the previous test item
    report = find_duplicates(jc.table_from_frame(frame))
    assert (report.near_groups, report.near_rows, report.text_groups) == (1, 2, 0)
    assert report.n_clusters == 19


def test_a_skipped_near_duplicate_pass_says_so(monkeypatch):
    # Past the limit the pass does not run, and the note says where a larger one does.
    import jecs_core.checks.duplicates as duplicates

    monkeypatch.setattr(duplicates, "_near_edges", lambda texts: pytest.fail("the near-duplicate pass ran"))
    table = jc.table_from_frame(_frame(np.random.default_rng(9), clean=20, copies=(3,)))
    report = find_duplicates(table, near_max=10)
    assert report.notes == ("note: near-duplicate texts not checked above 10 test items (n = 23); jecs select checks "
                            f"up to {duplicates.NEAR_MAX_TEXTS:,}",)
    assert report.text_groups == 1 and report.warnings()[-1] == report.notes[0]  # exact copies are still found
    monkeypatch.setattr(duplicates, "NEAR_MAX_TEXTS", 20)  # a table past every limit: no "elsewhere"
    assert find_duplicates(table, near_max=20).notes == ("note: near-duplicate texts not checked above 20 test items (n = 23)",)
    assert find_duplicates(table, near=False).notes == ()
    # The dashboard's "check now" offer asks the same question the note answers.
    assert not duplicates.near_pass_limited(table, 10)  # n = 23 is past the command line's limit (20) too
    monkeypatch.setattr(duplicates, "NEAR_MAX_TEXTS", 50)
    assert duplicates.near_pass_limited(table, 10) and not duplicates.near_pass_limited(table, 23)
    assert not duplicates.near_pass_limited(jc.table_from_frame(_frame(np.random.default_rng(9), clean=20, text=False)), 10)


def test_calibration_copies_warned():
    rng = np.random.default_rng(8)
    frame = _frame(rng, m=300, text=False)
    frame.loc[:299, ["score_m0", "score_m1"]] = np.repeat(rng.normal(0, 1, (10, 2)), 30, axis=0)
    lines = data_warnings(jc.table_from_frame(frame))
    assert any("290 of the m = 300 calibration rows repeat" in line for line in lines)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=30), st.integers(1, 3), st.randoms(use_true_random=False))
def test_cluster_pvalues_are_member_maxima(labels, K, rnd):
    labels = np.unique(labels, return_inverse=True)[1].ravel()
    p = np.array([[rnd.random() for _ in range(K)] for _ in labels])
    grouped = cluster_pvalues(p, labels)
    for c in range(grouped.shape[0]):
        assert np.array_equal(grouped[c], p[labels == c].max(axis=0))
    assert (grouped[labels].max(axis=1) >= p.max(axis=1)).all()
    chosen = np.arange(grouped.shape[0]) % 2 == 0
    assert np.array_equal(expand_clusters(chosen, labels), chosen[labels])


def test_cluster_pvalues_refuse_bad_labels():
    with pytest.raises(ValueError, match="clusters"):
        cluster_pvalues([[0.1], [0.2]], [0, 2])


def test_cluster_level_storey_keeps_alpha_on_copies():
    # 3 contaminated items x 10 copies (K = 1): items as hypotheses overshoot, clusters do not.
    rng = np.random.default_rng(9)
    labels = np.repeat(np.arange(3), 10)
    item = cluster = 0.0
    tables = 600
    for _ in range(tables):
        p = conformal_pvalues(np.repeat(rng.normal(0, 1, (3, 1)), 10, axis=0), rng.normal(0, 1, (100, 1)))
        item += select(p, alpha=0.2, method="storey-maxp").selected.any()
        cluster += select(cluster_pvalues(p, labels), alpha=0.2, method="storey-maxp").selected.any()
    se = np.sqrt(0.2 * 0.8 / tables)
    assert item / tables > 0.2 + 2 * se
    assert cluster / tables <= 0.2 + 2 * se


def test_cli_warns_and_clusters(tmp_path):
    rng = np.random.default_rng(10)
    frame = _frame(rng, copies=(10, 10, 10))
    frame.to_csv(tmp_path / "dup.csv", index=False)
    run = subprocess.run(["jecs", "select", str(tmp_path / "dup.csv"), "--no-diagnostics", "--cluster", "duplicates",
                          "--out", str(tmp_path / "sel.csv")], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "63 clusters among n = 90" in run.stdout
    assert "duplicated test items: 30 items in 3 groups of identical score rows" in run.stderr
    side = json.loads((tmp_path / "sel.json").read_text())
    assert side["options"]["cluster"] == "duplicates"
    assert any("duplicated test items" in w for w in side["warnings"])
    out = pd.read_csv(tmp_path / "sel.csv")
    tested = out[out["item_id"].str.startswith("t")]
    copies = tested["item_id"].str[1:].astype(int) >= 60
    for block in np.split(tested.loc[copies, "selected"].to_numpy(), 3):  # each cluster kept or dropped whole
        assert block.all() or not block.any()


def test_cli_reversed_scores_named_and_no_safe_regime(tmp_path):
    rng = np.random.default_rng(11)
    frame = _frame(rng, text=False)
    frame[["score_m0", "score_m1"]] *= -1
    frame.to_csv(tmp_path / "rev.csv", index=False)
    run = subprocess.run(["jecs", "select", str(tmp_path / "rev.csv"), "--out", str(tmp_path / "s.csv")],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "scores may run the other way" in run.stderr and "--lower-is-member" in run.stderr
    assert "looks in its safe regime" not in run.stdout
    assert any("--lower-is-member" in w for w in json.loads((tmp_path / "s.json").read_text())["warnings"])


def test_page_warnings_name_the_switch_and_drop_calibration_advice():
    from dashboard.explain import selection_warnings

    rng = np.random.default_rng(12)
    frame = _frame(rng, text=False)
    frame[["score_m0", "score_m1"]] *= -1
    table = jc.table_from_frame(frame)
    found = [text for _, text in selection_warnings(table, jc.compare_methods(table, alpha=0.1))]
    assert any("Lower scores = member" in text for text in found)
    assert not any("More calibration items" in text for text in found)


def test_footnote_only_with_a_star(tmp_path):
    path = tmp_path / "clean.csv"
    rng = np.random.default_rng(13)
    frame = _frame(rng, text=False)
    for k in range(2):
        frame[f"member_m{k}"] = (frame["split"] == "calibration").astype(int)  # no test item is a member
    frame.to_csv(path, index=False)
    run = subprocess.run(["jecs", "select", str(path), "--no-diagnostics"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and " *" not in run.stdout and "GCP above alpha" not in run.stdout


def test_cli_clusters_and_warnings_share_one_duplicate_search(tmp_path, monkeypatch, capsys):
    import jecs_cli
    import jecs_core.checks as checks

    rng = np.random.default_rng(11)
    _frame(rng, copies=(5, 5)).to_csv(tmp_path / "dup.csv", index=False)
    searches = []
    real = checks.find_duplicates
    monkeypatch.setattr(checks, "find_duplicates", lambda *a, **k: searches.append(1) or real(*a, **k))
    assert jecs_cli.main(["select", str(tmp_path / "dup.csv"), "--no-diagnostics", "--cluster", "duplicates"]) == 0
    captured = capsys.readouterr()
    assert len(searches) == 1
    assert "duplicated test items: 10 items in 2 groups of identical score rows" in captured.err
    assert "clusters among n = " in captured.out
