"""Hostile input, core and CLI cases (the export's are in test_hostile_exports.py): each feeds the exact
hostile or clumsy input and asserts the exact exit code and message, or the safe output."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import jecs_core
from jecs_core import ScoreTableError, load_scores, table_from_frame
from jecs_core.cli import main

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
