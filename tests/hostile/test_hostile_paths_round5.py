"""Paths an auditor mistypes: an empty one, an output named only by its extension, a file used as a directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from jecs_cli import main

SAMPLE = str(Path(__file__).resolve().parents[2] / "sample_data" / "synthetic_k4.csv")


@pytest.mark.parametrize(("argv", "message"), [
    (["select", "", "--out", "a.csv"], "jecs select: error: the path is empty (''); name a .csv or .parquet file"),
    (["report", " ", "--out", "r.html"], "jecs report: error: the path is empty (' '); name a .csv or .parquet file"),
    (["select", SAMPLE, "--out", "o/.csv"], "jecs select: error: --out: o/.csv has no file name before .csv; name the "
                                            "file, e.g. out.csv"),
    (["select", SAMPLE, "--out", "plain.csv/x.csv"], "jecs select: error: --out: plain.csv is a file, not a directory; "
                                                     "plain.csv/x.csv cannot be written inside it"),
    (["select", SAMPLE, "--out", "plain.csv/deeper/x.csv"], "--out: plain.csv is a file, not a directory"),
    (["select", SAMPLE, "--out", "missing/x.csv"], "jecs select: error: --out: directory missing does not exist"),
])
def test_a_mistyped_path_gets_one_line_saying_what_is_wrong(argv, message, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "plain.csv").write_text("not a directory\n")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plain.csv"]
