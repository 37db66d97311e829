"""Output paths of `jecs evaluate`, `jecs sweep` and `jecs synth` go through the one writer."""

from __future__ import annotations

from pathlib import Path

import pytest

from jecs_cli import main

SAMPLE = str(Path(__file__).resolve().parents[2] / "sample_data" / "synthetic_k4.csv")


@pytest.mark.parametrize("argv", [
    ["evaluate", SAMPLE, "--reps", "2"],
    ["sweep", "lambda", SAMPLE, "--reps", "2"],
    ["synth"],
])
def test_an_unknown_extension_is_refused_before_any_work(tmp_path, capsys, argv):
    out = tmp_path / "r.xlsx"
    code = main([*argv, "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 2 and not out.exists()
    assert captured.err == f"jecs {argv[0]}: error: --out: {out} must end in .csv or .parquet\n"
    assert "GCP" not in captured.out  # refused before the protocol ran


def test_evaluate_never_writes_over_its_input(tmp_path, capsys):
    data = tmp_path / "scores.csv"
    data.write_bytes(Path(SAMPLE).read_bytes())
    before = data.read_bytes()
    assert main(["evaluate", str(data), "--reps", "2", "--out", str(data)]) == 2
    assert "is the input file" in capsys.readouterr().err
    assert data.read_bytes() == before


def test_evaluate_csv_cells_are_spreadsheet_safe(tmp_path, capsys):
    out = tmp_path / "r.csv"
    assert main(["evaluate", SAMPLE, "--reps", "2", "--out", str(out)]) == 0
    capsys.readouterr()
    text = out.read_text()
    assert text.startswith("method,") and "\n=" not in text and ",=" not in text


@pytest.mark.parametrize("flag", ["--out", "--twin-out", "--per-rep-out"])
def test_evaluate_names_the_output_flag_it_refuses(tmp_path, capsys, flag):
    missing = tmp_path / "nowhere" / "r.csv"
    code = main(["evaluate", SAMPLE, "--reps", "2", flag, str(missing), *(["--twin"] if flag == "--twin-out" else [])])
    captured = capsys.readouterr()
    assert code == 2 and captured.err == f"jecs evaluate: error: {flag}: directory {missing.parent} does not exist\n"
    assert "GCP" not in captured.out


def test_the_library_names_its_path_argument(tmp_path):
    import pandas as pd

    from jecs_core.io import write_table

    with pytest.raises(ValueError, match=r"^path: directory .* does not exist$"):
        write_table(pd.DataFrame({"a": [1]}), tmp_path / "nowhere" / "t.csv")


def test_select_never_writes_its_sidecar_over_the_inputs_provenance_record(tmp_path, capsys):
    # <stem>.provenance.json is read with the scores (the report shows it); --out data.provenance.csv
    # would have put the selection's sidecar in its place.
    data, record = tmp_path / "data.csv", tmp_path / "data.provenance.json"
    data.write_bytes(Path(SAMPLE).read_bytes())
    record.write_text('{"model": "kept"}')
    assert main(["select", str(data), "--out", str(tmp_path / "data.provenance.csv"), "--no-progress"]) == 2
    assert capsys.readouterr().err == (f"jecs select: error: sidecar: {record} is the input file {record}; "
                                       "write the output somewhere else\n")
    assert record.read_text() == '{"model": "kept"}' and not (tmp_path / "data.provenance.csv").exists()
    record.unlink()  # without a record there is nothing to keep: the same name is fine
    assert main(["select", str(data), "--out", str(tmp_path / "data.provenance.csv"), "--no-progress"]) == 0
