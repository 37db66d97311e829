"""Calibration items are known members: a member label on a calibration row is 1 or empty, in every reader."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jecs_core import ScoreTableError, load_scores, table_from_frame

N_CAL, N_TEST = 5, 6


def _frame(cal_labels_b) -> pd.DataFrame:
    rng = np.random.default_rng(4)
    rows = N_CAL + N_TEST
    return pd.DataFrame({
        "item_id": [f"i{j}" for j in range(rows)], "split": ["calibration"] * N_CAL + ["test"] * N_TEST,
        "score_a": rng.standard_normal(rows), "score_b": rng.standard_normal(rows),
        "member_a": [1] * N_CAL + [0, 1] * (N_TEST // 2),
        "member_b": pd.array(list(cal_labels_b) + [1, 0] * (N_TEST // 2), dtype=object),
    })


def _long(frame: pd.DataFrame) -> pd.DataFrame:
    long = frame.melt(id_vars=["item_id", "split"], value_vars=["score_a", "score_b"], var_name="model", value_name="score")
    labels = frame.melt(id_vars=["item_id"], value_vars=["member_a", "member_b"], value_name="member")
    return long.assign(model=long["model"].str.removeprefix("score_"), member=labels["member"].to_numpy())


def _read(frame: pd.DataFrame, reader: str, tmp_path):
    if reader == "frame":
        return table_from_frame(frame)
    if reader == "parquet":
        path = tmp_path / "s.parquet"
        frame.astype({"member_b": "Int64"}).to_parquet(path, index=False)
        return load_scores(path)
    path = tmp_path / "s.csv"
    (_long(frame) if reader == "long csv" else frame).to_csv(path, index=False)
    return load_scores(path)


READERS = ["frame", "wide csv", "parquet", "long csv"]


@pytest.mark.parametrize("reader", READERS)
def test_a_zero_on_a_calibration_row_is_refused_naming_column_and_row(reader, tmp_path):
    labels = [1, 1, 0, 1, None]
    with pytest.raises(ScoreTableError, match=r"column 'member(_b)?': label 0 at row \d+.* \(calibration\); calibration "
                                              r"items are known members, so their labels must be 1 or empty") as caught:
        _read(_frame(labels), reader, tmp_path)
    assert "\n" not in str(caught.value)
    if reader == "wide csv":
        assert "at row 3 (spreadsheet row 4)" in str(caught.value)


@pytest.mark.parametrize("reader", READERS)
def test_ones_and_empty_cells_on_calibration_rows_read_as_no_labels(reader, tmp_path):
    labelled = _read(_frame([1, None, 1, None, 1]), reader, tmp_path)
    plain = table_from_frame(_frame([1] * N_CAL))
    np.testing.assert_array_equal(labelled.test_members, plain.test_members)
    np.testing.assert_array_equal(labelled.calibration, plain.calibration)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cells=st.lists(st.sampled_from(["", "1", "0", "1.0", "2", "-1", "x"]), min_size=N_CAL, max_size=N_CAL))
def test_a_csv_loads_exactly_when_every_calibration_label_says_member(cells, tmp_path):
    frame = _frame([None] * N_CAL)
    lines = frame.to_csv(index=False).splitlines()
    for j, cell in enumerate(cells):  # the cells as written, not as pandas would write them
        fields = lines[j + 1].split(",")
        lines[j + 1] = ",".join([*fields[:-1], cell])
    path = tmp_path / "cells.csv"
    path.write_text("\n".join(lines) + "\n")
    if all(cell in ("", "1", "1.0") for cell in cells):
        assert load_scores(path).n == N_TEST
    else:
        first = next(j for j, cell in enumerate(cells) if cell not in ("", "1", "1.0"))
        with pytest.raises(ScoreTableError, match=rf"column 'member_b': label .* at rows? {first + 1}\b.* \(calibration\); calibration items"):
            load_scores(path)


@pytest.mark.parametrize(("cell", "advice"), [("True", "write 1; a whole column of True/False is read as 1/0 too"),
                                              ("member", "write 1; a whole column of True/False is read as 1/0 too"),
                                              (0, "move a non-member to the test split"),
                                              (2, "move a non-member to the test split")])
def test_a_word_on_a_calibration_row_is_a_spelling_to_fix_and_a_number_a_row_to_move(cell, advice):
    with pytest.raises(ScoreTableError, match=r"their labels must be 1 or empty: " + advice + "$"):
        table_from_frame(_frame([1, 1, cell, 1, 1]))
