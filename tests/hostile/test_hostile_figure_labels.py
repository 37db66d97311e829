"""User strings inside plotly figures (model and metric names) are drawn as typed: no markup, no template fields."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jecs_core as jc
from dashboard.figures._common import plotly_text
from dashboard.figures.distributions import plot_score_distributions
from dashboard.figures.leaderboard import plot_leaderboard

HOSTILE = ["<b>BOLD</b>", "<a href='https://evil.example/x'>click</a>", "%{y}", "100% & more", "a<br>b"]


def _unsafe(text: str) -> bool:
    """Markup plotly would draw, or a template field plotly would fill."""
    return "<" in text.replace("<br>", "").replace("<extra></extra>", "") or "%{y}" in text.replace("%{y:", "")


def _table(models) -> jc.ScoreTable:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"item_id": [f"i{i}" for i in range(60)], "split": ["calibration"] * 20 + ["test"] * 40})
    for k, name in enumerate(models):
        frame[f"score_{name}"] = rng.normal(size=60) + k
    return jc.table_from_frame(frame)


def test_distribution_titles_and_hovers_show_model_names_as_text():
    fig = plot_score_distributions(_table(HOSTILE))
    titles = [a.text for a in fig.layout.annotations]
    assert titles == [plotly_text(name) for name in HOSTILE]
    assert not any("<" in t or "%{" in t for t in titles)
    for trace in fig.data:
        user_part = trace.hovertemplate.split(" · ")[0]
        assert user_part in {plotly_text(name) for name in HOSTILE}
        assert "<" not in user_part and "%{" not in user_part


def test_leaderboard_metric_name_is_text():
    frame = pd.DataFrame({"model": ["a", "b"], "n_all": [10, 10], "accuracy_all": [0.5, 0.4], "n_clean": [5, 5],
                          "accuracy_clean": [0.4, 0.5], "ci_low": [0.1, 0.2], "ci_high": [0.7, 0.8],
                          "rank_all": [1, 2], "rank_clean": [2, 1], "move": [-1.0, 1.0]})
    fig = plot_leaderboard(frame, metric="<i>f1</i> %{x}")
    texts = [fig.layout.xaxis.title.text] + [t.hovertemplate for t in fig.data if t.hovertemplate]
    assert all("&lt;i&gt;f1&lt;/i&gt; &#37;{x}" in t for t in texts)
    assert not any("<i>" in t or "%{x} (" in t for t in texts)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=30))
def test_plotly_text_leaves_no_markup_and_no_template_field(text):
    shown = plotly_text(text)
    assert "<" not in shown and ">" not in shown and "%" not in shown
    # The entities plotly decodes give back exactly what was typed.
    import html
    assert html.unescape(shown) == text


@pytest.mark.parametrize("name", HOSTILE)
def test_each_hostile_name_alone(name):
    fig = plot_score_distributions(_table([name]))
    assert fig.layout.annotations[0].text == plotly_text(name) and not _unsafe(fig.data[0].hovertemplate)
