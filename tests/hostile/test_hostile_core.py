"""Hostile input, core and CLI cases: each feeds the exact hostile or clumsy input and asserts the exact
exit code and message, or the safe output."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import jecs_core
from jecs_core import ScoreTableError, load_scores, table_from_frame
from jecs_core.cli import main
from jecs_core.data import load_scores_bytes

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "synthetic_k4.csv"


def _sample(n_cal: int = 100, n_test: int = 100) -> pd.DataFrame:
    full = pd.read_csv(SAMPLE, dtype={"item_id": str})
    return pd.concat([full[full.split == "calibration"].head(n_cal), full[full.split == "test"].head(n_test)], ignore_index=True)


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _one_error(err: str, path, message: str) -> None:
    assert err == f"jecs select: error: {path}: {message}\n"


# ---- silent wrong answers: tiny calibration sets ----

def test_no_calibration_row_is_refused(tmp_path, capsys):
    path = tmp_path / "m0.csv"
    _sample(n_cal=0).to_csv(path, index=False)
    code, out, err = _run(capsys, "select", path)
    assert code == 2 and out == ""
    _one_error(err, path, "column 'split': no calibration rows; JECS needs known members to calibrate against")


@pytest.mark.parametrize("m", [1, 2, 3, 5])
def test_few_calibration_rows_warn_with_the_smallest_pvalue_and_record_it(tmp_path, capsys, m):
    path = tmp_path / f"m{m}.csv"
    _sample(n_cal=m).to_csv(path, index=False)
    code, out, err = _run(capsys, "select", path, "--out", tmp_path / "sel.csv")
    assert code == 0
    warning = (f"warning: calibration set of m = {m}: the smallest reachable conformal p-value is 1/(m+1) = "
               f"{1 / (m + 1):.4g}, above the BH cut alpha*r/n <= alpha = 0.1 for every r (alpha/n = 0.001); "
               "finite-sample rules cannot select any item and transformed rules are unsupported; use at least 9 calibration items")
    assert f"jecs select: {warning}\n" in err
    assert warning in json.loads((tmp_path / "sel.json").read_text())["warnings"]
    from jecs_core.cli.select_summary import row_label

    for name, rule in jecs_core.REGISTRY.items():  # a finite-sample rule cannot select at this m
        if rule.valid:
            assert f"{row_label(name):<34}{0:>9}" in out, name


# ---- silent wrong answers: renamed or retyped columns ----

@pytest.mark.parametrize(
    "header, message",
    [
        ("item_id,split,score_m1,score_m1", "column 'score_m1' appears twice (columns 3 and 4); column names must be unique"),
        ("item_id,split,score_m1,item_id", "column 'item_id' appears twice (columns 1 and 4); column names must be unique"),
    ],
)
def test_duplicate_headers_are_refused(tmp_path, capsys, header, message):
    path = tmp_path / "dup.csv"
    path.write_text(header + "\n" + "".join(f"i{j},{'calibration' if j < 3 else 'test'},{j},{j}\n" for j in range(6)))
    code, out, err = _run(capsys, "select", path)
    assert code == 2 and out == ""
    _one_error(err, path, message)


def test_true_false_score_column_is_refused(tmp_path, capsys):
    frame = _sample()
    frame["score_m1"] = frame.index % 2 == 0
    path = tmp_path / "bool.csv"
    frame.to_csv(path, index=False)
    code, _, err = _run(capsys, "select", path)
    assert code == 2
    _one_error(err, path, "column 'score_m1': boolean values (True/False) are not scores (column type bool); write numbers")


def test_parquet_datetime_score_column_is_refused(tmp_path, capsys):
    frame = _sample()
    frame["score_m2"] = pd.date_range("2024-01-01", periods=len(frame), freq="min")
    path = tmp_path / "dates.parquet"
    frame.to_parquet(path, index=False)
    code, _, err = _run(capsys, "select", path)
    assert code == 2
    _one_error(err, path, "column 'score_m2': dates/times are not scores (column type datetime64[us]); write numbers")


def test_complex_scores_are_refused_not_truncated():
    frame = _sample()
    frame["score_m0"] = frame["score_m0"] + 1j
    with pytest.raises(ScoreTableError) as info:
        table_from_frame(frame, source="complex")
    assert str(info.value) == "complex: column 'score_m0': complex numbers are not scores (column type complex128); write numbers"


def test_complex_text_cells_are_refused(tmp_path, capsys):
    frame = _sample().astype({"score_m3": object})
    frame.loc[4, "score_m3"] = "(1+2j)"
    path = tmp_path / "complex.csv"
    frame.to_csv(path, index=False)
    code, _, err = _run(capsys, "select", path)
    assert code == 2
    _one_error(err, path, "column 'score_m3': non-numeric value '(1+2j)' at row 5 (spreadsheet row 6); scores must be numbers")


# ---- exports: input overwritten, wrong extension, reserved columns, directories ----

def test_out_equal_to_input_is_refused_and_input_untouched(tmp_path, capsys):
    path = tmp_path / "x.csv"
    _sample().to_csv(path, index=False)
    before = path.read_bytes()
    code, _, err = _run(capsys, "select", path, "--out", path)
    assert code == 2
    assert err == f"jecs select: error: --out: {path} is the input file {path}; write the output somewhere else\n"
    assert path.read_bytes() == before and not (tmp_path / "x.json").exists()


def test_out_through_a_symlink_to_the_input_is_refused(tmp_path, capsys):
    path = tmp_path / "x.csv"
    _sample().to_csv(path, index=False)
    link = tmp_path / "link.csv"
    link.symlink_to(path)
    before = path.read_bytes()
    code, _, err = _run(capsys, "select", path, "--out", link)
    assert code == 2 and "is the input file" in err and path.read_bytes() == before


@pytest.mark.parametrize("name", ["sel.xlsx", "sel.json", "sel"])
def test_out_with_another_extension_is_refused(tmp_path, capsys, name):
    code, _, err = _run(capsys, "select", SAMPLE, "--out", tmp_path / name)
    assert code == 2
    assert err == f"jecs select: error: --out: {tmp_path / name} must end in .csv\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("column", ["selected", "p_max", "p_tilde", "p_m0", "selected_jmcs"])
def test_input_columns_named_like_export_columns_are_refused_not_dropped(tmp_path, capsys, column):
    frame = _sample().assign(**{column: 1})
    path = tmp_path / "reserved.csv"
    frame.to_csv(path, index=False)
    code, _, err = _run(capsys, "select", path, "--out", tmp_path / "sel.csv")
    assert code == 2
    _one_error(err, path, f"column '{column}': the name is reserved for the selection export (selected, selected_<method>, "
                          "p_max, p_tilde, p_<model>); rename the column")
    assert not (tmp_path / "sel.csv").exists()


def test_model_called_max_is_refused_at_load(tmp_path):
    frame = _sample().rename(columns={"score_m0": "score_max", "member_m0": "member_max"})
    data = frame.to_csv(index=False).encode()
    with pytest.raises(ScoreTableError) as info:
        load_scores_bytes(data, "upload.csv")
    assert str(info.value) == ("upload.csv: column 'score_max': model name 'max' is reserved (the export writes 'p_max' itself); "
                               "rename the model")


def test_sidecar_path_that_is_a_directory_writes_nothing(tmp_path, capsys):
    (tmp_path / "sel.json").mkdir()
    code, _, err = _run(capsys, "select", SAMPLE, "--out", tmp_path / "sel.csv")
    assert code == 2
    assert err == f"jecs select: error: sidecar: {tmp_path / 'sel.json'} is a directory; name a file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sel.json"]


def test_out_that_is_a_directory_is_refused(tmp_path, capsys):
    (tmp_path / "sel.csv").mkdir()
    code, _, err = _run(capsys, "select", SAMPLE, "--out", tmp_path / "sel.csv")
    assert code == 2 and err == f"jecs select: error: --out: {tmp_path / 'sel.csv'} is a directory; name a file\n"


@pytest.mark.parametrize("command", [["select", SAMPLE], ["synth"]])
def test_out_naming_a_plain_directory_says_so_not_the_extension(tmp_path, capsys, command):
    code, _, err = _run(capsys, *command, "--out", tmp_path)
    assert code == 2 and err.endswith(f"--out: {tmp_path} is a directory; name a file inside it, e.g. "
                                      f"{tmp_path / 'out.csv'}\n")


def test_failed_sidecar_write_leaves_neither_file(tmp_path, monkeypatch):
    table = load_scores(SAMPLE)
    comparison = jecs_core.compare_methods(table, alpha=0.1)

    def broken(record):
        raise OSError("disk full")

    monkeypatch.setattr(jecs_core.export, "sidecar_text", lambda record: broken(record))
    with pytest.raises(OSError, match="disk full"):
        jecs_core.write_selection(tmp_path / "sel.csv", table, comparison)
    assert list(tmp_path.iterdir()) == []


# ---- spreadsheets ----

FORMULAS = ['=HYPERLINK("http://evil.example","click")', "+1+2", "-2+3+cmd|' /C calc'!A0", "@SUM(A1:A2)", "\t=1", "-1.5"]


def _formula_table(tmp_path) -> Path:
    frame = _sample(20, 20)
    frame["text"] = "plain"
    test_rows = frame.index[frame.split == "test"][: len(FORMULAS)]
    frame.loc[test_rows, "item_id"] = FORMULAS
    frame.loc[test_rows, "text"] = FORMULAS
    path = tmp_path / "formulas.csv"
    frame.to_csv(path, index=False)
    return path


def test_export_neutralises_formula_cells_by_default(tmp_path, capsys):
    path = _formula_table(tmp_path)
    assert _run(capsys, "select", path, "--out", tmp_path / "sel.csv")[0] == 0
    out = pd.read_csv(tmp_path / "sel.csv", dtype={"item_id": str}, keep_default_na=False)
    expected = ["'" + f for f in FORMULAS[:-1]] + ["-1.5"]  # a plain number is not a formula
    assert list(out["item_id"][: len(FORMULAS)]) == expected and list(out["text"][: len(FORMULAS)]) == expected
    assert json.loads((tmp_path / "sel.json").read_text())["spreadsheet_safe"] is True


def test_raw_cells_switch_writes_them_unchanged(tmp_path, capsys):
    path = _formula_table(tmp_path)
    assert _run(capsys, "select", path, "--out", tmp_path / "raw.csv", "--raw-cells")[0] == 0
    out = pd.read_csv(tmp_path / "raw.csv", dtype={"item_id": str}, keep_default_na=False)
    assert list(out["item_id"][: len(FORMULAS)]) == FORMULAS
    meta = json.loads((tmp_path / "raw.json").read_text())
    assert meta["spreadsheet_safe"] is False and meta["options"]["raw_cells"] is True


# ---- method choice and sidecar for any registered rule ----

def test_method_choices_come_from_the_registry(tmp_path, capsys):
    table = load_scores(SAMPLE)
    for name, rule in jecs_core.REGISTRY.items():
        out = tmp_path / f"{name}.csv"
        assert _run(capsys, "select", SAMPLE, "--method", name, "--out", out)[0] == 0
        meta = json.loads(out.with_suffix(".json").read_text())
        assert meta["method"] == name and meta["guarantee"] == rule.guarantee.value
        assert meta["guarantee_description"] == rule.guarantee.description
        assert meta["input_sha256"] == table.source_sha256 and meta["version"] == jecs_core.__version__
        declared = {key: list(option.default) if isinstance(option.default, tuple) else option.default
                    for key, (option, _) in jecs_core.rules.declared_options().items()}
        assert meta["options"] == {**declared, "layout": "auto", "raw_cells": False,
                                   "covariates": None, "shift_method": "auto"}
        frame = pd.read_csv(out)
        comparison = jecs_core.compare_methods(table, alpha=0.1)
        np.testing.assert_array_equal(frame["selected"].to_numpy().astype(bool), comparison.selected(name))
        # A transformed scale is exported; a rule stepping up on max-p itself adds no copy of p_max.
        assert ("p_tilde" in frame.columns) == ("p_tilde" in comparison.result(name).item_columns())
        assert ("p_tilde" in frame.columns) == (name == "jecs")
    assert _run(capsys, "select", SAMPLE, "--out", tmp_path / "default.csv")[0] == 0
    assert json.loads((tmp_path / "default.json").read_text())["method"] == jecs_core.DEFAULT_METHOD
    with pytest.raises(SystemExit) as info:
        main(["select", str(SAMPLE), "--method", "nope"])
    assert info.value.code == 2


def test_selecting_everything_is_warned(tmp_path, capsys):
    frame = _sample()
    test = frame.split == "test"
    for k in range(4):  # every test item scores far below every calibration member: all look clean
        frame.loc[test, f"score_m{k}"] = -100.0 - np.arange(test.sum())
    path = tmp_path / "all.csv"
    frame.to_csv(path, index=False)
    code, _, err = _run(capsys, "select", path)
    assert code == 0
    assert ("warning: Union (invalid baseline): selects every test item (n = 100), dropping none at alpha = 0.1; at a "
            "large alpha that can be right, else check that calibration rows are members") in err
    assert all(line.startswith("jecs select: warning: ") for line in err.splitlines())


def test_cut_off_above_one_on_a_transformed_scale_is_warned():
    from types import SimpleNamespace

    table = load_scores(SAMPLE)
    real = jecs_core.compare_methods(table, alpha=0.1)
    name = next(n for n in real.methods if getattr(real.result(n), "p_tilde", None) is not None)
    # The SelectionResult shape the export reads (a small pi0 estimate is what lifts an adaptive rule's cut-off past 1).
    fake = SimpleNamespace(selected=np.zeros(table.n, dtype=bool), threshold=1.37, p_tilde=np.full(table.n, 0.5), n_selected=0,
                           pi0_hat=0.05, fallback_reason=None, fit_summary=tuple)
    comparison = jecs_core.Comparison(alpha=0.1, models=table.models, pvalues=real.pvalues, results={name: fake})
    warnings = jecs_core.export.selection_warnings(table, comparison)
    label = jecs_core.REGISTRY[name].label
    assert warnings == [f"warning: {label}: the cut-off on its transformed scale is 1.37 > 1, so the step-up passes every item "
                        "below it; its pi0 estimate is small"]
    assert jecs_core.export.selection_metadata(table, comparison, name)["warnings"] == warnings


@pytest.mark.parametrize("name", ["synthetic_k4.csv", "real/wiki_smollm2_k8.csv"])
def test_export_bytes_equal_pandas_for_ordinary_input(tmp_path, name):
    path = SAMPLE.parent / name
    if not path.exists():
        pytest.skip(f"{name} is not in this checkout")
    table = load_scores(path)
    comparison = jecs_core.compare_methods(table, alpha=0.1)
    for method in (*comparison.methods, "all"):
        csv_path, _ = jecs_core.write_selection(tmp_path / f"{method}.csv", table, comparison, method)
        expected = jecs_core.selection_frame(table, comparison, method).to_csv(index=False).encode()
        assert csv_path.read_bytes() == expected, method
