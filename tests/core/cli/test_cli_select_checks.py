"""``jecs select``'s table checks beside the p-values: the reversed-score check reuses them, and a
failure while computing them never leaves the checks' thread waiting."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import jecs_core.checks.direction as direction
import jecs_core.cli.select as select_cli
from jecs_cli import main
from jecs_core import load_scores
from jecs_core.checks import score_direction

SAMPLE = Path(__file__).resolve().parents[3] / "sample_data" / "synthetic_k4.csv"


@pytest.fixture
def reversed_file(tmp_path):
    """The synthetic sample with two models' scores negated: the check must name both."""
    frame = pd.read_csv(SAMPLE)
    frame["score_m1"], frame["score_m2"] = -frame["score_m1"], -frame["score_m2"]
    path = tmp_path / "reversed.csv"
    frame.to_csv(path, index=False)
    return path


def _no_search(*args, **kwargs):
    raise AssertionError("the reversed-score check searched the calibration scores again")


def test_the_reversed_score_check_reads_the_commands_pvalues(reversed_file, tmp_path, monkeypatch, capsys):
    (expected,) = score_direction(load_scores(str(reversed_file))).warnings()  # searched, before the patch
    assert "m1" in expected and "m2" in expected
    monkeypatch.setattr(direction, "_aucs", _no_search)
    assert main(["select", str(reversed_file), "--no-diagnostics", "--out", str(tmp_path / "sel.csv")]) == 0
    assert f"jecs select: {expected}" in capsys.readouterr().err.splitlines()


def test_with_covariate_aware_pvalues_the_check_searches(tmp_path, monkeypatch, capsys):
    pytest.importorskip("sklearn")
    from jecs_core.simulate.shift_scenarios import location_shift

    path = tmp_path / "shift.csv"
    location_shift(np.random.default_rng(0)).to_csv(path, index=False)
    searched = []
    real = direction._aucs
    monkeypatch.setattr(direction, "_aucs", lambda *a: searched.append(1) or real(*a))
    assert main(["select", str(path), "--covariates", "x_len", "--no-diagnostics"]) == 0
    assert searched == [1]  # the weighted p-values do not hold the plain counts


def test_a_failure_in_the_pvalues_stops_the_command_without_leaving_the_checks_waiting(monkeypatch, capsys):
    def failing(table):
        raise ValueError("the p-values failed")

    monkeypatch.setattr(select_cli, "table_pvalues", failing)
    result = []
    worker = threading.Thread(target=lambda: result.append(main(["select", str(SAMPLE), "--no-diagnostics"])), daemon=True)
    worker.start()
    worker.join(timeout=120)
    assert not worker.is_alive(), "jecs select hung after the p-values failed"
    assert result == [2]
    assert "the p-values failed" in capsys.readouterr().err
