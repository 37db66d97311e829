"""Section 5 of the Learn page: picking alpha after looking, and the post-hoc bound that survives it."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from jecs_core.posthoc import post_hoc_line

from .. import lesson_cache
from ..figures.lesson_posthoc import plot_looking
from ..lesson_looking import STRATEGIES, LookingLesson
from .controls import AuditSetup


def strategy_table(data: LookingLesson) -> pd.DataFrame:
    """One row per way of choosing alpha: what it reports, what it gets, how often the bound misses.

    Parameters
    ----------
    data : LookingLesson

    Returns
    -------
    pandas.DataFrame
        Text cells, ready to show.
    """
    rows = []
    for key in STRATEGIES:
        s = data.summary(key)
        rows.append({
            "how α is chosen": s["strategy"],
            "mean α reported": f"{s['mean_alpha']:.3f}",
            "mean items kept": f"{s['mean_items']:.0f}",
            "mean realized contamination": f"{s['mean_fdp']:.3f}",
            "tables above the α reported": f"{s['share_above']:.1%}",
            "tables above the post-hoc bound": f"{s['share_over_bound']:.1%}",
        })
    return pd.DataFrame(rows)


def looking_text(data: LookingLesson) -> str:
    """The section's explanation, every number taken from ``data``.

    Parameters
    ----------
    data : LookingLesson

    Returns
    -------
    str
        Markdown.
    """
    if not data.n_selected.any():
        return (f"On these {data.reps} fresh audits (K = {data.n_models}, signal μ = {data.mu:g}) the default rule keeps "
                "nothing at any α of the slider, so there is nothing to pick and nothing to bound: raise the signal "
                "or lower K.")
    fixed, most, worst = (data.summary(key) for key in STRATEGIES)
    fixed_index = int(data.picked("fixed")[0])
    misses = int(data.misses.sum())
    example = post_hoc_line(int(data.bound[0, fixed_index]), int(data.n_selected[0, fixed_index]), delta=data.delta)
    allowed = data.delta * data.reps
    worst_mean = (f"and its mean realized contamination ({worst['mean_fdp']:.3f}) is above the mean α it reports "
                  f"({worst['mean_alpha']:.3f})" if worst["mean_fdp"] > worst["mean_alpha"] else
                  f"although its mean ({worst['mean_fdp']:.3f} against a mean α of {worst['mean_alpha']:.3f}) stays near the "
                  "α reported here: max-p is conservative (try K = 1 and a weaker signal)")
    verdict = ("within that" if misses <= allowed else "above that, which a few hundred tables can show by chance; "
               "docs/VALIDITY.md measures it on thousands")
    return f"""
A rule's guarantee ("controls the GCR" on its card) holds for an α fixed **before** the results are seen. Dragging
the slider and keeping the α where the subset looks best is another procedure, and the fixed-α
guarantee says nothing about it. Here {data.reps} fresh audits ({data.n_items} test items,
{data.calibration_size} calibration rows, K = {data.n_models}, {data.share:.0%} contaminated, signal μ = {data.mu:g})
each go through the default rule at every α of the slider, with the labels known.

- **α = {data.alpha:g} fixed before looking:** mean realized contamination {fixed['mean_fdp']:.3f}. That mean
  is what the guarantee is about; single tables scatter around it ({fixed['share_above']:.1%} of them are above α).
- **The unluckiest α on the slider**, per table the α whose set most exceeds the α it reports: without labels nobody can tell where a table is
  unlucky, so an auditor who picks after looking may land there. {worst['share_above']:.1%} of the tables then
  hold more contamination than the α reported, {worst_mean}.
- **The α with the most items** is the largest α tried (the set only grows with α); its contamination
  stays near that α (mean {most['mean_fdp']:.3f} at a mean α of {most['mean_alpha']:.3f}): keeping more is honest
  only if the larger α is what gets reported.

**The post-hoc bound** covers every set at once, so it does not care how the α was picked: on
{misses} of {data.reps} tables some set on the α path holds more contaminated items than its bound
(δ = {data.delta:g} allows up to {allowed:.0f} of {data.reps}: {verdict}). The price is width: at
α = {data.alpha:g} the bound is on average {data.bound_fdp[:, fixed_index].mean():.1%} of the set, against a true
{fixed['mean_fdp']:.1%}. Report it as the CLI and the cards do; for the first table at α = {data.alpha:g}:
*{example}*.
"""


def looking(audit: AuditSetup, alpha: float) -> None:
    """The simulation, its figure, the strategy table and the explanation."""
    st.header("5 · Picking α after looking", divider="gray")
    data = lesson_cache.looking(audit.n_items, audit.n_models, audit.share, audit.mu, audit.delta, alpha)
    left, right = st.columns([3, 2], gap="large")
    left.plotly_chart(plot_looking(data), width="stretch", key="learn.fig.looking")
    right.markdown(looking_text(data))
    st.table(strategy_table(data), border="horizontal", hide_index=True)
