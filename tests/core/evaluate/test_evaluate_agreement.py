"""The evaluator's two paths agree on a kNN size above the test items drawn per repetition, and its arguments are
refused in one line naming them."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from jecs_cli import main
from jecs_core import load_scores
from jecs_core.evaluate import evaluate

SAMPLE = str(Path(__file__).resolve().parents[3] / "sample_data" / "synthetic_k4.csv")


@pytest.fixture(scope="module")
def table():
    return load_scores(SAMPLE)


@pytest.mark.parametrize("knn", [700, 840])
def test_a_knn_above_the_drawn_items_gives_one_result_on_both_paths_and_warns(table, knn):
    runs = []
    for accelerate in (True, False):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            runs.append(evaluate(table, reps=3, methods=["jecs"], knn=knn, accelerate=accelerate))
        assert any(str(w.message).startswith(f"knn: {knn} above the 672 test items drawn per repetition")
                   for w in caught)
    fast, generic = runs
    for name in ("gcp", "power", "n_selected", "fit_lambda", "fit_pi0"):
        assert np.array_equal(getattr(fast, name), getattr(generic, name), equal_nan=True), name
    at_n = evaluate(table, reps=3, methods=["jecs"], knn=672, accelerate=False)
    assert np.array_equal(fast.gcp, at_n.gcp) and np.array_equal(fast.power, at_n.power)


def test_the_command_line_warns_on_a_knn_above_the_drawn_items(capsys):
    assert main(["evaluate", SAMPLE, "--reps", "2", "--methods", "jecs", "--knn", "700"]) == 0
    assert "knn: 700 above the 672 test items drawn per repetition" in capsys.readouterr().err


def test_a_knn_within_the_drawn_items_does_not_warn(table):
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        evaluate(table, reps=2, methods=["jecs"], knn=10)


@pytest.mark.parametrize("kwargs, message", [
    ({"accelerate": "no"}, r"^accelerate must be True or False, got 'no'$"),
    ({"alphas": np.array(0.5)}, None),
    ({"alphas": None}, r"^alphas must be a number in \(0, 1\), got None$"),
    ({"alphas": object()}, r"^alphas must be a number in \(0, 1\), got <object"),
    ({"alphas": {0.1: 1}}, r"^alphas must be a number or a sequence of numbers in \(0, 1\), got \{"),
    ({"methods": 5}, r"^methods must be a name or a sequence of names in \[.*\], got 5$"),
    ({"reps": 2.0}, None),
    ({"reps": 2.5}, r"^reps must be an integer >= 1, got 2.5$"),
    ({"knn": 3.0}, None),
    ({"lambda_grid": (0.5, 0.5)}, r"^lambda_grid: 0.5 given more than once; give each value once$"),
    ({"lambda_grid": {0.5: 1, 0.7: 2}}, r"^lambda_grid must be a sequence of numbers in \(0, 1\), got \{"),
    ({"lambda_grid": {0.5, 0.7}}, r"^lambda_grid must be a sequence of numbers in \(0, 1\), got \{"),
])
def test_evaluate_arguments(table, kwargs, message):
    kwargs = {"reps": 2, "methods": ["jecs"], **kwargs}
    if message is None:
        assert evaluate(table, **kwargs).reps == 2
    else:
        with pytest.raises((ValueError, TypeError), match=message):
            evaluate(table, **kwargs)


@pytest.mark.parametrize("argv, message", [
    (["select", SAMPLE, "--knn", "3.5"], "argument --knn: knn must be a positive integer or 'auto' (automatic), got 3.5"),
    (["select", SAMPLE, "--lam", "0.6x"], "argument --lam: lam must be 'auto' or a number in (0, 1), got '0.6x'"),
    (["select", SAMPLE, "--storey-lam", "auto"],
     "argument --storey-lam: storey_lam must be a number in the open interval (0, 1), got 'auto'"),
    (["evaluate", SAMPLE, "--reps", "2.5"], "--reps must be an integer >= 1, got 2.5"),
])
def test_the_command_line_gives_the_api_message(argv, message, capsys):
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own exit for a flag's type
        code = exc.code
    assert code == 2
    assert message in capsys.readouterr().err


def test_the_command_line_takes_an_integral_float_for_a_count(capsys):
    assert main(["evaluate", SAMPLE, "--reps", "2.0", "--methods", "jecs", "--knn", "3.0"]) == 0
    assert main(["sweep", "knn", SAMPLE, "--knns", "3.0,auto", "--reps", "2", "--methods", "jecs"]) == 0


@pytest.mark.parametrize("sweep", [
    lambda t, **kw: __import__("jecs_core").sweep_lambda(t, lambdas=[0.5], include_auto=False, **kw),
    lambda t, **kw: __import__("jecs_core").sweep_k(t, ks=[2, 4], **kw),
])
def test_every_sweep_holds_a_fixed_knn_to_the_table_as_evaluate_does(table, sweep):
    with pytest.raises(ValueError, match=rf"^knn: {table.n + 5} is more than the n = {table.n} test items$"):
        sweep(table, knn=table.n + 5, reps=2, methods=["jecs"])
    with pytest.warns(UserWarning, match=r"^knn: 700 above the 672 test items drawn per repetition"):
        sweep(table, knn=700, reps=2, methods=["jecs"])


def test_sweep_lambda_refuses_text_for_a_lambda(table):
    from jecs_core import sweep_lambda

    with pytest.raises(ValueError, match=r"^lambdas must be a number in the open interval \(0, 1\), got '0.5'$"):
        sweep_lambda(table, lambdas=["0.5"], reps=2, methods=["jecs"])
