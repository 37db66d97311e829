"""``jecs leaderboard`` runs the table's own checks, as ``jecs select`` does: one line each on stderr."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from jecs_cli import main

ROOT = Path(__file__).resolve().parents[3]
SCORES = ROOT / "sample_data" / "real" / "wiki_smollm2_exposure_k4.csv"
RESULTS = ROOT / "sample_data" / "real" / "wiki_smollm2_exposure_k4_results.csv"


def _stderr_lines(capsys, *argv) -> list[str]:
    assert main(["leaderboard", *map(str, argv)]) == 0
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert err == "".join(f"{line}\n" for line in lines) and all(line.startswith("jecs leaderboard: ") for line in lines)
    return lines


def test_a_clean_table_gives_no_data_warning(capsys):
    assert not [line for line in _stderr_lines(capsys, SCORES, "--results", RESULTS)
                if "other way" in line or "calibration item" in line or "above every" in line]


def test_a_reversed_model_and_copies_of_calibration_items_are_named(tmp_path, capsys):
    frame = pd.read_csv(SCORES)
    frame["score_ft02"] = -frame["score_ft02"]
    copies = frame[frame["split"] == "calibration"].head(4).copy()
    copies["split"], copies["item_id"] = "test", copies["item_id"] + "-again"
    frame = pd.concat([frame, copies], ignore_index=True)
    path = tmp_path / "mistakes.csv"
    frame.to_csv(path, index=False)
    results = pd.read_csv(RESULTS)
    extra = results[results["item_id"].isin(copies["item_id"].str.removesuffix("-again"))].copy()
    extra["item_id"] = extra["item_id"] + "-again"
    pd.concat([results, extra]).to_csv(tmp_path / "results.csv", index=False)
    lines = _stderr_lines(capsys, path, "--results", tmp_path / "results.csv", "--alpha", "0.2")
    reversed_lines = [line for line in lines if "may run the other way" in line]
    assert len(reversed_lines) == 1 and reversed_lines[0].startswith("jecs leaderboard: warning: ")
    assert "negate the scores of ft02 in the file" in reversed_lines[0]
    assert any(line.startswith("jecs leaderboard: warning: 4 test item(s) repeat a calibration item") for line in lines)
