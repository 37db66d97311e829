"""Messages for an auditor's slips in a long score table and in number cells: each names the fix."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import jecs_core as jc
from jecs_core import ScoreTableError


def _long(models=("m0", "m1"), n_cal=6, n_test=8, test_word="test") -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = [{"item_id": f"{prefix}{i}", "split": split, "model": m, "score": rng.normal()}
            for prefix, split, count in (("c", "calibration", n_cal), ("t", test_word, n_test))
            for i in range(count) for m in models]
    return pd.DataFrame(rows)


def _message(frame) -> str:
    with pytest.raises(ScoreTableError) as caught:
        jc.table_from_frame(frame)
    return str(caught.value)


def test_a_repeated_pair_lists_its_own_rows_and_names_the_other_repeated_pairs():
    frame = _long()
    once = _message(pd.concat([frame, frame.iloc[[0]]], ignore_index=True))
    assert once.endswith("duplicate pair ('c0', 'm0') at rows 1, 29")
    several = _message(pd.concat([frame, frame.iloc[[0, 0, 2, 4, 6, 8]]], ignore_index=True))
    assert "duplicate pair ('c0', 'm0') at rows 1, 29, 30 (also repeated: ('c1', 'm0'), ('c2', 'm0'), ('c3', 'm0') " \
           "and 1 more)" in several


@pytest.mark.parametrize("spelt", ["M1", "m1 ", "m\u200b1"])
def test_a_model_spelt_two_ways_is_named_with_the_fix(spelt):
    frame = _long(test_word="Test")
    frame.loc[(frame["split"] == "Test") & (frame["model"] == "m1"), "model"] = spelt
    message = _message(frame)
    assert f"model {spelt!r} and 'm1' differ only in letter case, spaces or invisible characters" in message
    assert message.count("\n") == 0


def test_a_model_missing_from_a_whole_split_is_named():
    frame = _long()
    message = _message(frame[~((frame["split"] == "test") & (frame["model"] == "m1"))])
    assert message.endswith("model 'm1' has no test rows at all: score the test items with it too")
    one_row = _message(frame.drop(index=[5]))  # a single missing row: no hint beyond the item and model
    assert one_row.endswith("no row for item 'c2' and model 'm1'; every item needs one score per model")


@pytest.mark.parametrize("cell, hint", [("0,1257", " (a decimal comma? write '0.1257' with a point, as CSV numbers are)"),
                                        ("-3,5", " (a decimal comma? write '-3.5' with a point, as CSV numbers are)"),
                                        ("1,2,3", ""), ("abc", "")])
def test_a_decimal_comma_gets_its_fix(tmp_path, cell, hint):
    frame = _long().astype({"score": object})
    frame.loc[3, "score"] = cell
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    with pytest.raises(ScoreTableError) as caught:
        jc.load_scores(path)
    assert str(caught.value).endswith(f"scores must be numbers{hint}")
