"""Evaluate figures: visible power bars for every rule, aligned axes, legend clear of titles, sweeps at every α."""

from __future__ import annotations

import numpy as np
import pytest

import jecs_core
from dashboard.figures.evaluation import _sweep_data, plot_gcp_power, plot_sweep
from dashboard.theme import METHOD_COLORS, short_label
from jecs_core import load_scores
from jecs_core.evaluate import evaluate, sweep_lambda


@pytest.fixture(scope="module")
def table():
    return load_scores("sample_data/synthetic_k4.csv")


@pytest.fixture(scope="module")
def summary(table):
    return evaluate(table, alphas=(0.1, 0.2, 0.3), reps=8, seed=1).summary


def test_every_power_bar_is_filled_in_its_rule_colour(summary):
    fig = plot_gcp_power(summary)
    bars = [t for t in fig.data if t.type == "bar"]
    assert len(bars) == summary["method"].nunique()
    for bar in bars:
        method = next(m for m in jecs_core.METHODS if bar.name == f"{short_label(m)} power")
        assert bar.marker.color == METHOD_COLORS[method] and bar.opacity >= 0.5
        pattern = bar.marker.pattern
        if jecs_core.REGISTRY[method].guarantee is jecs_core.Guarantee.INVALID:
            assert pattern.fgcolor == METHOD_COLORS[method] and pattern.solidity >= 0.4  # hatched, not blank
        assert np.all(np.asarray(bar.y) > 0) or np.all(np.asarray(bar.y) >= 0)


def test_axes_share_ticks_and_legend_sits_below(summary):
    fig = plot_gcp_power(summary)
    left, right = fig.layout.yaxis, fig.layout.yaxis2
    assert tuple(left.range) == tuple(right.range) == (0, 1.0)
    assert left.dtick == right.dtick and left.tick0 == right.tick0
    assert fig.layout.legend.y < 0 and fig.layout.legend.yanchor == "top"


def test_sweep_plots_every_alpha(table):
    frame = sweep_lambda(table, lambdas=(0.5, 0.7), alphas=(0.1, 0.2, 0.3), reps=4)
    fig = plot_sweep(frame, parameter="λ")
    titles = [a.text for a in fig.layout.annotations if a.text.startswith(("GCP at", "power at"))]
    assert titles == [t for a in (0.1, 0.2, 0.3) for t in (f"GCP at α = {a:g}", f"power at α = {a:g}")]
    targets = sorted(s.y0 for s in fig.layout.shapes)
    assert targets == pytest.approx([0.1, 0.2, 0.3])
    n_methods = frame["method"].nunique()
    assert len(fig.data) == 3 * 2 * n_methods
    series, _ = _sweep_data(frame, 0.3)
    last = [t for t in fig.data if t.xaxis == "x5"]
    np.testing.assert_allclose(last[0].y, series[0].gcp)
    assert fig.layout.legend.y < 0
    one = plot_sweep(frame, parameter="λ", alpha=0.2)
    assert len(one.data) == 2 * n_methods
