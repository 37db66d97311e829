"""The evaluator's public helpers check their arguments as evaluate() does, naming each one."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jecs_core as jc
from jecs_core.evaluate import draw_plan, draw_subsamples, evaluate
from jecs_core.simulate import make_scenario

outside_fraction = st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0, exclude_min=True),
                             st.just(float("nan")), st.text(max_size=3), st.booleans(), st.none())


@settings(max_examples=40, deadline=None)
@given(fraction=outside_fraction)
def test_a_fraction_outside_0_1_is_refused_as_evaluate_refuses_it(fraction):
    for draw in (draw_subsamples, draw_plan):
        with pytest.raises(ValueError, match=r"^fraction must be"):
            draw(10, 10, reps=1, fraction=fraction)


@pytest.mark.parametrize(("arguments", "message"), [
    (dict(reps=-1), r"^reps must be an integer >= 1, got -1$"),
    (dict(reps=0), r"^reps must be an integer >= 1, got 0$"),
    (dict(reps=2.5), r"^reps must be an integer >= 1, got 2.5$"),
    (dict(reps=True), r"^reps must be an integer >= 1, got True$"),
    (dict(reps=1, seed=-3), r"^seed must be a non-negative integer or None, got -3$"),
    (dict(reps=1, seed="7"), r"^seed must be a non-negative integer or None, got '7'$"),
])
def test_reps_and_seed_are_checked(arguments, message):
    for draw in (draw_subsamples, draw_plan):
        with pytest.raises(ValueError, match=message):
            draw(10, 10, **arguments)


@pytest.mark.parametrize(("sizes", "name"), [((0, 10), "n_calibration"), ((10, -1), "n_test"), ((10, 2.5), "n_test")])
def test_set_sizes_are_positive_integers(sizes, name):
    with pytest.raises(ValueError, match=rf"^{name} must be an integer >= 1"):
        draw_subsamples(*sizes, reps=1)


def test_a_fraction_of_one_draws_everything_and_a_small_one_at_least_one_item():
    assert draw_subsamples(10, 7, reps=2, fraction=1.0).test.tolist() == [list(range(7))] * 2
    assert draw_subsamples(10, 7, reps=1, fraction=0.01).test.shape == (1, 1)


def test_format_sweep_refuses_what_is_no_sweep_frame():
    with pytest.raises(ValueError, match=r"^frame must be a sweep's result .* it lacks the columns \['parameter'"):
        jc.format_sweep(pd.DataFrame())
    with pytest.raises(TypeError, match=r"^frame must be a pandas.DataFrame from a sweep"):
        jc.format_sweep(None)
    table = make_scenario("paper", np.random.default_rng(0), pool_size=200)
    frame = jc.sweep_lambda(table, lambdas=(0.5,), alphas=(0.2,), reps=2, seed=0, methods=["jmcs"], workers=1)
    with pytest.raises(ValueError, match=r"^frame must hold at least one row of a sweep, got an empty frame$"):
        jc.format_sweep(frame.iloc[:0])
    assert jc.format_sweep(frame).startswith("lambda sweep, alpha = 0.2")


def test_format_evaluation_refuses_what_is_no_evaluation():
    for bad in (None, pd.DataFrame()):
        with pytest.raises(TypeError, match=r"^evaluation must be an Evaluation \(what jecs_core.evaluate.evaluate"):
            jc.format_evaluation(bad)
    table = make_scenario("paper", np.random.default_rng(0), pool_size=200)
    text = jc.format_evaluation(evaluate(table, alphas=(0.2,), reps=2, seed=0, methods=["jmcs"], workers=1), source="s")
    assert text.splitlines()[0] == "input: s"


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"alphas": (0.1, 0.1)}, r"^alphas must hold each level once, got 0.1 more than once$"),
    ({"alphas": "0.1"}, r"^alphas must be a number or a sequence of numbers in \(0, 1\), got '0.1'$"),
    ({"knn": 10_000}, r"^knn: 10000 is more than the n = 840 test items$"),
])
def test_evaluate_refuses_what_the_command_line_refuses(kwargs, message):
    from jecs_core import load_scores
    from jecs_core.evaluate import evaluate

    table = load_scores(Path(__file__).resolve().parents[3] / "sample_data" / "synthetic_k4.csv")
    with pytest.raises(ValueError, match=message):
        evaluate(table, reps=2, **kwargs)
