"""The report's leaderboard section: the ranking on the clean subset beside the full benchmark.

Drawn from a :class:`jecs_core.leaderboard.Leaderboard` (its ``frame`` and pairwise
table) with the Leaderboard page's figure; every cell is HTML-escaped.
"""

from __future__ import annotations

import html

import pandas as pd

from jecs_core.leaderboard import by_rank

from ..figures.leaderboard import plot_leaderboard

INTRO = ("Each model's mean per-item result on the full benchmark and on the clean subset (the selection above), "
         "with its 95% interval and the range its mean on the truly clean items can take when the contaminated "
         "items the subset may still hold were all answered right or all wrong. Rank 1 is the best.")


def _e(value) -> str:
    return html.escape(str(value), quote=True)


def _cell(value) -> str:
    if value is pd.NA:  # a model without a mean has no rank
        return "–"
    if isinstance(value, float):
        return "–" if value != value else f"{value:.4g}"
    return str(value)


def _grid(frame: pd.DataFrame) -> str:
    head = "".join(f"<th>{_e(c)}</th>" for c in frame.columns)
    body = "".join("<tr>" + "".join(f"<td>{_e(_cell(v))}</td>" for v in row) + "</tr>"
                   for row in frame.itertuples(index=False))
    return f"<table class='grid'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def leaderboard_section(board, *, include_plotlyjs: bool | str = False) -> str:
    """The section's HTML: the introduction, the figure, the table and the significant rank differences."""
    metric = board.metric
    frame = by_rank(board.frame)
    fig = plot_leaderboard(board.frame, metric=metric)
    div = fig.to_html(full_html=False, include_plotlyjs=include_plotlyjs, div_id="fig-leaderboard",
                      config={"displaylogo": False, "responsive": True})
    parts = [f"<p>{_e(INTRO)}</p>", f"<section class='figure' data-figure='leaderboard'>{div}</section>",
             _grid(frame)]
    pairs = board.pairwise
    if not pairs.empty:
        parts.append("<h3>Rank differences on the clean subset</h3>")
        parts.append(_grid(pairs))
    return "\n".join(parts)
