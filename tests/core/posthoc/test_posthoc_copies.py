"""Copies of test items and the post-hoc bound: the calibration urn is left out, and the bound holds.

The urn's thresholds assume contaminated items fall below calibration values independently; fifty
copies of one item fall together. These tests build such tables, check that the urn-based bound
is exceeded far more often than delta (so the check has teeth) and that the bound the library
chooses for them (closed testing alone) is not.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jecs_core as jc
from jecs_cli import main
from jecs_core.checks import cluster_comparison, find_duplicates
from jecs_core.posthoc import fit_post_hoc, post_hoc_calibration_size

ALPHAS = np.linspace(0.02, 0.5, 13)


def _frame(rng, *, unique_members: int, copies: int, clean: int, m: int, texts: bool = False,
           noise: float = 0.0) -> pd.DataFrame:
    """One model; calibration members and contaminated test items share a law, clean items score lower;
    ``noise`` perturbs each copy's score (a text scored again, on another batch)."""
    members = np.repeat(rng.normal(size=unique_members), copies)
    members = members + noise * rng.standard_normal(members.size)
    test = np.concatenate([members, rng.normal(-3.0, 1.0, clean)])
    frame = pd.DataFrame({
        "item_id": [f"c{i}" for i in range(m)] + [f"t{i}" for i in range(test.size)],
        "split": ["calibration"] * m + ["test"] * test.size,
        "score_a": np.concatenate([rng.normal(size=m), test]),
        "member_a": [True] * m + [True] * members.size + [False] * clean,
    })
    if texts:
        frame["text"] = [f"cal {i}" for i in range(m)] + [f"item {i}" for i in range(test.size)]
    return frame


def _violated(table, calibration_size, delta) -> bool:
    """Whether a nested top-r set of max-p or a storey-maxp selection holds more contaminated items than its bound."""
    p = jc.table_pvalues(table)
    bad = table.test_members.any(axis=1)
    fit = fit_post_hoc(p, delta=delta, calibration_size=calibration_size)
    order = np.argsort(fit.p_max, kind="stable")
    if np.any(np.concatenate([[0], np.cumsum(bad[order])]) > fit.top_set_bounds):
        return True
    rule = jc.get_rule("storey-maxp").prepare(p)
    return any((rule.select(a).selected & bad).sum() > fit.bound(rule.select(a).selected) for a in ALPHAS)


@pytest.mark.parametrize("noise", [0.0, 1e-9])  # exact copies, and copies scored again with float noise
def test_copied_contaminated_items_break_the_urn_and_not_the_bound_chosen_for_them(noise):
    rng = np.random.default_rng(20261129)
    delta, reps = 0.1, 200
    urn = chosen = 0
    for _ in range(reps):
        table = jc.table_from_frame(_frame(rng, unique_members=20, copies=50, clean=300, m=1000, noise=noise))
        size = post_hoc_calibration_size(table)
        assert size is None
        urn += _violated(table, table.m, delta)
        chosen += _violated(table, size, delta)
    se = np.sqrt(delta * (1 - delta) / reps)
    print(f"violations: urn-based {urn / reps:.3f}, chosen {chosen / reps:.3f}")
    assert urn / reps > delta + 4 * se, urn / reps  # the failure the choice avoids
    assert chosen / reps <= delta + 2 * se, chosen / reps


def test_a_table_without_copies_keeps_the_urn():
    table = jc.table_from_frame(_frame(np.random.default_rng(1), unique_members=200, copies=1, clean=300, m=400,
                                       texts=True))
    assert post_hoc_calibration_size(table) == 400
    assert post_hoc_calibration_size(table, duplicates=find_duplicates(table, near=False)) == 400


def test_copies_by_text_alone_count():
    frame = _frame(np.random.default_rng(2), unique_members=50, copies=1, clean=50, m=100, texts=True)
    frame.loc[frame.index[-1], "text"] = "  item   0 "  # the first test item's text, white space aside
    table = jc.table_from_frame(frame)
    assert post_hoc_calibration_size(table) is None
    report = find_duplicates(table, near=False)
    assert post_hoc_calibration_size(table, duplicates=report) is None and "calibration urn" in report.warnings()[0]


