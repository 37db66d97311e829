"""A score column misspelled beside its member labels: the error names the column and the fix."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from jecs_cli import main

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "synthetic_k4.csv"


@pytest.mark.parametrize(("written", "message"), [  # the rename first; only the non-empty sides after it
    ("Score_m1", "column 'Score_m1' looks like 'score_m1': rename it so; member columns do not match score columns: "
                 "member_ without score_: ['m1']\n"),
    ("score-m1", "column 'score-m1' looks like 'score_m1': rename it so; member columns do not match score columns: "
                 "member_ without score_: ['m1']\n"),
    ("scores_m1", "column 'scores_m1' looks like 'score_m1': rename it so; member columns do not match score "
                  "columns: member_ without score_: ['m1']\n"),
    ("score_m1 ", "column 'score_m1 ' looks like 'score_m1': rename it so; member columns do not match score "
                  "columns: score_ without member_: ['m1 ']; member_ without score_: ['m1']\n"),
    ("score_q1", ": member columns do not match score columns: score_ without member_: ['q1']; member_ without "
                 "score_: ['m1']\n"),  # no look-alike: no hint
])
def test_the_misspelled_score_column_is_named(written, message, tmp_path, capsys):
    frame = pd.read_csv(SAMPLE).rename(columns={"score_m1": written})
    frame.to_csv(tmp_path / "t.csv", index=False)
    assert main(["select", str(tmp_path / "t.csv"), "--out", str(tmp_path / "o.csv")]) == 2
    err = capsys.readouterr().err
    assert "member columns do not match score columns" in err and err.endswith(message) and err.count("\n") == 1


def test_the_only_score_column_misspelled_is_named_in_the_no_scores_line(tmp_path, capsys):
    frame = pd.read_csv(SAMPLE)[["item_id", "split", "score_m1"]].rename(columns={"score_m1": "Score_m1"})
    frame.to_csv(tmp_path / "t.csv", index=False)
    assert main(["select", str(tmp_path / "t.csv")]) == 2
    err = capsys.readouterr().err
    assert "no score columns" in err and err.endswith("column 'Score_m1' looks like 'score_m1': rename it so\n")


def test_a_member_column_without_a_name_is_named_alone(tmp_path, capsys):
    frame = pd.read_csv(SAMPLE).assign(member_=0)
    frame.to_csv(tmp_path / "t.csv", index=False)
    assert main(["select", str(tmp_path / "t.csv")]) == 2
    err = capsys.readouterr().err
    assert "column 'member_': no name after 'member_'; name it 'member_<name>'" in err
    assert "do not match" not in err and err.count("\n") == 1


def test_labels_for_some_models_only_say_labels_are_all_or_nothing(tmp_path, capsys):
    frame = pd.read_csv(SAMPLE).drop(columns=["member_m1", "member_m3"])
    frame.to_csv(tmp_path / "t.csv", index=False)
    assert main(["select", str(tmp_path / "t.csv")]) == 2
    err = capsys.readouterr().err
    assert err.endswith("score_ without member_: ['m1', 'm3']; labels are all or nothing: add member_m1, member_m3 "
                        "or leave out every member_ column\n") and err.count("\n") == 1
