"""Learn page, post-hoc lessons: the numbers against independent computations, and the figures."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import jecs_core as jc
from dashboard.figures.lesson_posthoc import _granularity_data, _looking_data, plot_granularity, plot_looking
from dashboard.lesson_granularity import granularity_lesson, granularity_point, unreachable_thresholds
from dashboard.lesson_looking import (
    STRATEGIES,
    calibration_rows,
    looking_lesson,
    per_model_rate,
    simulate_audit,
)
from dashboard.lessons.granularity import granularity_text
from dashboard.lessons.looking import looking_text, strategy_table
from jecs_core.posthoc import fit_post_hoc, post_hoc_line, simes_template_bound
from jecs_core.simulate import paper_synthetic

SMALL = dict(n_items=120, n_models=2, share=0.4, mu=2.5, delta=0.1, alpha=0.1, reps=6, seed=3)


@pytest.fixture(scope="module")
def small():
    return looking_lesson(**SMALL)


def _frames(rng, reps, *, n_items, n_models, share, mu):
    """The same tables through the project's data-frame simulator: (p-values, contaminated, m) per table."""
    m = calibration_rows(n_items)
    for _ in range(reps):
        frame = paper_synthetic(rng, pool_size=n_items + m, n_models=n_models, calibration_fraction=m / (n_items + m),
                                contamination=per_model_rate(share, n_models), mu=mu)
        cal = (frame["split"] == "calibration").to_numpy()
        scores = frame.filter(like="score_").to_numpy()
        yield (jc.conformal_pvalues(scores[~cal], scores[cal]),
               frame.loc[~cal].filter(like="member_").to_numpy().any(axis=1), m)


def test_simulated_audit_is_the_paper_setup_drawn_as_arrays():
    pvalues, contaminated, m = next(_frames(np.random.default_rng(5), 1, n_items=90, n_models=3, share=0.5, mu=2.0))
    again, labels = simulate_audit(np.random.default_rng(5), n_items=90, n_models=3, share=0.5, mu=2.0)
    assert m == calibration_rows(90) == 39
    np.testing.assert_array_equal(again, pvalues)
    np.testing.assert_array_equal(labels, contaminated)
    assert 1 - (1 - per_model_rate(0.3, 4)) ** 4 == pytest.approx(0.3)


def test_every_set_its_labels_and_bound_match_a_direct_computation(small):
    rng = np.random.default_rng(SMALL["seed"])
    for row, (pvalues, bad, m) in enumerate(_frames(rng, SMALL["reps"], **{k: SMALL[k] for k in ("n_items", "n_models", "share", "mu")})):
        assert small.calibration_size == m
        for col, level in enumerate(small.alphas):
            mask = np.asarray(jc.select(pvalues, alpha=float(level), method="storey-maxp").selected, dtype=bool)
            assert small.n_selected[row, col] == mask.sum()
            assert small.contaminated[row, col] == (mask & bad).sum()
            assert small.bound[row, col] == jc.post_hoc_bound(pvalues, mask, delta=0.1, calibration_size=m)
    assert small.method == "closed-simes-hommel+conformal-urn" and small.rule == jc.DEFAULT_METHOD


def test_strategies_pick_what_they_say(small):
    fdp = np.where(small.n_selected > 0, small.contaminated / np.maximum(small.n_selected, 1), 0.0)
    np.testing.assert_allclose(small.fdp, fdp)
    assert np.all(small.alphas[small.picked("fixed")] == 0.1)
    most = small.picked("most")
    assert np.all(small.n_selected[np.arange(small.reps), most] == small.n_selected.max(axis=1))
    worst = small.picked("unluckiest")
    excess = fdp - small.alphas
    np.testing.assert_allclose(excess[np.arange(small.reps), worst], excess.max(axis=1))
    s = small.summary("unluckiest")
    assert s["mean_alpha"] == pytest.approx(small.alphas[worst].mean())
    assert s["share_above"] == pytest.approx(np.mean(fdp[np.arange(small.reps), worst] > small.alphas[worst]))
    assert np.array_equal(small.misses, (small.contaminated > small.bound).any(axis=1))
    with pytest.raises(ValueError, match="strategy"):
        small.picked("luckiest")


@settings(max_examples=12, deadline=None)
@given(n_items=st.integers(20, 80), n_models=st.integers(1, 3), share=st.floats(0.0, 0.8), mu=st.floats(1.0, 5.0),
       delta=st.sampled_from([0.05, 0.1, 0.2]), seed=st.integers(0, 10_000))
def test_lesson_invariants(n_items, n_models, share, mu, delta, seed):
    data = looking_lesson(n_items=n_items, n_models=n_models, share=share, mu=mu, delta=delta, reps=3, seed=seed,
                          alphas=[0.05, 0.1, 0.2, 0.4])
    assert np.all(np.diff(data.n_selected, axis=1) >= 0)  # a step-up set only grows with alpha
    assert np.all((data.contaminated >= 0) & (data.contaminated <= data.n_selected))
    assert np.all((data.bound >= 0) & (data.bound <= data.n_selected))
    rows = np.arange(data.reps)
    fixed, worst = data.picked("fixed"), data.picked("unluckiest")
    assert np.all(data.fdp[rows, worst] - data.alphas[worst] >= data.fdp[rows, fixed] - data.alphas[fixed])
    for key in STRATEGIES:
        assert 0.0 <= data.summary(key)["share_over_bound"] <= data.misses.mean()


