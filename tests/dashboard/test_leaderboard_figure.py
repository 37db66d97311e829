"""The Leaderboard figure: its data (order, ranks, moves, bound band) and the drawn figure's properties."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dashboard.figures.leaderboard import (
    BOUND_COLOR,
    CLEAN_COLOR,
    DOWN_COLOR,
    UP_COLOR,
    _leaderboard_data,
    plot_leaderboard,
)


def _frame(bounds: bool = True) -> pd.DataFrame:
    frame = pd.DataFrame({
        "model": ["exposed", "honest", "mid"],
        "n_all": [300, 300, 300], "accuracy_all": [0.50, 0.30, 0.40],
        "n_clean": [120, 120, 120], "accuracy_clean": [0.20, 0.32, 0.25],
        "ci_low": [0.14, 0.25, 0.18], "ci_high": [0.28, 0.40, 0.33],
        "rank_all": [1, 3, 2], "rank_clean": [3, 1, 2], "move": [-2.0, 2.0, 0.0],
    })
    if bounds:
        frame["bound_low"] = [0.18, 0.29, 0.23]
        frame["bound_high"] = [0.23, 0.35, 0.28]
    return frame


def test_data_orders_by_clean_rank_and_counts_moves():
    data = _leaderboard_data(_frame())
    assert data.models == ("honest", "mid", "exposed")
    np.testing.assert_allclose(data.clean, [0.32, 0.25, 0.20])
    np.testing.assert_allclose(data.full, [0.30, 0.40, 0.50])
    assert data.moves.tolist() == [2, 0, -2]
    np.testing.assert_allclose(data.bound_low, [0.29, 0.23, 0.18])


def test_an_unranked_model_shows_no_rank_and_no_move_and_is_not_counted_as_moved():
    frame = _frame()
    frame["rank_clean"] = pd.array([pd.NA, 1, 2], dtype="Int64")
    frame.loc[0, ["accuracy_clean", "ci_low", "ci_high"]] = np.nan
    # Moves count among the models ranked on both sides: honest 2nd of the two on the full benchmark, 1st clean.
    frame["move"] = [np.nan, 1.0, -1.0]
    data = _leaderboard_data(frame)
    assert data.models[-1] == "exposed" and np.isnan(data.moves[-1])
    fig = plot_leaderboard(frame)
    texts = [a.text for a in fig.layout.annotations if a.xref == "paper"]
    assert "#1 → – " in texts and "#3 → #1 ▲1" in texts
    assert fig.layout.title.text.startswith("Full benchmark against the clean subset: 2 of 3 models change rank")


def test_data_without_bound_columns_has_no_band():
    data = _leaderboard_data(_frame(bounds=False))
    assert data.bound_low is None and data.bound_high is None
    fig = plot_leaderboard(_frame(bounds=False))
    assert [t.name for t in fig.data] == ["Full benchmark", "Clean subset (95% interval)"]


def test_figure_draws_full_clean_interval_band_and_rank_arrows():
    fig = plot_leaderboard(_frame(), metric="exact match")
    band, full, clean = fig.data
    assert band.line.color == BOUND_COLOR
    assert list(band.x) == [0.29, 0.35, None, 0.23, 0.28, None, 0.18, 0.23, None]
    assert list(full.y) == ["honest", "mid", "exposed"] and full.marker.symbol == "circle-open"
    np.testing.assert_allclose(full.x, [0.30, 0.40, 0.50])
    assert clean.marker.color == CLEAN_COLOR
    np.testing.assert_allclose(clean.error_x.array, [0.08, 0.08, 0.08])
    np.testing.assert_allclose(clean.error_x.arrayminus, [0.07, 0.07, 0.06])
    arrows = [a for a in fig.layout.annotations if a.showarrow]
    assert [(a.ax, a.x) for a in arrows] == [(0.30, 0.32), (0.40, 0.25), (0.50, 0.20)]
    ranks = {a.y: (a.text, a.font.color) for a in fig.layout.annotations if not a.showarrow}
    assert ranks["honest"] == ("#3 → #1 ▲2", UP_COLOR)
    assert ranks["exposed"] == ("#1 → #3 ▼2", DOWN_COLOR)
    assert ranks["mid"][0] == "#2 → #2 ="
    assert "2 of 3 models change rank" in fig.layout.title.text
    assert fig.layout.xaxis.title.text == "exact match (mean per item)"
    assert fig.layout.yaxis.autorange == "reversed"  # rank 1 on top


def test_equal_scores_draw_no_arrow_and_unchanged_ranking_says_so():
    frame = _frame()
    frame["accuracy_all"] = frame["accuracy_clean"]
    frame["rank_all"] = frame["rank_clean"]
    frame["move"] = 0.0
    fig = plot_leaderboard(frame)
    assert not [a for a in fig.layout.annotations if a.showarrow]
    assert "ranking of the 3 models is unchanged" in fig.layout.title.text


@pytest.mark.parametrize("name", ["<b>bold</b>", "<a href='javascript:alert(1)'>x</a>"])
def test_model_names_are_shown_as_text_not_markup(name):
    frame = _frame()
    frame.loc[0, "model"] = name
    fig = plot_leaderboard(frame)
    labels = set(fig.data[1].y)
    assert "<" not in "".join(labels) and any("&lt;" in label for label in labels)
