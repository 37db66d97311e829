"""Bad values of list and size options, as a fuzzer typed them: one-line errors that name the flag the user typed
(exit 2), no repeated value run twice, no pandas warning on a wide synthetic table, and a short calibration advice."""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from jecs_cli import main

SAMPLE = str(Path(__file__).resolve().parents[2] / "sample_data" / "synthetic_k4.csv")


def _run(capsys, *argv):
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse's own errors leave through exit(2)
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("argv, message", [
    (["sweep", "lambda", SAMPLE, "--lambdas", "0,1.5"], "--lambdas must be in the open interval (0, 1), got 0.0"),
    (["sweep", "lambda", SAMPLE, "--lambdas", "0.5,1.5"], "--lambdas must be in the open interval (0, 1), got 1.5"),
    (["sweep", "knn", SAMPLE, "--knns", "0"], "--knns must be a positive integer or 'auto' (automatic), got 0"),
    (["sweep", "knn", SAMPLE, "--knns", "2,2.5"], "--knns must be a positive integer or 'auto' (automatic), got 2.5"),
    (["sweep", "knn", SAMPLE, "--knns", "100000"], f"--knns: 100000 is more than the n = 840 test items of {SAMPLE}"),
    (["sweep", "k", SAMPLE, "--ks", "0"], "--ks must be an integer >= 1, got 0"),
    (["sweep", "k", SAMPLE, "--ks", "2,9"], "--ks: K=9 is larger than the table's 4 models (m0, m1, m2, m3)"),
    (["sweep", "rho", "--rhos", "1.5"], "--rhos must be in [0, 1], got 1.5"),
    (["sweep", "rho", "--pool-size", "1"], "--pool-size must be an integer >= 2, got 1"),
    (["sweep", "rho", "--mu", "1,2"], "--mu: expected one number, got '1,2'"),
    (["sweep", "rho", "--correlation", "2"], "--correlation must be in [0, 1], got 2.0"),
    (["sweep", "rho", "--clean-fraction", "0.8", "--calibration-fraction", "0.8"],
     "--clean-fraction + --calibration-fraction must be <= 1, got 0.8 + 0.8"),
    (["sweep", "rho", "--pool-size", "3", "--calibration-fraction", "0.2"],
     "--calibration-fraction 0.2 leaves no calibration items in a pool of --pool-size 3"),
    (["evaluate", SAMPLE, "--draw-fraction", "1.5"], "--draw-fraction must be in (0, 1], got 1.5"),
    (["evaluate", SAMPLE, "--draw-fraction", "0.5,0.6"], "--draw-fraction: expected one number, got '0.5,0.6'"),
])
def test_a_bad_value_is_one_line_naming_the_flag_typed(capsys, argv, message):
    code, out, err = _run(capsys, *argv, "--reps", "2")
    assert (code, out, err) == (2, "", f"jecs {argv[0]}: error: {message}\n")


@pytest.mark.parametrize("argv, message", [
    (["sweep", "lambda", SAMPLE, "--lambda-grid", "0.5,2"],
     "argument --lambda-grid: lambda_grid value must be in the open interval (0, 1), got 2"),
    (["sweep", "lambda", SAMPLE, "--knn", "0"], "argument --knn: knn must be a positive integer or 'auto' (automatic), got 0"),
    (["sweep", "knn", SAMPLE, "--lam", "1.5"], "argument --lam: lam must be in the open interval (0, 1), got 1.5"),
    (["sweep", "k", SAMPLE, "--storey-lam", "1"], "argument --storey-lam: storey_lam must be in the open interval (0, 1), got 1"),
    (["evaluate", SAMPLE, "--lambda-grid", "0.5,0.5"],
     "argument --lambda-grid: lambda_grid: 0.5 given more than once; give each value once"),
    (["select", SAMPLE, "--lambda-grid", "0.5,0.7,0.50"],
     "argument --lambda-grid: lambda_grid: 0.5 given more than once; give each value once"),
])
def test_a_rule_option_is_checked_by_its_declaration_in_every_command(capsys, argv, message, tmp_path):
    # One flag per declared rule option, one check and one wording in select, evaluate and every sweep.
    out = tmp_path / "d.csv"
    code, printed, err = _run(capsys, *argv, "--out", out)
    command = " ".join(argv[:2]) if argv[0] == "sweep" else argv[0]
    assert (code, printed) == (2, "")
    assert err == f"jecs {command}: error: {message} (jecs {command} --help lists the options)\n"
    assert not out.exists()


@pytest.mark.parametrize("argv, message", [
    (["evaluate", SAMPLE, "--alphas", "0.1,0.1"], "--alphas: 0.1 given more than once in '0.1,0.1'"),
    (["evaluate", SAMPLE, "--alphas", "0.1,0.2,0.10"], "--alphas: 0.1 given more than once in '0.1,0.2,0.10'"),
    (["evaluate", SAMPLE, "--methods", "jecs,jmcs,jecs"], "--methods: jecs given more than once in 'jecs,jmcs,jecs'"),
    (["sweep", "lambda", SAMPLE, "--lambdas", "0.5,0.50"], "--lambdas: 0.5 given more than once in '0.5,0.50'"),
    (["sweep", "knn", SAMPLE, "--knns", "auto,3,auto"], "--knns: auto given more than once in 'auto,3,auto'"),
    (["sweep", "knn", SAMPLE, "--knns", "3,3.0"], "--knns: 3 given more than once in '3,3.0'"),
    (["sweep", "k", SAMPLE, "--ks", "2,4,2"], "--ks: 2 given more than once in '2,4,2'"),
    (["sweep", "rho", "--rhos", "0.5,0.5"], "--rhos: 0.5 given more than once in '0.5,0.5'"),
])
def test_a_repeated_list_value_is_refused_before_any_row_is_written(tmp_path, capsys, argv, message):
    out = tmp_path / "d.csv"
    code, printed, err = _run(capsys, *argv, "--reps", "3", "--out", out)
    assert (code, printed, err) == (2, "", f"jecs {argv[0]}: error: {message}; give each value once\n")
    assert not out.exists()


