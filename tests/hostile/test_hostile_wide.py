"""Tables of tens of thousands of models: every step answers, through the installed ``jecs`` command."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pandas as pd
import pytest

import jecs_core as jc
from jecs_core.checks import score_direction
from jecs_core.diagnostics import audit_diagnostics, correlation, score_correlation, spearman_matrix
from jecs_core.diagnostics.audit import TWIN_MAX_MODELS


def _wide(K, rows=5, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.random((rows, K)), columns=[f"score_m{i}" for i in range(K)])
    frame.insert(0, "split", ["calibration"] * (rows - 2) + ["test"] * 2)
    frame.insert(0, "item_id", [f"i{j}" for j in range(rows)])
    return frame


def test_sixty_thousand_columns_through_the_command(tmp_path):
    _wide(60_000).to_csv(tmp_path / "wide.csv", index=False)
    # A hang guard, not a timing: the K x K correlation (27 GiB) and the per-model twin fits took hours.
    run = subprocess.run(["jecs", "select", str(tmp_path / "wide.csv"), "--out", str(tmp_path / "sel.csv")],
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Traceback" not in run.stderr
    assert f"no twin check: skipped above {TWIN_MAX_MODELS} models, K = 60,000" in run.stdout
    assert "min and max not computed above" in run.stdout
    side = json.loads((tmp_path / "sel.json").read_text())
    assert side["diagnostics"]["correlation"]["matrix"] is None


def test_correlation_mean_without_the_matrix_equals_the_full_one(monkeypatch):
    rng = np.random.default_rng(1)
    scores = rng.normal(size=(30, 40))
    scores[:, 3] = 2.0  # a constant column: no correlation, left out as in the full matrix
    scores[:, 5] = scores[:, 6] + rng.normal(0, 0.1, 30)
    frame = pd.DataFrame(scores, columns=[f"score_m{k}" for k in range(40)])
    frame.insert(0, "split", ["calibration"] * 30)
    frame = pd.concat([frame, frame.head(2).assign(split="test")], ignore_index=True)
    frame.insert(0, "item_id", [f"i{j}" for j in range(len(frame))])
    table = jc.table_from_frame(frame)
    full = score_correlation(table)
    monkeypatch.setattr(correlation, "MATRIX_MAX_MODELS", 10)
    summary = score_correlation(table)
    assert summary.matrix is None and np.isnan(summary.min) and np.isnan(summary.max)
    assert summary.mean == pytest.approx(full.mean, abs=1e-12)
    matrix = spearman_matrix(table.calibration)
    off = matrix[~np.eye(40, dtype=bool)]
    assert full.mean == pytest.approx(off[np.isfinite(off)].mean(), abs=1e-12)


def test_twin_check_left_out_above_the_model_cap_with_a_reason():
    table = jc.table_from_frame(_wide(TWIN_MAX_MODELS + 1, rows=40))
    found = audit_diagnostics(table, alpha=0.1, seed=0, bootstrap=20)
    assert found.twin is None and found.jecs_safe is None
    assert f"skipped above {TWIN_MAX_MODELS} models" in found.verdict


def test_reversed_check_on_many_models_matches_brute_force():
    table = jc.table_from_frame(_wide(3_000, rows=9).round(1))  # ties
    check = score_direction(table)
    for k in (0, 1, 2_999):
        t, c = table.test[:, k][:, None], table.calibration[:, k][None, :]
        assert check.auc[k] == pytest.approx(((t > c) + 0.5 * (t == c)).mean())


def test_copied_calibration_rows_do_not_pass_for_reversed_scores():
    rng = np.random.default_rng(1)
    calibration = np.repeat(rng.normal(0, 1, (10, 3)), 30, axis=0)  # 10 distinct rows, 30 copies each
    frame = pd.DataFrame(np.r_[calibration, rng.normal(0, 1, (100, 3))], columns=["score_a", "score_b", "score_c"])
    frame.insert(0, "split", ["calibration"] * 300 + ["test"] * 100)
    frame.insert(0, "item_id", [f"i{j}" for j in range(400)])
    assert score_direction(jc.table_from_frame(frame)).reversed_models == ()


@pytest.mark.parametrize("dtype", ["int64", "float32", "uint8", "Float64", "object"])
def test_one_pass_score_check_reads_what_the_column_check_reads(dtype):
    frame = pd.DataFrame({"item_id": ["a", "b", "c", "d"], "split": ["calibration", "calibration", "test", "test"],
                          "score_x": pd.array([1, 2, 3, 4]).astype(dtype), "score_y": [0.5, 0.25, 0.125, 1.0]})
    table = jc.table_from_frame(frame)
    assert table.test.tolist() == [[3.0, 0.125], [4.0, 1.0]] and table.calibration.dtype == float
