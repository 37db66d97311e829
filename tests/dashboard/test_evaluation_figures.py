"""Evaluate page figures: data and figure properties."""

from __future__ import annotations

import numpy as np
import pytest

from dashboard.figures.evaluation import _gcp_power_data, _sweep_data, plot_gcp_power, plot_sweep
from jecs_core import METHODS, load_scores
from jecs_core.evaluate import evaluate, sweep_knn, sweep_lambda

SAMPLE = "sample_data/synthetic_k4.csv"


@pytest.fixture(scope="module")
def table():
    return load_scores(SAMPLE)


@pytest.fixture(scope="module")
def summary(table):
    return evaluate(table, alphas=(0.1, 0.2, 0.3), reps=12, seed=1).summary


def test_gcp_power_data_follows_the_summary(summary):
    series = _gcp_power_data(summary)
    assert [s.method for s in series] == [m for m in METHODS if m in set(summary.method)]
    first = summary[summary.method == series[0].method].sort_values("alpha")
    np.testing.assert_allclose(series[0].gcp, first["gcp"])
    np.testing.assert_allclose(series[0].power_se, first["power_se"])


def test_gcp_power_figure(summary):
    fig = plot_gcp_power(summary)
    bars = [t for t in fig.data if t.type == "bar"]
    lines = [t for t in fig.data if t.type == "scatter" and t.name.endswith("GCP")]
    assert len(bars) == len(lines) == summary.method.nunique()
    assert all(t.yaxis == "y2" for t in bars) and all(t.yaxis == "y" for t in lines)
    target = next(t for t in fig.data if t.name.startswith("target"))
    np.testing.assert_allclose(target.x, target.y)  # the diagonal
    union = next(t for t in lines if t.name.startswith("Union"))
    assert union.line.dash == "dot"
    first = next(m for m in METHODS if m in set(summary.method))
    np.testing.assert_allclose(lines[0].error_y.array, summary[summary.method == first].sort_values("alpha")["gcp_se"])


def test_sweep_data_orders_settings_with_auto_last(table):
    frame = sweep_knn(table, knns=(10, 2, None), alphas=(0.1, 0.2), reps=6)
    series, labels = _sweep_data(frame, 0.1)
    assert labels == ["2", "10", "auto"]
    jecs = next(s for s in series if s.method == "jecs")
    expected = frame[(frame.method == "jecs") & np.isclose(frame.alpha, 0.1)].set_index("setting")
    np.testing.assert_allclose(jecs.gcp, expected.loc[["2", "10", "auto"], "gcp"])
    np.testing.assert_array_equal(jecs.x, [0, 1, 2])


def test_sweep_figure_has_target_line_and_two_panels(table):
    frame = sweep_lambda(table, lambdas=(0.5, 0.7), alphas=(0.2,), reps=6)
    fig = plot_sweep(frame, alpha=0.2, parameter="λ")
    assert {t.xaxis for t in fig.data} == {"x", "x2"}
    assert fig.layout.shapes[0].y0 == 0.2
    assert list(fig.layout.xaxis.ticktext) == ["0.5", "0.7", "auto"]
