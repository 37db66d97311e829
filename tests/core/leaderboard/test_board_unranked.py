"""Results the leaderboard does not rank change none of its methods, and a model without the unselected items has no inflation."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from jecs_core import ResultsTable, load_results, load_scores
from jecs_core.leaderboard import LeaderboardWarning, leaderboard


def _with_extra_rows(results, ids, rows) -> ResultsTable:
    return ResultsTable(models=results.models, item_ids=np.r_[results.item_ids, ids], values=np.r_[results.values, rows],
                        metric=results.metric)


def test_a_graded_value_on_an_unranked_item_leaves_a_0_1_metric_0_1(audit):
    table, results = load_scores(audit.scores), load_results(audit.results)
    plain = leaderboard(table, results, seed=1)
    extra = _with_extra_rows(results, [audit.calibration_ids[0], "nowhere"], [[0.5, 1, 1], [1, 2.5, 0]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        board = leaderboard(table, extra, seed=1)
    assert board.binary and set(board.pairwise["test"]) == {"exact McNemar"}
    lines = [str(w.message) for w in caught if w.category is LeaderboardWarning]
    assert not any("0/1 except" in line for line in lines)  # no stray value among the ranked results
    assert any("calibration items" in line for line in lines) and any("not in the score table" in line for line in lines)
    assert board.frame.equals(plain.frame)


def test_the_stray_value_is_shown_with_every_digit_that_tells_it_from_0_or_1(audit):
    table, results = load_scores(audit.scores), load_results(audit.results)
    values = results.values.copy()
    values[7, 1] = 1.0000000001
    edited = ResultsTable(models=results.models, item_ids=results.item_ids, values=values, metric=results.metric)
    with pytest.warns(LeaderboardWarning, match=r"0/1 except 1 result\(s\) \(first: 1\.0000000001 for model 'm1'"):
        leaderboard(table, edited, seed=1)


@pytest.mark.parametrize("graded", [False, True])
def test_a_model_without_results_outside_the_clean_subset_has_no_inflation(audit, graded):
    table, results = load_scores(audit.scores), load_results(audit.results)
    values = results.values * 0.9 + 0.05 if graded else results.values.copy()
    full = ResultsTable(models=results.models, item_ids=results.item_ids, values=values, metric=results.metric)
    selected = leaderboard(table, full, seed=1).selected
    rows = np.flatnonzero(~selected)  # the results' rows are the test items in the table's order
    assert (full.item_ids[rows] == table.test_ids[rows].astype(str)).all() and rows.size
    values = values.copy()
    values[rows, 1] = np.nan  # m1 re-run on the clean items only
    rerun = ResultsTable(models=results.models, item_ids=results.item_ids, values=values, metric=results.metric)
    with pytest.warns(LeaderboardWarning, match=rf"model\(s\) \['m1'\] have no result on any of the {rows.size} test "
                                                 r"items outside the clean subset .*inflation is unknown \(NaN\)"):
        board = leaderboard(table, rerun, seed=1)
    row = board.frame.iloc[1]
    assert np.isnan(row[["inflation", "inflation_low", "inflation_high"]].to_numpy(dtype=float)).all()
    assert row["accuracy_all"] == pytest.approx(row["accuracy_clean"])
    others = board.frame.iloc[[0, 2]]
    assert np.isfinite(others[["inflation", "inflation_low", "inflation_high"]].to_numpy(dtype=float)).all()
    # Its clean mean is not ranked among the others' full means; they rank among themselves.
    assert pd.isna(row["rank_all"]) and sorted(others["rank_all"].tolist()) in ([1, 2], [1, 1])
    assert not pd.isna(row["rank_clean"]) and any("no rank on the full benchmark" in w for w in board.warnings)
    assert pd.isna(row["move"]) and not others["move"].isna().any()


def test_a_model_ranked_on_one_side_only_moves_no_other_model():
    """m1 has results on the clean items only (no full mean): m0 and m2 keep their order, so neither moves."""
    from jecs_core.leaderboard.board import _moves

    kept = _moves(np.array([0.9, np.nan, 0.5]), np.array([0.8, 0.95, 0.7]))
    assert pd.isna(kept[1]) and (kept[0], kept[2]) == (0, 0)
    swapped = _moves(np.array([0.9, np.nan, 0.5]), np.array([0.6, 0.95, 0.7]))
    assert (swapped[0], swapped[2]) == (-1, 1)
    assert _moves(np.array([np.nan, 0.4]), np.array([0.5, np.nan])).isna().all()


def test_a_results_table_keeps_its_own_read_only_copy():
    values, ids = np.array([[1.0], [0.0]]), np.array(["x", "y"], dtype=object)
    table = ResultsTable(models=("a",), item_ids=ids, values=values)
    values[:] = 7.0
    ids[:] = "z"
    assert table.values.ravel().tolist() == [1.0, 0.0] and table.item_ids.tolist() == ["x", "y"]
    for array in (table.values, table.item_ids):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 0
