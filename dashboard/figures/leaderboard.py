"""Leaderboard page: each model's score on the full benchmark against the certified clean subset.

One row per model, best clean rank on top.  The filled dot is the model's mean on the
clean subset with its 95% interval; the band behind it is the range its mean on the truly
clean items can take when the contaminated items the subset may still hold were all
answered right or all wrong; the hollow dot is the full-benchmark mean, and an arrow runs
from it to the clean dot (a long arrow pointing left is a score contamination inflated).
The right margin gives each model's rank on the full benchmark and on the clean subset.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..theme import ALL_ITEMS_COLOR, CONTAMINATED_COLOR, REFERENCE_COLOR, SPLIT_COLORS, figure, layout
from ._common import plotly_text

CLEAN_COLOR = "#0f766e"
BOUND_COLOR = "rgba(15, 118, 110, 0.18)"
UP_COLOR = SPLIT_COLORS["non_member"]
DOWN_COLOR = CONTAMINATED_COLOR
BOUND_COLUMNS = ("bound_low", "bound_high")


@dataclass(frozen=True)
class LeaderboardData:
    models: tuple[str, ...]  # best clean rank first
    full: np.ndarray
    clean: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    bound_low: np.ndarray | None  # None when the leaderboard has no bound range
    bound_high: np.ndarray | None
    rank_all: np.ndarray  # float: NaN for a model without a mean (no rank)
    rank_clean: np.ndarray
    n_all: np.ndarray
    n_clean: np.ndarray
    # Places gained on the clean subset (positive: higher once contamination is removed), counted among the
    # models ranked on both sides; NaN for a model without one of the ranks.
    moves: np.ndarray


def _leaderboard_data(frame: pd.DataFrame) -> LeaderboardData:
    """The figure's numbers from a leaderboard frame (``jecs_core.leaderboard``'s ``Leaderboard.frame``)."""
    rows = frame.sort_values(["rank_clean", "rank_all", "model"], kind="stable")

    def col(name: str) -> np.ndarray:
        return rows[name].to_numpy(dtype=float)

    bounded = all(c in rows.columns for c in BOUND_COLUMNS) and bool(rows[list(BOUND_COLUMNS)].notna().any().any())
    return LeaderboardData(
        models=tuple(str(m) for m in rows["model"]),
        full=col("accuracy_all"), clean=col("accuracy_clean"), ci_low=col("ci_low"), ci_high=col("ci_high"),
        bound_low=col("bound_low") if bounded else None, bound_high=col("bound_high") if bounded else None,
        rank_all=rows["rank_all"].to_numpy(dtype=float, na_value=np.nan),
        rank_clean=rows["rank_clean"].to_numpy(dtype=float, na_value=np.nan),
        n_all=rows["n_all"].to_numpy(dtype=int), n_clean=rows["n_clean"].to_numpy(dtype=int),
        moves=rows["move"].to_numpy(dtype=float, na_value=np.nan),
    )


def _move_text(move: float) -> str:
    if np.isnan(move):
        return ""
    return f"▲{move:.0f}" if move > 0 else f"▼{-move:.0f}" if move < 0 else "="


def _rank_text(rank: float) -> str:
    return "–" if np.isnan(rank) else f"#{rank:.0f}"


def _segments(y, low, high) -> tuple[list, list]:
    xs, ys = [], []
    for label, a, b in zip(y, low, high):
        xs += [a, b, None]
        ys += [label, label, None]
    return xs, ys


def plot_leaderboard(frame: pd.DataFrame, metric: str = "accuracy") -> go.Figure:
    """Dot plot: full benchmark (hollow) -> clean subset (filled, 95% interval, bound band), rank changes at the right."""
    data = _leaderboard_data(frame)
    # Plotly reads a little HTML in labels: a model name is shown as typed, never as markup.
    y = [plotly_text(m) for m in data.models]
    metric = plotly_text(metric)
    custom = [[int(a), int(c), _rank_text(ra), _rank_text(rc)]
              for a, c, ra, rc in zip(data.n_all, data.n_clean, data.rank_all, data.rank_clean)]
    traces = []
    if data.bound_low is not None:
        bx, by = _segments(y, data.bound_low, data.bound_high)
        traces.append({"type": "scatter", "x": bx, "y": by, "mode": "lines", "name": "Range on the truly clean items",
                       "line": {"color": BOUND_COLOR, "width": 14}, "hoverinfo": "skip"})
    traces.append({
        "type": "scatter", "x": data.full, "y": y, "mode": "markers", "name": "Full benchmark",
        "marker": {"symbol": "circle-open", "size": 11, "color": ALL_ITEMS_COLOR, "line": {"width": 2}},
        "customdata": custom,
        "hovertemplate": f"%{{y}}<br>full benchmark: {metric} %{{x:.3f}} on %{{customdata[0]:,}} items"
                         "<br>rank %{customdata[2]}<extra></extra>",
    })
    traces.append({
        "type": "scatter", "x": data.clean, "y": y, "mode": "markers", "name": "Clean subset (95% interval)",
        "marker": {"size": 11, "color": CLEAN_COLOR},
        "error_x": {"type": "data", "symmetric": False, "array": data.ci_high - data.clean,
                    "arrayminus": data.clean - data.ci_low, "color": CLEAN_COLOR, "thickness": 1.5, "width": 5},
        "customdata": custom,
        "hovertemplate": f"%{{y}}<br>clean subset: {metric} %{{x:.3f}} on %{{customdata[1]:,}} items"
                         "<br>rank %{customdata[3]}<extra></extra>",
    })
    arrows = [{"x": c, "y": label, "ax": f, "ay": label, "xref": "x", "yref": "y", "axref": "x", "ayref": "y",
               "showarrow": True, "arrowhead": 2, "arrowsize": 1.2, "arrowwidth": 1.5, "arrowcolor": REFERENCE_COLOR,
               "standoff": 6, "startstandoff": 6, "text": ""}
              for label, f, c in zip(y, data.full, data.clean) if abs(f - c) > 1e-12]
    ranks = [{"x": 1.01, "y": label, "xref": "paper", "yref": "y", "xanchor": "left", "showarrow": False,
              "text": f"{_rank_text(ra)} → {_rank_text(rc)} {_move_text(move)}",
              "font": {"color": UP_COLOR if move > 0 else DOWN_COLOR if move < 0 else REFERENCE_COLOR}}
             for label, ra, rc, move in zip(y, data.rank_all, data.rank_clean, data.moves)]
    n_changed = int(((data.moves != 0) & ~np.isnan(data.moves)).sum())  # an unranked model does not count
    title = (f"Full benchmark against the clean subset: {n_changed} of {len(y)} models change rank" if n_changed
             else f"Full benchmark against the clean subset: the ranking of the {len(y)} models is unchanged")
    return figure(traces, layout(
        title=title, height=max(300, 70 + 46 * len(y)), margin={"l": 60, "r": 130, "t": 60, "b": 50},
        xaxis={"title": {"text": f"{metric} (mean per item)"}, "zeroline": False},
        yaxis={"autorange": "reversed", "type": "category", "automargin": True, "title": {"text": ""}},
        annotations=arrows + ranks,
    ))
