"""Results on two scales (percent for one model, fractions for the others) are named, not silently ranked."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import jecs_core as jc
from jecs_core.leaderboard import leaderboard, results_from_frame


def _table(n=60, m=30):
    rng = np.random.default_rng(3)
    return jc.table_from_frame(pd.DataFrame({
        "item_id": [f"c{i}" for i in range(m)] + [f"t{i}" for i in range(n)],
        "split": ["calibration"] * m + ["test"] * n,
        **{f"score_{k}": np.r_[rng.normal(2, 1, m), rng.normal(-2, 1, n)] for k in "abc"},
    }))


def _results(table, scale):
    rng = np.random.default_rng(4)
    rows = [(i, k, float(rng.integers(0, 2)) * scale[k]) for k in "abc" for i in table.test_ids]
    return results_from_frame(pd.DataFrame(rows, columns=["item_id", "model", "correct"]), metric="correct")


def _scale_lines(board):
    return [w for w in board.warnings if "runs above 1" in w]


def test_a_model_in_percent_beside_models_in_fractions_is_named():
    table = _table()
    with pytest.warns(UserWarning):
        board = leaderboard(table, _results(table, {"a": 100.0, "b": 1.0, "c": 1.0}), alpha=0.5)
    (line,) = _scale_lines(board)
    assert line.startswith("'correct' runs above 1 for 1 model(s) ('a' (0 to 100)) and within [0, 1] for 2")


@pytest.mark.parametrize("scale", [{"a": 1.0, "b": 1.0, "c": 1.0}, {"a": 100.0, "b": 100.0, "c": 100.0}])
def test_one_scale_for_every_model_says_nothing(scale):
    table = _table()
    board = leaderboard(table, _results(table, scale), alpha=0.5)
    assert _scale_lines(board) == []


def test_the_warning_gives_each_named_model_its_own_range():
    table = _table()
    rng = np.random.default_rng(5)
    rows = [(i, k, float(rng.integers(10, 91)) if k == "a" else float(rng.random())) for k in "abc" for i in table.test_ids]
    results = results_from_frame(pd.DataFrame(rows, columns=["item_id", "model", "f1"]), metric="f1")
    with pytest.warns(UserWarning):
        board = leaderboard(table, results, alpha=0.5)
    (line,) = _scale_lines(board)
    low, high = min(r[2] for r in rows if r[1] == "a"), max(r[2] for r in rows if r[1] == "a")
    assert f"('a' ({low:g} to {high:g}))" in line and low > 0
