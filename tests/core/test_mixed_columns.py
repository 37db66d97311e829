"""A column typed block by block by pandas' CSV reader reads as if typed whole (jecs_core._mixed_columns)."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jecs_core import load_scores
from jecs_core._mixed_columns import mixed_columns
from jecs_core.cli import main
from jecs_core.io import csv_options, read_table, read_table_bytes

# Rows enough for pandas' reader to type an 8-column file in more than one block (checked below).
ROWS = 70_000
HEADER = ["item_id", "split", "score_a", "source", "c1", "c2", "c3", "c4"]

early_cells = st.sampled_from(["007", "7", "-0", "1.5", "1e3", "True", "", "NA", "n/a"])
late_cells = st.sampled_from(["abc", "007", "x y", "True", "1", "", "#N/A", "1.5.2"])


def _write(path, early: str, late: str, where: int) -> None:
    rows = [f"i{j},{'calibration' if j % 3 == 0 else 'test'},{j % 97},{early},0,1,2,3\n" for j in range(ROWS)]
    rows[where] = rows[where].replace(f",{early},0,1,2,3", f",{late},0,1,2,3")
    path.write_text(",".join(HEADER) + "\n" + "".join(rows), encoding="utf-8")


def _whole(path) -> pd.DataFrame:
    """The reference: pandas typing every column over all its rows at once."""
    return pd.read_csv(path, low_memory=False, **csv_options(HEADER))


def test_the_reader_does_type_this_file_block_by_block(tmp_path):
    # Without this the tests below would not exercise the mixed case at all.
    path = tmp_path / "scores.csv"
    _write(path, "007", "abc", ROWS - 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        blockwise = pd.read_csv(path, **csv_options(HEADER))
    assert mixed_columns(blockwise) == ["source"]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(early=early_cells, late=late_cells, where=st.sampled_from([0, ROWS // 2, ROWS - 1]))
def test_read_table_equals_the_whole_column_read_and_warns_nothing(early, late, where, tmp_path):
    path = tmp_path / "scores.csv"
    _write(path, early, late, where)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame = read_table(path)
        uploaded = read_table_bytes(path.read_bytes(), "scores.csv")
    pd.testing.assert_frame_equal(frame, _whole(path))
    pd.testing.assert_frame_equal(uploaded, _whole(path))
    assert not mixed_columns(frame)


def test_a_carried_column_keeps_its_text_through_the_export(tmp_path, capsys):
    path, out = tmp_path / "scores.csv", tmp_path / "selected.csv"
    _write(path, "007", "abc", ROWS - 2)  # a test row
    table = load_scores(path)
    assert set(table.test_extra["source"]) == {"007", "abc"}
    assert main(["select", str(path), "--out", str(out), "--no-diagnostics", "--no-progress"]) == 0
    assert "mixed types" not in capsys.readouterr().err
    written = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert set(written["source"]) == {"007", "abc"}


@pytest.mark.parametrize("late", ["abc", "not a number"])
def test_a_late_bad_score_is_named_once_without_the_readers_advice(late, tmp_path, capsys):
    path = tmp_path / "scores.csv"
    rows = [f"i{j},{'calibration' if j % 3 == 0 else 'test'},{j % 97},s,0,1,2,3\n" for j in range(ROWS)]
    rows[-1] = f"i{ROWS - 1},test,{late},s,0,1,2,3\n"
    path.write_text(",".join(HEADER) + "\n" + "".join(rows), encoding="utf-8")
    assert main(["select", str(path), "--no-diagnostics", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"column 'score_a': non-numeric value '{late}'" in err
    assert "low_memory" not in err and "mixed types" not in err
