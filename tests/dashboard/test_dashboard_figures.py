"""The figure builders: their data agrees with jecs_core, and the figures carry it."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

import jecs_core
from dashboard import samples
from dashboard.explain import ranking
from dashboard.figures import (
    plot_envelope,
    plot_lambda_grid,
    plot_maxp_histogram,
    plot_overlap,
    plot_score_distributions,
    plot_stepup,
)
from dashboard.figures._common import thin
from dashboard.figures.catalog import build_all, get_figure_spec
from dashboard.figures.distributions import _score_distribution_data
from dashboard.figures.envelope import _envelope_data
from dashboard.figures.grid import _lambda_grid_data
from dashboard.figures.maxp import _maxp_histogram_data
from dashboard.figures.overlap import _overlap_data
from dashboard.figures.stepup import _stepup_data
from dashboard.theme import METHOD_COLORS, PALETTE
from jecs_core.simulate.synthetic import wide_table


@pytest.fixture(scope="module")
def table():
    return samples.get(samples.PAPER_SAMPLE).loader()


@pytest.fixture(scope="module")
def comparison(table):
    return jecs_core.compare_methods(table, alpha=0.1)


def _no_fit_table():
    """All test items look like strong non-members: every max-p is 1/(m+1), no tail above any lambda."""
    rng = np.random.default_rng(0)
    frame = wide_table(4 + rng.standard_normal((50, 2)), -20 + rng.standard_normal((30, 2)), np.zeros((30, 2)))
    return jecs_core.table_from_frame(frame)


def test_thin_keeps_ends_and_requested_points():
    idx = thin(10_000, 100, keep=range(5000, 5010))
    assert idx[0] == 0 and idx[-1] == 9999
    assert set(range(5000, 5010)) <= set(idx.tolist())
    assert np.all(np.diff(idx) > 0)
    assert thin(50, 100).tolist() == list(range(50))


def test_score_distributions_integrate_to_one(table):
    data = _score_distribution_data(table, bins=30)
    assert [d.model for d in data] == list(table.models)
    for dist, k in zip(data, range(table.K)):
        assert set(dist.densities) == {"calibration", "non_member", "member"}
        for heights in dist.densities.values():
            assert np.sum(heights * np.diff(dist.edges)) == pytest.approx(1.0)
        assert dist.counts["member"] == int(table.test_members[:, k].sum())
        assert dist.counts["calibration"] == table.m
    fig = plot_score_distributions(table, ["m1", "m3"])
    assert isinstance(fig, go.Figure)
    assert [a.text for a in fig.layout.annotations] == ["m1", "m3"]
    assert sum(t.showlegend for t in fig.data) == 3  # one legend entry per group


def test_score_distributions_unlabelled(table):
    bare = jecs_core.ScoreTable(table.models, table.calibration, table.test, table.calibration_ids, table.test_ids)
    assert set(_score_distribution_data(bare)[0].densities) == {"calibration", "test"}


def test_maxp_histogram_data(table, comparison):
    fit = comparison.jecs.fit
    data = _maxp_histogram_data(fit, table.contaminated, bins=20)
    width = np.diff(data.edges)
    assert np.sum(data.all_density * width) == pytest.approx(1.0)
    # The contaminated bars are the contaminated share of the whole sample.
    assert np.sum(data.contaminated_density * width) == pytest.approx(table.contaminated.mean())
    assert data.lam == fit.lam
    fig = plot_maxp_histogram(fit, table.contaminated)
    names = [t.name for t in fig.data]
    assert any("contaminated" in n for n in names) and "Uniform(0, 1) density" in names
    uniform = next(t for t in fig.data if t.name.startswith("Uniform"))
    assert list(uniform.y) == [1, 1]
    assert any(s.x0 == fit.lam for s in fig.layout.shapes)  # lambda marked
    assert len(plot_maxp_histogram(fit).data) == 2  # without labels: no contaminated bars


def test_envelope_data_matches_jecs_core(table, comparison):
    fit = comparison.jecs.fit
    data = _envelope_data(fit, table.contaminated)
    assert data.anchor == (fit.lam, fit.F_fit_lambda)
    assert data.linear_branch.y[-1] == pytest.approx(fit.F_fit_lambda)
    assert data.linear_branch.y[0] == 0.0
    np.testing.assert_allclose(data.tail_branch.y, fit.envelope_at(data.tail_branch.x))
    assert data.tail_branch.y[-1] == pytest.approx(1.0)
    assert np.all(np.diff(data.ecdf.y) >= 0) and data.ecdf.y[-1] == pytest.approx(1.0)
    assert data.null_ecdf is not None and data.null_ecdf.y[-1] == pytest.approx(1.0)
    fig = plot_envelope(fit, table.contaminated, color=METHOD_COLORS["jecs"])
    anchor = next(t for t in fig.data if t.name.startswith("anchor"))
    assert (anchor.x[0], anchor.y[0]) == (fit.lam, pytest.approx(fit.F_fit_lambda))
    linear = next(t for t in fig.data if "linear branch" in t.name)
    assert linear.line.color == METHOD_COLORS["jecs"]


@pytest.mark.filterwarnings("ignore::jecs_core.JECSFallbackWarning")
def test_envelope_on_fallback():
    fit = jecs_core.compare_methods(_no_fit_table(), alpha=0.1).jecs.fit
    assert fit.envelope is None
    data = _envelope_data(fit)
    assert data.anchor is None and data.fallback_reason
    fig = plot_envelope(fit)
    assert "No envelope" in fig.layout.annotations[0].text


def test_stepup_data(comparison):
    result = comparison.jecs
    data = _stepup_data(result)
    assert data.r_star == result.r_star > 0
    assert data.line_slope == pytest.approx(result.alpha / (result.pi0_hat * data.n))
    # r* is where the sorted values last sit under the line.
    at = np.searchsorted(data.rank, data.r_star)
    assert data.statistic_sorted[at] <= data.line_slope * data.r_star + 1e-12
    assert np.all(data.statistic_sorted[data.rank > data.r_star] > data.line_slope * data.rank[data.rank > data.r_star])
    assert data.statistic.startswith("transformed")
    fig = plot_stepup(result)
    marker = next(t for t in fig.data if t.name.startswith("r* ="))
    assert marker.x[0] == result.r_star and marker.y[0] == pytest.approx(result.threshold)


def test_stepup_reads_any_step_up_rule(comparison):
    """Every registered rule whose result has a step and a statistic gets the same figure, in its colour."""
    drawn = 0
    for method in comparison.methods:
        result = comparison.result(method)
        if ranking(result) is None:
            continue
        data = _stepup_data(result)
        brute = np.sort(getattr(result, "p_tilde", None) if hasattr(result, "p_tilde") else result.p_max)
        np.testing.assert_allclose(data.statistic_sorted, brute[data.rank - 1])
        assert data.r_star == result.n_selected
        fig = plot_stepup(result, color=METHOD_COLORS[method])
        assert fig.data[0].line.color == METHOD_COLORS[method]
        drawn += 1
    assert drawn >= 2
    with pytest.raises(ValueError, match="step-up"):
        _stepup_data(comparison.result("union"))


def test_stepup_with_nothing_selected():
    # Every test item scores far above the calibration members: all p-values are 1, nothing is selected.
    rng = np.random.default_rng(1)
    frame = wide_table(rng.standard_normal((50, 2)), 20 + rng.standard_normal((30, 2)), np.ones((30, 2)))
    result = jecs_core.compare_methods(jecs_core.table_from_frame(frame), alpha=0.1).jecs
    assert result.r_star == 0
    fig = plot_stepup(result)
    assert "r* = 0" in fig.layout.annotations[0].text
    assert not any(t.name.startswith("r* =") for t in fig.data)


def test_overlap_data_counts(comparison):
    data = _overlap_data(comparison)
    assert sum(data.counts) + data.n_none == len(comparison.p_max)
    assert data.counts == sorted(data.counts, reverse=True)
    for j, method in enumerate(data.methods):
        in_method = sum(c for p, c in zip(data.patterns, data.counts) if p[j])
        assert in_method == data.sizes[method] == comparison.selected(method).sum()
    fig = plot_overlap(comparison)
    assert list(fig.data[0].y) == data.counts
    labels = list(fig.layout.yaxis2.ticktext)
    assert any("Union" in t and "invalid" in t for t in labels)
    for method, label in zip(data.methods, labels):
        rule = jecs_core.REGISTRY[method]
        assert ("invalid" in label) == (rule.guarantee is jecs_core.Guarantee.INVALID)
        assert ("asymptotic" in label) == (rule.guarantee is jecs_core.Guarantee.ASYMPTOTIC)


def test_lambda_grid(comparison):
    fit = comparison.jecs.fit
    frame = _lambda_grid_data(fit)
    assert frame.equals(fit.grid.to_frame())
    fig = plot_lambda_grid(fit, color="#123456")
    chosen = int(np.flatnonzero(frame["chosen"])[0])
    assert fig.data[0].marker.color[chosen] == "#123456"
    assert fig.data[0].y[chosen] == pytest.approx(frame["slope"].min())


def test_method_colours_are_distinct_and_complete():
    assert list(METHOD_COLORS) == list(jecs_core.METHODS)  # registry order
    assert len(set(METHOD_COLORS.values())) == len(METHOD_COLORS)
    assert [METHOD_COLORS[m] for m in jecs_core.METHODS] == list(PALETTE[: len(jecs_core.METHODS)])


def test_catalogue_builds_every_figure_for_every_rule(comparison):
    """Figures that apply to a rule are built; the others say so by returning None (no name checks)."""
    for method in comparison.methods:
        built = build_all(comparison, method)
        assert {"maxp", "overlap"} <= set(built)
        assert ("stepup" in built) == (ranking(comparison.result(method)) is not None)
        for key, fig in built.items():
            assert isinstance(fig, go.Figure) and fig.layout.title.text, key
    assert get_figure_spec("overlap").key == "overlap"
    with pytest.raises(ValueError, match="figure"):
        get_figure_spec("nope")