def test_looking_figure_draws_the_lesson(small):
    fig = plot_looking(small)
    by_name = {t.name: t for t in fig.data}
    d = _looking_data(small)
    rows = np.arange(small.reps)
    np.testing.assert_allclose(d["fixed_y"], small.fdp[:, small.picked("fixed")[0]])
    np.testing.assert_allclose(d["worst_bound"], small.bound_fdp[rows, small.picked("unluckiest")])
    np.testing.assert_allclose(by_name["its post-hoc bound (one dash per table)"].y, d["worst_bound"])
    np.testing.assert_allclose(by_name["mean realized contamination at each α (GCR)"].y, small.fdp.mean(axis=0))
    assert np.all(np.abs(d["fixed_x"] - 0.1) <= 0.0041)
    diagonal = by_name["realized = α reported"]
    assert list(diagonal.x) == list(diagonal.y)
    top = fig.layout.yaxis.range[1]
    assert max(d["fixed_y"].max(), d["worst_y"].max(), d["worst_bound"].max()) <= top <= 1.02


def test_granularity_point_matches_the_library_on_the_same_tables():
    point = granularity_point(calibration_size=40, n_items=150, n_models=1, share=0.3, mu=3.0, delta=0.1, alpha=0.2, reps=4)
    rng = np.random.default_rng([0, 40])
    shares = []
    for _ in range(4):
        p, bad = simulate_audit(rng, n_items=150, n_models=1, share=0.3, mu=3.0, calibration_size=40)
        mask = np.asarray(jc.select(p, alpha=0.2).selected, dtype=bool)
        size = mask.sum()
        shares.append((fit_post_hoc(p, delta=0.1, calibration_size=40).bound(mask) / size,
                       fit_post_hoc(p, delta=0.1).bound(mask) / size,
                       simes_template_bound(p, mask, delta=0.1) / size, (mask & bad).sum() / size))
    expected = np.mean(shares, axis=0)
    assert point.tables == 4
    np.testing.assert_allclose([point.shipped, point.closed, point.template, point.truth], expected)
    assert point.closed <= point.template + 1e-12  # Hommel's h <= n
    assert point.clean_template == unreachable_thresholds(150, 40, 0.1) == 36


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 3000), m=st.integers(1, 3000), delta=st.sampled_from([0.01, 0.05, 0.1, 0.2, 0.3]))
def test_the_clean_floor_is_the_template_on_perfectly_clean_items(n, m, delta):
    ratio = n / (delta * (m + 1))
    assume(abs(ratio - round(ratio)) > 1e-6)  # an exact tie is decided by float rounding in the template
    clean = np.full(n, 1.0 / (m + 1))
    assert simes_template_bound(clean, np.ones(n, dtype=bool), delta=delta) == unreachable_thresholds(n, m, delta)


def test_granularity_lesson_and_figure():
    points = [granularity_point(calibration_size=m, n_items=100, n_models=1, reps=2) for m in (200, 20, 75)]
    data = granularity_lesson(points, chosen=75, n_items=100, delta=0.1, alpha=0.1)
    assert list(data.series("calibration_size")) == [20, 75, 200] and data.at_chosen.calibration_size == 75
    assert data.series("template")[0] >= data.series("template")[-1]  # a coarse grid costs more
    fig = plot_granularity(data)
    d = _granularity_data(data)
    shipped = next(t for t in fig.data if t.name.startswith("shipped bound"))
    np.testing.assert_allclose(shipped.y, d["shipped"])
    assert fig.layout.xaxis.type == "log" and fig.layout.shapes[0].x0 == 75
    with pytest.raises(ValueError, match="chosen"):
        granularity_lesson(points, chosen=76, n_items=100, delta=0.1, alpha=0.1)


@pytest.mark.parametrize("kwargs, name", [
    (dict(n_items=5), "n_items"), (dict(share=1.0), "share"), (dict(mu=0.0), "mu"), (dict(delta=1.0), "delta"),
    (dict(alpha=0.0), "alpha"), (dict(reps=0), "reps"), (dict(n_models=0), "n_models"),
])
def test_bad_arguments_name_themselves(kwargs, name):
    with pytest.raises(ValueError, match=name):
        looking_lesson(**{**SMALL, "reps": 1, **kwargs})
    with pytest.raises(ValueError, match="calibration_size"):
        granularity_point(calibration_size=0)


def test_texts_carry_the_numbers_and_survive_empty_selections(small):
    text = looking_text(small)
    assert f"on\n{int(small.misses.sum())} of {small.reps} tables" in text
    assert f"{small.summary('unluckiest')['share_above']:.1%} of the tables then" in text
    first = small.picked("fixed")[0]
    assert post_hoc_line(int(small.bound[0, first]), int(small.n_selected[0, first]), delta=0.1) in text
    table = strategy_table(small)
    assert list(table["mean α reported"]) == [f"{small.summary(k)['mean_alpha']:.3f}" for k in STRATEGIES]
    nothing = looking_lesson(n_items=100, n_models=16, mu=1.0, reps=2)
    assert not nothing.n_selected.any() and "keeps nothing at any α" in looking_text(nothing)
    point = granularity_point(calibration_size=10, n_items=100, n_models=16, mu=1.0, reps=2)
    assert point.tables == 0 and np.isnan(point.shipped)
    lesson = granularity_lesson([point], chosen=10, n_items=100, delta=0.1, alpha=0.1)
    assert "keeps nothing on these audits" in granularity_text(lesson)
    assert "first **90** thresholds" in granularity_text(lesson)
    plot_granularity(lesson)
    plot_looking(nothing)
