"""Learn page: the lesson's numbers and figures."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dashboard.figures.lesson import plot_cutoff_gap, plot_envelope_lesson, plot_null_densities, plot_power_vs_k
from dashboard.lesson_data import (
    POWER_METHODS,
    PowerLesson,
    cutoff_lesson,
    density_lesson,
    envelope_lesson,
    maxp_null_cdf,
    maxp_null_density,
    power_lesson,
    simulate_null_maxp,
)
from dashboard.lessons.power import default_note, jecs_note


def test_density_is_derivative_of_cdf_and_integrates_to_one():
    x = np.linspace(0, 1, 10_001)
    for eta, c in ((0.0, 8), (0.3, 4), (1.0, 5), (0.5, 1)):
        f = maxp_null_density(x, eta=eta, c=c)
        assert np.trapezoid(f, x) == pytest.approx(1.0, abs=1e-6)
        np.testing.assert_allclose(np.gradient(maxp_null_cdf(x, eta=eta, c=c), x)[1:-1], f[1:-1], atol=1e-3)


def test_simulation_matches_formula_in_the_right_tail():
    # Non-holders are masked above ~0.1, so the simulated CDF follows eta x + (1 - eta) x^c there.
    rng = np.random.default_rng(0)
    sims = simulate_null_maxp(rng, n_items=40_000, n_models=6, eta=0.3, exposure=3)
    for x in (0.3, 0.5, 0.7, 0.9):
        assert np.mean(sims <= x) == pytest.approx(maxp_null_cdf(x, eta=0.3, c=3), abs=0.01)


def test_moving_k_changes_the_maxp_density_as_the_formula_says():
    small, large = density_lesson(n_models=2, eta=0.2), density_lesson(n_models=8, eta=0.2)
    np.testing.assert_allclose(large.maxp_density, 0.2 + 0.8 * 8 * large.x**7)
    assert large.mass_above_half > small.mass_above_half
    fig = plot_null_densities(large)
    curve = next(t for t in fig.data if t.name.startswith("max-p null density"))
    np.testing.assert_allclose(curve.y, large.maxp_density)
    assert "c = 8" in curve.name


def test_cutoff_gap_grows_with_k_and_tighter_alpha():
    def gap(k, alpha):
        d = cutoff_lesson(n_models=k, alpha=alpha)
        return np.mean(d.natural_scale - d.bh_cutoff)

    assert gap(8, 0.1) > gap(2, 0.1) and gap(4, 0.05) > gap(4, 0.3)
    fig = plot_cutoff_gap(cutoff_lesson(n_models=4, alpha=0.1))
    assert {t.name.split(",")[0] for t in fig.data} >= {"natural null scale (r/n)^(1/K)", "BH cut-off α·r/n"}
    with pytest.raises(ValueError, match="alpha"):
        cutoff_lesson(n_models=4, alpha=1.0)


def test_envelope_lesson_dominates_the_null_cdf():
    data = envelope_lesson(n_models=4, eta=0.3, lam=0.6)
    assert data.dominates and data.pi0_hat >= data.pi0_true - 0.05
    fig = plot_envelope_lesson(data)
    env = next(t for t in fig.data if t.name == "fitted envelope F_fit")
    np.testing.assert_allclose(env.y, data.envelope)
    assert fig.layout.shapes[0].x0 == 0.6


def test_power_lesson_shapes_and_jecs_not_weaker():
    data = power_lesson(max_models=3, eta=0.3, alpha=0.2, reps=4, pool_size=400)
    assert list(data.n_models) == [1, 2, 3]
    assert all(v.shape == (3,) for v in (*data.gcp.values(), *data.power.values()))
    assert np.all(data.power["jecs"] >= data.power["jmcs"] - 0.05)
    fig = plot_power_vs_k(data)
    assert [t.type for t in fig.data].count("bar") == 3
    assert any(t.name == "Storey-BH on max-p (default) power" for t in fig.data)
    assert fig.layout.shapes[0].y0 == 0.2


def test_bad_lesson_arguments():
    with pytest.raises(ValueError, match="exposure"):
        density_lesson(n_models=3, eta=0.2, exposure=5)
    with pytest.raises(ValueError, match="eta"):
        density_lesson(n_models=3, eta=1.5)


@settings(max_examples=100, deadline=None)
@given(gcp=st.lists(st.floats(0.0, 0.4), min_size=1, max_size=8), alpha=st.sampled_from([0.05, 0.1, 0.2]))
def test_the_k_chart_note_names_exactly_the_k_above_alpha(gcp, alpha):
    ks = np.arange(1, len(gcp) + 1)
    zeros = np.zeros(len(gcp))
    data = PowerLesson(ks, {"jmcs": zeros, "storey-maxp": zeros, "jecs": np.array(gcp)},
                       {m: zeros for m in POWER_METHODS}, alpha, 12)
    above = data.above_alpha("jecs")
    assert [k for k, _ in above] == [int(k) for k, g in zip(ks, gcp) if g > alpha]
    note = jecs_note(data)
    if above:
        assert "asymptotic" in note and all(f"K = {k} ({g:.3f})" in note for k, g in above)
        assert ("At K = 1 the null max-p is uniform" in note) == (above[0][0] == 1)
    else:
        assert "at or below α" in note
    assert default_note(data) == ""
