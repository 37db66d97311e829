"""The ``jecs`` command line: select, synth, exports and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from jecs_cli import main
from jecs_core import compare_methods, load_scores

SAMPLE = "sample_data/synthetic_k4.csv"


@pytest.fixture()
def synth_csv(tmp_path):
    path = tmp_path / "synth.csv"
    assert main(["synth", "--out", str(path), "--seed", "3", "--pool-size", "400"]) == 0
    return path


def test_synth_writes_labelled_table(synth_csv):
    table = load_scores(synth_csv)
    assert (table.n, table.m, table.K) == (280, 120, 4) and table.has_labels
    again = synth_csv.with_name("again.csv")
    main(["synth", "--out", str(again), "--seed", "3", "--pool-size", "400"])
    assert again.read_bytes() == synth_csv.read_bytes()


def test_synth_parquet_and_bad_suffix(tmp_path, capsys):
    assert main(["synth", "--out", str(tmp_path / "s.parquet")]) == 0
    assert load_scores(tmp_path / "s.parquet").n == 840
    assert main(["synth", "--out", str(tmp_path / "s.txt")]) == 2
    assert "must end in .csv or .parquet" in capsys.readouterr().err


def test_select_summary_and_export(synth_csv, tmp_path, capsys):
    out = tmp_path / "sel.csv"
    assert main(["select", str(synth_csv), "--alpha", "0.2", "--method", "jecs", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    table = load_scores(synth_csv)
    comparison = compare_methods(table, alpha=0.2)
    assert f"lambda = {comparison.jecs.lam:g}" in printed
    assert "Union (invalid baseline)" in printed and "GCP" in printed
    for method in ("jecs", "jmcs", "union", "intersection"):
        assert str(int(comparison.selected(method).sum())) in printed

    frame = pd.read_csv(out, dtype={"item_id": str})
    assert list(frame.columns[:4]) == ["item_id", "selected", "p_max", "p_tilde"]
    assert [c for c in frame.columns if c.startswith("p_") and c not in ("p_max", "p_tilde")] == ["p_m0", "p_m1", "p_m2", "p_m3"]
    assert len(frame) == table.n
    np.testing.assert_array_equal(frame["selected"].to_numpy().astype(bool), comparison.jecs.selected)
    np.testing.assert_allclose(frame["p_tilde"], comparison.jecs.p_tilde)
    assert not out.read_text().startswith("#")

    meta = json.loads(out.with_suffix(".json").read_text())
    assert meta["method"] == "jecs" and meta["alpha"] == 0.2
    assert meta["lambda"] == comparison.jecs.lam and meta["k_n"] == comparison.jecs.k_n
    assert meta["pi0_hat"] == pytest.approx(comparison.jecs.pi0_hat)
    assert meta["input_sha256"] == table.source_sha256
    assert meta["version"] and meta["selected_counts"]["jecs"] == int(frame["selected"].sum())


def test_select_each_method_and_manual_lambda(synth_csv, tmp_path):
    table = load_scores(synth_csv)
    for method in ("jmcs", "union", "intersection"):
        out = tmp_path / f"{method}.csv"
        assert main(["select", str(synth_csv), "--method", method, "--lam", "0.7", "--knn", "4", "--out", str(out)]) == 0
        frame = pd.read_csv(out)
        comparison = compare_methods(table, alpha=0.1, lam=0.7, knn=4)
        np.testing.assert_array_equal(frame["selected"].astype(bool), comparison.selected(method))
        meta = json.loads(out.with_suffix(".json").read_text())
        assert meta["lambda"] == 0.7 and meta["k_n"] == 4 and meta["options"]["lam"] == 0.7  # the fixed lambda, as asked
    out = tmp_path / "all.csv"
    assert main(["select", str(synth_csv), "--method", "all", "--out", str(out)]) == 0
    assert {"selected_jecs", "selected_union"} <= set(pd.read_csv(out).columns)


def test_text_column_is_carried(tmp_path):
    frame = pd.read_csv(SAMPLE).head(300).copy()
    frame["text"] = [f"item number {i}" for i in range(len(frame))]
    frame.loc[0, "split"] = "calibration"
    frame.loc[299, "split"] = "test"
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "sel.csv"
    assert main(["select", str(path), "--out", str(out)]) == 0
    assert pd.read_csv(out)["text"].iloc[-1] == "item number 299"


def _broken(tmp_path, name, edit):
    full = pd.read_csv(SAMPLE, dtype={"item_id": str})
    # 100 calibration rows, then 100 test rows.
    frame = pd.concat([full[full.split == "calibration"].head(100), full[full.split == "test"].head(100)], ignore_index=True)
    frame = edit(frame)
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize(
    "name, edit, needle",
    [
        ("nocol.csv", lambda f: f.drop(columns="split"), "missing required column 'split'"),
        ("nan.csv", lambda f: f.assign(score_m1=f["score_m1"].where(f.index != 150)), "column 'score_m1': missing score"),
        ("dup.csv", lambda f: f.assign(item_id=f["item_id"].where(f.index != 5, "c0")), "duplicate id 'c0' at rows 1, 6"),
        ("text.csv", lambda f: f.assign(score_m2=f["score_m2"].astype(object).where(f.index != 9, "n/a?")), "non-numeric value 'n/a?' at row 10"),
    ],
)
def test_bad_files_print_one_line_and_exit_2(tmp_path, capsys, name, edit, needle):
    path = _broken(tmp_path, name, edit)
    assert main(["select", str(path)]) == 2
    err = capsys.readouterr().err
    assert needle in err and name in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_missing_file_and_bad_arguments(capsys, tmp_path):
    assert main(["select", str(tmp_path / "none.csv")]) == 2
    assert "file not found" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["select", SAMPLE, "--alpha", "1.5"])
    assert info.value.code == 2
    assert "argument --alpha: must be in the open interval (0, 1), got 1.5" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["select", SAMPLE, "--lam", "high"])
    assert main([]) == 2


@pytest.mark.parametrize(("argv", "expected"), [
    (["select", SAMPLE, "--alpha", "0"], "jecs select: error: argument --alpha: must be in the open interval (0, 1)"),
    (["select"], "jecs select: error: the following arguments are required: scores"),
    (["select", SAMPLE, "--bogus"], "jecs select: error: unrecognized arguments: --bogus"),
    (["sweep", "nope"], "jecs sweep: error: argument PARAMETER: invalid choice: 'nope'"),
    (["sweep", "lambda", SAMPLE, "--lambdas", "x"], "jecs sweep: error: --lambdas: expected comma-separated numbers"),
    (["synth", "--out", "x.csv", "--models", "-1"], "jecs synth: error: argument --models"),
    (["--bogus"], "jecs: error: unrecognized arguments: --bogus"),
])
def test_usage_errors_are_one_line_naming_the_argument(argv, expected, capsys):
    # argparse's own errors as every other error: one line, no usage block, and where the rest is said.
    try:
        code = main(argv)
    except SystemExit as stop:
        code = stop.code
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(expected) and err.count("\n") == 1 and "usage:" not in err


def test_python_dash_m_entry_point():
    done = subprocess.run([sys.executable, "-m", "jecs_core", "select", SAMPLE, "--alpha", "0.1"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "JECS" in done.stdout
    bad = subprocess.run([sys.executable, "-m", "jecs_core", "select", "missing.csv"], capture_output=True, text=True)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and bad.stderr.count("\n") == 1


def test_select_with_covariates_runs_the_shift_check(tmp_path, capsys):
    pytest.importorskip("sklearn")
    table_module = pytest.importorskip("jecs_core.shift.table")
    if not hasattr(table_module, "parse_covariates"):
        pytest.skip("jecs_core.shift.table.parse_covariates not available in this checkout")
    from jecs_core.simulate.shift_scenarios import location_shift

    path = tmp_path / "shift.csv"
    location_shift(np.random.default_rng(0)).to_csv(path, index=False)
    out = tmp_path / "s.csv"
    assert main(["select", str(path), "--covariates", "x_len", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "shift check:" in printed and "covariate-aware p-values: residual" in printed
    # The diagnostics model the plain scores: the summary says so beside a covariate-aware selection.
    basis = "note: the diagnostics read the plain conformal p-values and scores, not the covariate-aware"
    assert "diagnostics (no labels used):" in printed and basis in printed and printed.index(basis) > printed.index("verdict:")
    meta = json.loads(out.with_suffix(".json").read_text())
    assert meta["options"]["shift"]["method"] == "residual" and meta["options"]["covariates"] == ["x_len"]
    recorded = meta["diagnostics"]  # the sidecar alone says which p-values the diagnostics read
    assert recorded["pvalues"] == "plain" and recorded["pvalues_note"].startswith(basis.removeprefix("note: "))
    assert main(["select", str(path), "--out", str(out)]) == 0  # plain p-values throughout: no note
    capsys.readouterr()
    recorded = json.loads(out.with_suffix(".json").read_text())["diagnostics"]
    assert recorded["pvalues"] == "plain" and "pvalues_note" not in recorded
    for plain in (["--covariates", "x_len", "--shift-method", "none"], []):  # the rules read plain p-values
        assert main(["select", str(path), *plain]) == 0
        printed = capsys.readouterr().out
        assert "diagnostics (no labels used):" in printed and basis not in printed
    assert main(["select", str(path), "--covariates", "x_nope"]) == 2
    assert capsys.readouterr().err.startswith("jecs select: error: --covariates: ")


def test_select_default_method_and_warnings_are_one_line_each(tmp_path, capsys):
    from jecs_core import DEFAULT_METHOD, REGISTRY

    out = tmp_path / "sel.csv"
    assert main(["select", SAMPLE, "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert f"wrote {out} ({DEFAULT_METHOD})" in captured.out
    assert all(line.startswith("jecs select: warning: ") for line in captured.err.splitlines())
    meta = json.loads(out.with_suffix(".json").read_text())
    assert meta["method"] == DEFAULT_METHOD and meta["guarantee"] == REGISTRY[DEFAULT_METHOD].guarantee.value
    assert meta["warnings"] == [line.removeprefix("jecs select: ") for line in captured.err.splitlines()]


def test_select_prints_and_records_the_audit_diagnostics(tmp_path, capsys):
    out = tmp_path / "sel.csv"
    assert main(["select", SAMPLE, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "diagnostics (no labels used):" in printed and "verdict: " in printed
    meta = json.loads(out.with_suffix(".json").read_text())
    assert {"correlation", "tail", "pi0_bootstrap", "twin", "verdict"} <= set(meta["diagnostics"])
    json.loads(out.with_suffix(".json").read_text(), parse_constant=lambda name: pytest.fail(f"non-strict JSON {name}"))
    assert main(["select", SAMPLE, "--no-diagnostics", "--out", str(out)]) == 0
    assert "diagnostics (no labels used):" not in capsys.readouterr().out
    assert "diagnostics" not in json.loads(out.with_suffix(".json").read_text())


def test_diagnostics_skip_on_large_tables(monkeypatch, capsys, tmp_path):
    import jecs_core.cli.select as select_cli

    monkeypatch.setattr(select_cli, "LARGE_TABLE", 100)  # the sample's 840 test items count as large
    assert main(["select", SAMPLE, "--out", str(tmp_path / "a.csv")]) == 0
    printed = capsys.readouterr().out
    assert "note: audit diagnostics skipped above 100 test items (n = 840); --diagnostics runs them" in printed
    assert "diagnostics" not in json.loads((tmp_path / "a.json").read_text())
    assert main(["select", SAMPLE, "--diagnostics", "--out", str(tmp_path / "b.csv")]) == 0
    printed = capsys.readouterr().out
    assert "note: the matched-twin check is skipped above 100 test items (n = 840)" in printed
    assert json.loads((tmp_path / "b.json").read_text())["diagnostics"]["twin"] is None
