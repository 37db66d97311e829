"""Properties of the leaderboard on random small audits."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

import jecs_core as jc
from jecs_core.leaderboard import leaderboard


def _audit(seed: int, k: int, graded: bool):
    rng = np.random.default_rng(seed)
    n_cal, n_test = 150, 200
    member = np.r_[np.ones((n_cal, k)), rng.random((n_test, k)) < 0.3]
    frame = pd.DataFrame({"item_id": [f"i{j}" for j in range(n_cal + n_test)],
                          "split": ["calibration"] * n_cal + ["test"] * n_test,
                          **{f"score_m{j}": rng.normal(3 * member[:, j]) for j in range(k)}})
    table = jc.table_from_frame(frame)
    values = rng.random((n_test, k)) if graded else (rng.random((n_test, k)) < rng.random(k)).astype(float)
    return table, values


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 4), st.booleans(), st.sampled_from([0.1, 0.3]))
def test_intervals_ranges_and_ranks_are_consistent_and_row_order_does_not_matter(seed, k, graded, alpha):
    table, values = _audit(seed, k, graded)
    results = jc.ResultsTable(models=table.models, item_ids=table.test_ids, values=values)
    board = leaderboard(table, results, alpha=alpha)
    frame = board.frame
    clean = frame["n_clean"] > 0
    tol = 1e-12
    assert (frame.loc[clean, "ci_low"] <= frame.loc[clean, "accuracy_clean"] + tol).all()
    assert (frame.loc[clean, "accuracy_clean"] <= frame.loc[clean, "ci_high"] + tol).all()
    assert (frame.loc[clean, "bound_low"] <= frame.loc[clean, "accuracy_clean"] + tol).all()
    assert (frame.loc[clean, "accuracy_clean"] <= frame.loc[clean, "bound_high"] + tol).all()
    assert sorted(frame["rank_all"]) == sorted(pd.Series(-frame["accuracy_all"]).rank(method="min").astype(int))
    assert len(board.pairwise) == k * (k - 1) // 2
    assert 0 <= board.max_contaminated <= board.n_clean
    order = np.random.default_rng(seed).permutation(table.n)
    shuffled = jc.ResultsTable(models=table.models, item_ids=table.test_ids[order], values=values[order])
    pd.testing.assert_frame_equal(leaderboard(table, shuffled, alpha=alpha).frame, frame, check_exact=False, atol=1e-12)
