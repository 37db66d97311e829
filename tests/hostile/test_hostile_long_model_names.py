"""A long table's model names head the export's columns: refused as a wide header would be, naming the model column."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from jecs_cli import main

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "synthetic_k4.csv"


def _long(tmp_path, model: str) -> Path:
    wide = pd.read_csv(SAMPLE)
    scores = [c for c in wide if c.startswith("score_")]
    long = wide.melt(id_vars=["item_id", "split"], value_vars=scores, var_name="model", value_name="score")
    long["model"] = long["model"].str.removeprefix("score_").replace("m1", model)
    long.to_csv(tmp_path / "long.csv", index=False)
    return tmp_path / "long.csv"


@pytest.mark.parametrize(("model", "message"), [
    ("x\ny", "column 'model': model name 'x\\ny' at rows 1201, "),
    ("tab\there", "column 'model': model name 'tab\\there' at rows 1201, "),
    ("max", "column 'model': model name 'max' at rows 1201, "),
    ("tilde", "column 'model': model name 'tilde' at rows 1201, "),
])
def test_a_model_name_the_export_cannot_carry_is_refused(model, message, tmp_path, capsys):
    path = _long(tmp_path, model)
    assert main(["select", str(path), "--out", str(tmp_path / "o.csv")]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "rename the model" in err
    assert not (tmp_path / "o.csv").exists()


def test_an_ordinary_model_name_in_a_long_table_is_kept(tmp_path):
    path = _long(tmp_path, "m-1 (v2)")
    assert main(["select", str(path), "--out", str(tmp_path / "o.csv"), "--no-diagnostics"]) == 0
    assert "p_m-1 (v2)" in pd.read_csv(tmp_path / "o.csv").columns


@pytest.mark.parametrize(("model", "breaker"), [("c1\x9b31m", "\x9b"), ("nel\x85x", "\x85"), ("del\x7fx", "\x7f"),
                                              ("a\u2028b", "\u2028"), ("a\u2029b", "\u2029"),
                                              ("abc\u202edef", "\u202e"), ("iso\u2066x", "\u2066")])
def test_a_name_that_rewrites_a_printed_line_is_refused_in_either_layout(model, breaker, tmp_path, capsys):
    # C1 controls (0x9b starts a terminal escape), DEL, line/paragraph separators and bidi controls
    # would reach the terminal, the report and the export's headers as they are.
    path = _long(tmp_path, model)
    assert main(["select", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"model name {model!r} at rows 1201, " in err and f"(U+{ord(breaker):04X})" in err and err.count("\n") == 1
    wide = pd.read_csv(SAMPLE).rename(columns={"score_m1": f"score_{model}"})
    wide.to_csv(tmp_path / "wide.csv", index=False)
    assert main(["select", str(tmp_path / "wide.csv")]) == 2
    err = capsys.readouterr().err
    assert f"column name {'score_' + model!r} holds a line break or control character" in err and err.count("\n") == 1


def test_the_rows_named_are_those_of_the_name_the_message_names(tmp_path, capsys):
    wide = pd.read_csv(SAMPLE)
    scores = [c for c in wide if c.startswith("score_")]
    long = wide.melt(id_vars=["item_id", "split"], value_vars=scores, var_name="model", value_name="score")
    long["model"] = long["model"].str.removeprefix("score_").replace({"m1": "a\x1bb", "m2": "c\x1bd"})
    long.to_csv(tmp_path / "long.csv", index=False)
    assert main(["select", str(tmp_path / "long.csv")]) == 2
    err = capsys.readouterr().err
    assert "model name 'a\\x1bb' at rows 1201, 1202" in err and "and 1195 more" in err  # m1's 1,200 rows, not m2's
