"""``jecs evaluate`` / ``jecs sweep`` and the evaluator's argument errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from jecs_cli import main
from jecs_core import METHODS, REGISTRY, load_scores, sweep_k, sweep_knn, sweep_lambda, sweep_rho
from jecs_core.evaluate import evaluate
from jecs_core.simulate.scenarios import three_block
from jecs_core.simulate.synthetic import paper_synthetic

REPO_ROOT = Path(__file__).resolve().parents[3]
SAMPLE = str(REPO_ROOT / "sample_data" / "synthetic_k4.csv")


@pytest.fixture(scope="module")
def table():
    return load_scores(SAMPLE)


# ---------------------------------------------------------------- library errors

@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"alphas": (0.1, 1.0)}, "alphas"),
        ({"alphas": (0.0,)}, "alphas"),
        ({"alphas": ()}, "alphas"),
        ({"reps": 0}, "reps"),
        ({"reps": 2.5}, "reps"),
        ({"seed": -1}, "seed"),
        ({"methods": ("jecs", "magic")}, "methods"),
        ({"lam": 1.2}, "lam"),
        ({"knn": 0}, "knn"),
        ({"draw_fraction": 0.0}, "draw_fraction"),
        ({"draw_fraction": 1.5}, "draw_fraction"),
        ({"workers": 0}, "workers"),
        ({"progress": "yes"}, "progress"),
    ],
)
def test_evaluate_rejects_bad_arguments_by_name(table, kwargs, name):
    with pytest.raises(ValueError, match=name):
        evaluate(table, **{"reps": 2, **kwargs})


def test_evaluate_needs_labels():
    frame = paper_synthetic(np.random.default_rng(0), pool_size=100)
    unlabelled = frame.drop(columns=[c for c in frame.columns if c.startswith("member_")])
    with pytest.raises(ValueError, match="member_"):
        evaluate(unlabelled, reps=2)


def test_sweep_errors_name_the_argument(table):
    with pytest.raises(ValueError, match=r"ks: K=5 is larger than the table's 4 models"):
        sweep_k(table, ks=(2, 5), reps=2)
    with pytest.raises(ValueError, match="ks"):
        sweep_k(table, ks=(0,), reps=2)
    with pytest.raises(ValueError, match="rhos"):
        sweep_rho(lambda rho: None, rhos=(0.5, 1.5), reps=2)
    with pytest.raises(ValueError, match="rhos"):
        sweep_rho(lambda rho: None, rhos=(-0.1,), reps=2)
    with pytest.raises(ValueError, match="lam"):
        sweep_lambda(table, lambdas=(1.0,), reps=2)
    with pytest.raises(ValueError, match="knn"):
        sweep_knn(table, knns=(0,), reps=2)
    with pytest.raises(ValueError, match="alphas"):
        sweep_lambda(table, alphas=(2.0,), reps=2)
    with pytest.raises(ValueError, match="reps"):
        sweep_k(table, reps=0)


def test_rho_sweep_checks_options_before_building_tables():
    built = []
    with pytest.raises(ValueError, match="reps"):
        sweep_rho(lambda rho: built.append(rho), rhos=(0.5,), reps=0)
    assert built == []


# ---------------------------------------------------------------- command line

def test_cli_evaluate_prints_paper_table_and_writes_csv(tmp_path, capsys):
    out = tmp_path / "results.csv"
    assert main(["evaluate", SAMPLE, "--alphas", "0.1,0.3", "--reps", "30", "--seed", "2", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "alpha=0.1" in printed and "alpha=0.3" in printed
    union = next(line for line in printed.splitlines() if line.startswith("Union"))
    assert union.count("\u2020") == 2
    frame = pd.read_csv(out)
    direct = evaluate(load_scores(SAMPLE), alphas=(0.1, 0.3), reps=30, seed=2).summary
    np.testing.assert_allclose(frame["gcp"], direct["gcp"], rtol=1e-12)
    assert list(frame["method"]) == list(direct["method"])


def test_cli_per_rep_out(tmp_path, capsys):
    out = tmp_path / "reps.csv"
    assert main(["evaluate", SAMPLE, "--alphas", "0.2", "--reps", "4", "--methods", "jecs", "--per-rep-out", str(out)]) == 0
    assert len(pd.read_csv(out)) == 4


@pytest.mark.parametrize(
    "argv",
    [
        ["sweep", "lambda", SAMPLE, "--lambdas", "0.4,0.8", "--reps", "5"],
        ["sweep", "knn", SAMPLE, "--knns", "2,auto", "--reps", "5"],
        ["sweep", "k", SAMPLE, "--ks", "1,4", "--reps", "5", "--alphas", "0.1,0.2"],
        ["sweep", "rho", "--rhos", "0.25,0.5", "--pool-size", "200", "--models", "3", "--reps", "5"],
    ],
)
def test_cli_sweeps_print_blocks(argv, tmp_path, capsys):
    out = tmp_path / "sweep.csv"
    assert main(argv + ["--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"{'K' if argv[1] == 'k' else argv[1]} sweep, alpha =" in printed
    assert len(pd.read_csv(out)) > 0


@pytest.mark.parametrize("argv", [["evaluate", SAMPLE], ["sweep", "lambda", SAMPLE, "--lambdas", "0.5"],
                                  ["sweep", "knn", SAMPLE, "--knns", "3"], ["sweep", "k", SAMPLE, "--ks", "4"]])
def test_cli_evaluate_and_sweeps_take_every_declared_rule_option(argv, tmp_path, capsys):
    # --storey-lam reaches the default rule as it does in jecs select; the numbers match the library's.
    out = tmp_path / "o.csv"
    assert main(argv + ["--storey-lam", "0.8", "--alphas", "0.1", "--reps", "8", "--methods", "storey-maxp",
                        "--out", str(out), "--no-progress"]) == 0
    direct = evaluate(load_scores(SAMPLE), alphas=(0.1,), reps=8, storey_lam=0.8, methods=("storey-maxp",)).summary
    frame = pd.read_csv(out)
    assert len(frame) >= 1
    for column in ("gcp", "power"):  # every setting of a sweep holds the default rule's one run
        assert frame[column].tolist() == pytest.approx([direct[column].iloc[0]] * len(frame), rel=1e-12)
    if argv[0] == "evaluate":
        assert "storey_lam = 0.8" in capsys.readouterr().out


def test_cli_rho_sweep_matches_the_library(capsys):
    assert main(["sweep", "rho", "--rhos", "0.5", "--pool-size", "200", "--models", "3", "--reps", "6",
                 "--methods", "jecs", "--pool-seed", "4"]) == 0
    frame = sweep_rho(lambda rho: three_block(np.random.default_rng(4), pool_size=200, n_models=3, rho=rho),
                      rhos=(0.5,), reps=6, methods=("jecs",))
    assert f"{frame['gcp'].iloc[0]:.3f}" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["evaluate", SAMPLE, "--alphas", "0.1,1.5"], "--alphas must be in the open interval (0, 1), got 1.5"),
        (["evaluate", SAMPLE, "--alphas", "x"], "--alphas"),
        (["evaluate", SAMPLE, "--reps", "0"], "--reps must be an integer >= 1, got 0"),
        (["evaluate", SAMPLE, "--workers", "0"], "--workers must be an integer >= 1, got 0"),
        (["sweep", "lambda", SAMPLE, "--reps", "-1"], "--reps must be an integer >= 1"),
        (["evaluate", SAMPLE, "--reps", "many"], "--reps"),
        (["evaluate", SAMPLE, "--reps", "1000000000000"], "--reps: at most 100,000 repetitions"),
        (["evaluate", SAMPLE, "--seed", "-1"], "--seed must be an integer >= 0, got -1"),
        (["evaluate", SAMPLE, "--methods", "jecs,bogus"], "--methods: unknown rule 'bogus'"),
        (["evaluate", SAMPLE, "--methods", "jecs,oracle"], "methods"),
        (["evaluate", str(REPO_ROOT / "no_such.csv")], "not found"),
        (["sweep", "k", SAMPLE, "--ks", "2,9"], "--ks: K=9"),
        (["sweep", "rho", "--rhos", "0.1,1.5"], "--rhos must be in [0, 1], got 1.5"),
        (["sweep", "rho", "--rhos", "0.5", "--pool-size", "3"], "calibration"),
        (["sweep", "lambda", SAMPLE, "--lambdas", "0,0.5"], "--lambdas must be in the open interval (0, 1), got 0.0"),
        (["sweep", "knn", SAMPLE, "--knns", "0"], "--knns must be a positive integer or 'auto' (automatic), got 0"),
        # An empty entry is a typo to name, not a value to skip.
        (["evaluate", SAMPLE, "--alphas", "0.1,,0.2"], "--alphas: empty entry in '0.1,,0.2'"),
        (["evaluate", SAMPLE, "--alphas", "0.1,"], "--alphas: empty entry in '0.1,'"),
        (["evaluate", SAMPLE, "--methods", "jmcs,"], "--methods: empty entry in 'jmcs,'"),
        (["sweep", "knn", SAMPLE, "--knns", "2,,auto"], "--knns: empty entry"),
        (["sweep", "lambda", SAMPLE, "--lambdas", ","], "--lambdas: expected at least one value"),
    ],
)
def test_cli_bad_parameters_one_line_exit_2(argv, needle, capsys):
    assert main(argv) == 2
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and needle in err[0] and err[0].startswith("jecs ")
    assert captured.out == ""


@pytest.mark.parametrize("method", METHODS)
def test_cli_method_accepts_every_registered_rule(method, tmp_path, capsys):
    out = tmp_path / "one.csv"
    assert main(["evaluate", SAMPLE, "--method", method, "--reps", "3", "--alphas", "0.2", "--out", str(out)]) == 0
    frame = pd.read_csv(out)
    assert list(frame["method"]) == [method] and frame["label"].iloc[0] == REGISTRY[method].label
    assert "subsampling noise on this one fixed table" in " ".join(capsys.readouterr().out.split())


def test_cli_twin_prints_the_unconditional_estimate_beside_the_protocol(tmp_path, capsys):
    out = tmp_path / "twin.csv"
    argv = ["evaluate", SAMPLE, "--reps", "4", "--alphas", "0.1,0.2", "--methods", "jecs,jmcs", "--twin",
            "--twin-tables", "3", "--twin-out", str(out)]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "Twin estimate" in printed and "table SD / protocol SE" in printed
    frame = pd.read_csv(out)
    assert len(frame) == 3 * 2 * 2 and set(frame["method"]) == {"jecs", "jmcs"}
    assert set(frame["pattern"]) == {"one_model", "spread", "mixed"}
    jecs_line = next(line for line in printed.splitlines() if line.startswith("JECS (paper)") and " 0.1 " in line)
    assert jecs_line.count("\u00b1") == 4  # protocol + three patterns


def test_cli_twin_tables_must_be_at_least_two(capsys):
    assert main(["evaluate", SAMPLE, "--reps", "2", "--twin", "--twin-tables", "1"]) == 2
    captured = capsys.readouterr()
    assert "--twin-tables" in captured.err and captured.out == ""


def test_cli_twin_on_a_table_too_small_for_it_fails_before_the_protocol(tmp_path, capsys):
    frame = pd.read_csv(SAMPLE)
    small = pd.concat([frame[frame["split"] == "calibration"].head(1), frame[frame["split"] == "test"]])
    path = tmp_path / "m1.csv"
    small.to_csv(path, index=False)
    assert main(["evaluate", str(path), "--reps", "3", "--twin", "--out", str(tmp_path / "o.csv")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # no protocol ran
    assert captured.err.strip().endswith("--twin: a twin needs at least 2 calibration and 2 test items, got m=1, n=840")


def test_cli_evaluate_warns_when_the_calibration_set_cannot_reach_alpha(tmp_path, capsys):
    frame = pd.read_csv(SAMPLE)
    small = pd.concat([frame[frame["split"] == "calibration"].head(5), frame[frame["split"] == "test"]])
    path = tmp_path / "m5.csv"
    small.to_csv(path, index=False)
    assert main(["evaluate", str(path), "--reps", "3", "--alphas", "0.1,0.2", "--no-progress"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert err and all(line.startswith("jecs evaluate: warning: calibration set of m = 5") for line in err)


def test_cli_methods_all_is_every_registered_rule(tmp_path, capsys):
    out = tmp_path / "all.csv"
    assert main(["evaluate", SAMPLE, "--methods", "all", "--reps", "2", "--alphas", "0.2", "--out", str(out),
                 "--no-progress"]) == 0
    assert sorted(pd.read_csv(out)["method"]) == sorted(METHODS)


def test_a_prefix_of_an_option_is_not_that_option(capsys):
    # --knn was read as --knns and silently replaced the list given before it.
    with pytest.raises(SystemExit) as stopped:
        main(["sweep", "knn", SAMPLE, "--knns", "1", "--knn", "4"])
    assert stopped.value.code == 2
    assert "unrecognized arguments: --knn 4" in capsys.readouterr().err
