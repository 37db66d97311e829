"""Hostile input, the export's cases: an output that would overwrite the input, take another extension,
drop a column named like its own, land in a directory, or carry spreadsheet formulas. Each asserts the
exact exit code and message, or the safe file written."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import jecs_core
from jecs_core import ScoreTableError, load_scores
from jecs_core.cli import main
from jecs_core.data import load_scores_bytes

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "synthetic_k4.csv"


def _sample(n_cal: int = 100, n_test: int = 100) -> pd.DataFrame:
    full = pd.read_csv(SAMPLE, dtype={"item_id": str})
    return pd.concat([full[full.split == "calibration"].head(n_cal), full[full.split == "test"].head(n_test)], ignore_index=True)


def _one_error(err: str, path, message: str) -> None:
    assert err == f"jecs select: error: {path}: {message}\n"


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


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
