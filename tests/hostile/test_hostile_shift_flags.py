"""``--shift-method`` without ``--covariates`` would change nothing while the sidecar named it: refused in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jecs_cli import main

SAMPLE = str(Path(__file__).resolve().parents[2] / "sample_data" / "synthetic_k4.csv")


@pytest.mark.parametrize("command", [["select", SAMPLE], ["report", SAMPLE],
                                     ["leaderboard", SAMPLE, "--results", "r.csv"]])
@pytest.mark.parametrize("method", ["auto", "weighted", "residual"])
def test_a_shift_method_without_covariates_is_refused_before_any_work(command, method, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main([*command, "--shift-method", method, "--out", "x.html" if command[0] == "report" else "x.csv"]) == 2
    err = capsys.readouterr().err
    assert f"error: --shift-method {method}: says how --covariates are used, and none are given" in err
    assert err.count("\n") == 1 and not list(tmp_path.iterdir())


def test_shift_method_none_or_left_out_records_what_ran(tmp_path, capsys):
    for extra, recorded in (([], "auto"), (["--shift-method", "none"], "none")):
        out = tmp_path / f"sel{len(extra)}.csv"
        assert main(["select", SAMPLE, "--out", str(out), "--no-diagnostics", *extra]) == 0
        record = json.loads(out.with_suffix(".json").read_text())
        assert (record["options"]["covariates"], record["options"]["shift_method"]) == (None, recorded)