def test_distinct_list_values_still_run_one_row_each(tmp_path, capsys):
    out = tmp_path / "d.csv"
    code, _, _ = _run(capsys, "evaluate", SAMPLE, "--alphas", "0.1,0.2", "--methods", "jmcs", "--reps", "3", "--out", out)
    assert code == 0 and sorted(pd.read_csv(out)["alpha"]) == [0.1, 0.2]


def test_build_sample_alphas_refuse_a_repeat_too():
    from jecs_core.cli.options import alphas_arg

    assert alphas_arg("0.1,0.2") == (0.1, 0.2)
    with pytest.raises(argparse.ArgumentTypeError) as caught:
        alphas_arg("0.1, 0.10")
    assert str(caught.value) == "0.1 given more than once in '0.1, 0.10'; give each value once"


@pytest.mark.parametrize("size", ["0", "1", "-3"])
def test_synth_pool_size_has_one_message_with_the_real_minimum(tmp_path, capsys, size):
    code, out, err = _run(capsys, "synth", "--out", tmp_path / "s.csv", "--pool-size", size)
    assert (code, out) == (2, "")
    assert err == (f"jecs synth: error: argument --pool-size: must be an integer >= 2, got {size} "
                   "(jecs synth --help lists the options)\n")
    assert not (tmp_path / "s.csv").exists()


def test_synth_pool_size_two_is_accepted(tmp_path, capsys):
    code, _, _ = _run(capsys, "synth", "--out", tmp_path / "s.csv", "--pool-size", "2")
    frame = pd.read_csv(tmp_path / "s.csv")
    assert code == 0 and sorted(frame["split"]) == ["calibration", "test"]


def test_a_wide_synthetic_table_is_built_without_a_fragmentation_warning(tmp_path, capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("error", pd.errors.PerformanceWarning)
        code, out, err = _run(capsys, "synth", "--out", tmp_path / "s.csv", "--models", "2000", "--pool-size", "10")
    assert code == 0 and err == "" and "K = 2000" in out
    frame = pd.read_csv(tmp_path / "s.csv")
    assert frame.shape == (10, 2 + 2 * 2000)
    assert list(frame.columns[:3]) == ["item_id", "split", "score_m0"] and frame.columns[-1] == "member_m1999"
    assert (frame.loc[frame["split"] == "calibration", "member_m1999"] == 1).all()


def test_the_three_block_pool_of_many_models_is_built_without_a_fragmentation_warning():
    from jecs_core.simulate.scenarios import three_block

    with warnings.catch_warnings():
        warnings.simplefilter("error", pd.errors.PerformanceWarning)
        frame = three_block(np.random.default_rng(0), pool_size=40, n_models=300)
    scores = [c for c in frame.columns if c.startswith("score_")]
    members = [c for c in frame.columns if c.startswith("member_")]
    assert list(frame.columns) == ["item_id", "split", "block", *scores, *members]
    assert scores == [f"score_m{k}" for k in range(300)] and members == [f"member_m{k}" for k in range(300)]


@pytest.mark.parametrize("alpha, fewest", [(0.1, "9"), (1e-5, "99,999"), (1e-6, "999,999"), (1e-7, "about 1e+07"),
                                           (1e-300, "about 1e+300")])
def test_the_calibration_advice_prints_a_short_number(alpha, fewest):
    from jecs_core.contract import calibration_warnings

    (warning,) = calibration_warnings(5, 500, alpha)
    assert warning.endswith(f"; use at least {fewest} calibration items")


def test_select_at_a_tiny_alpha_advises_a_short_count(tmp_path, capsys):
    code, _, err = _run(capsys, "select", SAMPLE, "--alpha", "1e-300", "--out", tmp_path / "a.csv")
    (warning,) = [line for line in err.splitlines() if "use at least" in line]
    assert code == 0 and warning.endswith("; use at least about 1e+300 calibration items")
    assert "99999" not in warning and len(warning) < 400


@pytest.mark.parametrize("argv", [["select", SAMPLE], ["evaluate", SAMPLE, "--reps", "2"],
                                  ["report", SAMPLE, "--out", "REPORT"], ["sweep", "lambda", SAMPLE, "--reps", "2"],
                                  ["sweep", "k", SAMPLE, "--reps", "2"]])
@pytest.mark.parametrize("knn", ["841", "99999999999999999999"])
def test_a_knn_above_the_table_is_named_by_its_flag_once_the_table_is_read(capsys, tmp_path, argv, knn):
    argv = [str(tmp_path / "r.html") if a == "REPORT" else a for a in argv]
    code, printed, err = _run(capsys, *argv, "--knn", knn)
    assert (code, printed) == (2, "")
    assert err == f"jecs {argv[0]}: error: --knn: {knn} is more than the n = 840 test items of {SAMPLE}\n"
    assert not (tmp_path / "r.html").exists()


def test_the_rho_sweep_checks_knn_against_each_table_it_builds(capsys):
    code, printed, err = _run(capsys, "sweep", "rho", "--rhos", "0.5", "--pool-size", "200", "--models", "3",
                              "--reps", "2", "--knn", "100000", "--methods", "jecs")
    assert (code, printed) == (2, "")
    assert err == ("jecs sweep: error: --knn: 100000 is more than the n = 140 test items of the rho sweep's table "
                   "(200 items)\n")