def test_a_clustered_comparison_shares_p_values_between_items():
    table = jc.table_from_frame(_frame(np.random.default_rng(3), unique_members=50, copies=1, clean=50, m=100))
    p = jc.table_pvalues(table)
    singles = cluster_comparison(p, np.arange(table.n), alpha=0.1, models=table.models)
    paired = cluster_comparison(p, np.arange(table.n) // 2, alpha=0.1, models=table.models)
    assert post_hoc_calibration_size(table, comparison=singles) == table.m
    assert post_hoc_calibration_size(table, comparison=paired) is None


@settings(max_examples=60, deadline=None)
@given(scores=st.lists(st.integers(0, 6), min_size=1, max_size=12), m=st.integers(1, 5))
def test_the_urn_is_left_out_exactly_when_two_test_rows_are_equal(scores, m):
    frame = pd.DataFrame({"item_id": [f"c{i}" for i in range(m)] + [f"t{i}" for i in range(len(scores))],
                          "split": ["calibration"] * m + ["test"] * len(scores),
                          "score_a": [0.5] * m + [float(s) for s in scores]})
    table = jc.table_from_frame(frame)
    expected = None if len(set(scores)) < len(scores) else m
    assert post_hoc_calibration_size(table) == expected


@pytest.mark.parametrize("copy", [False, True])
def test_jecs_select_records_the_bound_it_can_stand_behind(tmp_path, copy, capsys):
    frame = _frame(np.random.default_rng(4), unique_members=10, copies=5 if copy else 1, clean=100, m=200)
    frame.drop(columns="member_a").to_csv(tmp_path / "scores.csv", index=False)
    assert main(["select", str(tmp_path / "scores.csv"), "--out", str(tmp_path / "out.csv"), "--no-progress"]) == 0
    record = json.loads((tmp_path / "out.json").read_text())["post_hoc"]
    assert record["method"] == ("closed-simes-hommel" if copy else "closed-simes-hommel+conformal-urn")
    assert ("calibration urn" in capsys.readouterr().err) is copy


def test_the_duplicate_warning_names_the_urn_whenever_the_bound_leaves_it_out():
    table = jc.table_from_frame(_frame(np.random.default_rng(6), unique_members=50, copies=1, clean=50, m=100))
    labels = np.r_[0, np.arange(table.n - 1)]  # items 0 and 1: one cluster, each with its own scores
    report = dataclasses.replace(find_duplicates(table, near=False), near_groups=1, near_rows=2, clusters=labels)
    assert not report.exact and report.any
    assert "calibration urn" not in report.warnings()[0]  # item-level p-values: the urn stays
    assert "calibration urn" in report.warnings(clustered=True)[0]  # the cluster's shared p-value: it goes
    clustered = cluster_comparison(jc.table_pvalues(table), labels, alpha=0.1, models=table.models)
    assert post_hoc_calibration_size(table, duplicates=report) == table.m
    assert post_hoc_calibration_size(table, duplicates=report, comparison=clustered) is None


def test_covariate_aware_p_values_leave_the_urn_out_and_warn_nowhere():
    import warnings

    from jecs_core.simulate.shift_scenarios import mixture_shift

    table = jc.table_from_frame(mixture_shift(np.random.default_rng(1), pool_size=400))
    plain = jc.compare_pvalues(jc.table_pvalues(table), alpha=0.2)
    weighted = jc.compare_pvalues(jc.table_pvalues(table, covariates="all", shift_method="weighted"), alpha=0.2)
    assert post_hoc_calibration_size(table, comparison=plain) == table.m
    assert post_hoc_calibration_size(table, comparison=weighted) is None  # off the j / (m + 1) grid
    from jecs_core.leaderboard import results_from_frame
    from jecs_core.leaderboard.board import leaderboard

    results = results_from_frame(pd.DataFrame({"item_id": np.repeat(table.test_ids, table.K),
                                               "model": np.tile(table.models, table.n), "correct": 1}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "calibration_size: unused" would fail here
        leaderboard(table, results, alpha=0.2, covariates="all", shift_method="weighted")


def test_copies_at_float_noise_are_named_as_copies_and_distinct_scores_are_not():
    rng = np.random.default_rng(3)
    noisy = jc.table_from_frame(_frame(rng, unique_members=20, copies=5, clean=100, m=300, noise=1e-9))
    report = find_duplicates(noisy, near=False)
    # A copy whose noise straddles a rounding step stays apart; its group is still found by the others.
    assert report.score_groups == 20 and 90 <= report.score_rows <= 100 and report.exact
    assert post_hoc_calibration_size(noisy) is None
    apart = jc.table_from_frame(_frame(rng, unique_members=20, copies=5, clean=100, m=300, noise=1e-4))
    assert find_duplicates(apart, near=False).score_groups == 0 and post_hoc_calibration_size(apart) == 300


@pytest.mark.parametrize(("shift_method", "urn"), [("none", True), ("weighted", False), ("residual", False)])
def test_only_the_tables_plain_p_values_keep_the_urn(shift_method, urn):
    from jecs_core.simulate.shift_scenarios import location_shift

    table = jc.table_from_frame(location_shift(np.random.default_rng(0)))
    p = jc.table_pvalues(table, covariates="all", shift_method=shift_method)
    comparison = jc.compare_pvalues(p, alpha=0.2)
    # residual p-values sit on the j / (m + 1) grid too: the urn is left out for what made them, not their values
    assert (post_hoc_calibration_size(table, comparison=comparison) == table.m) is urn


@pytest.mark.parametrize(("shift_method", "method"), [("none", "closed-simes-hommel+conformal-urn"),
                                                      ("residual", "closed-simes-hommel")])
def test_jecs_select_leaves_the_urn_out_beside_residual_p_values(shift_method, method, tmp_path, capsys):
    from jecs_core.simulate.shift_scenarios import location_shift

    location_shift(np.random.default_rng(0)).to_csv(tmp_path / "shift.csv", index=False)
    argv = ["select", str(tmp_path / "shift.csv"), "--covariates", "x_len", "--shift-method", shift_method,
            "--out", str(tmp_path / "s.csv"), "--no-diagnostics", "--no-progress"]
    assert main(argv) == 0, capsys.readouterr().err
    assert json.loads((tmp_path / "s.json").read_text())["post_hoc"]["method"] == method
