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
