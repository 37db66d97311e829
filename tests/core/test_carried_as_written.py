"""Carried columns of a CSV score table are kept as written, from the file to the export (docs/DATA-CONTRACT.md)."""

from __future__ import annotations

import csv
import io
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jecs_core._csv_chunks as chunks
from jecs_core import load_scores, load_scores_bytes
from jecs_core.cli import main
from jecs_core.io import FORMULA_PREFIXES, read_as_written, write_table

# Cells a typed read would change: leading zeros, trailing zeros, exponents, padding, NA words,
# integers past 64 bits, signs, booleans.
TRICKY = ["007", "3.10", "1e5", " 42 ", "NA", "null", "", "-5", "+7", "TRUE", "12345678901234567890",
          "98765432109876543210", "0x1F", "1,5", "nan", "-inf", "é", "=1+1"]
cells = st.one_of(st.sampled_from(TRICKY), st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")),
                                                  max_size=8))


def _csv(notes: list[str], *, layout: str = "wide") -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    rng = np.random.default_rng(len(notes))
    if layout == "wide":
        writer.writerow(["item_id", "split", "score_a", "note", "x_len"])
        for j, note in enumerate(notes):
            writer.writerow([f"i{j}", "calibration" if j % 3 == 0 else "test", rng.normal(), note, j])
    else:
        writer.writerow(["item_id", "split", "model", "score", "note"])
        for j, note in enumerate(notes):
            for model in ("a", "b"):
                writer.writerow([f"i{j}", "calibration" if j % 3 == 0 else "test", model, rng.normal(), note])
    return out.getvalue().encode("utf-8")


def _expected(notes: list[str], split: str) -> list[str]:
    return [note for j, note in enumerate(notes) if (j % 3 == 0) == (split == "calibration")]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(notes=st.lists(cells, min_size=6, max_size=12))
def test_every_reader_keeps_a_carried_cell_as_written(notes, tmp_path, monkeypatch):
    path = tmp_path / "scores.csv"
    path.write_bytes(_csv(notes))
    whole = load_scores(path)
    monkeypatch.setattr(chunks, "CHUNKED_FROM_BYTES", 0)
    monkeypatch.setattr(chunks, "CHUNK_ROWS", 4)
    in_chunks = load_scores(path)
    uploaded = load_scores_bytes(path.read_bytes(), "scores.csv")
    (tmp_path / "long.csv").write_bytes(_csv(notes, layout="long"))
    long = load_scores(tmp_path / "long.csv")
    for table in (whole, in_chunks, uploaded, long):
        assert table.test_extra["note"].tolist() == _expected(notes, "test")
        assert table.calibration_extra["note"].tolist() == _expected(notes, "calibration")
    assert whole.test_extra["x_len"].dtype.kind in "iu"  # a covariate is a number, typed and checked


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(notes=st.lists(cells, min_size=6, max_size=12))
def test_the_export_writes_a_carried_cell_as_read(notes, tmp_path):
    path, out = tmp_path / "scores.csv", tmp_path / "selected.csv"
    path.write_bytes(_csv(notes))
    assert main(["select", str(path), "--out", str(out), "--no-diagnostics", "--no-progress"]) == 0
    written = pd.read_csv(out, dtype=str, keep_default_na=False)["note"].tolist()
    for note, cell in zip(_expected(notes, "test"), written):
        # Spreadsheet-safe by default: one leading quote at most, and dropping it gives the cell back.
        assert cell in (note, "'" + note) and (cell[1:] if cell.startswith("'") else cell) == note
        plain_number = re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", note) is not None
        assert cell.startswith("'") == (note.startswith((*FORMULA_PREFIXES, "'")) and not plain_number)


def test_integers_past_64_bits_export_without_error(tmp_path):
    # From a CSV (read as written) and from a caller's frame of Python ints (the writer's own fallback).
    path, out = tmp_path / "scores.csv", tmp_path / "selected.csv"
    path.write_bytes(_csv(["98765432109876543210"] * 6))
    assert main(["select", str(path), "--out", str(out), "--no-diagnostics", "--no-progress"]) == 0
    assert set(pd.read_csv(out, dtype=str)["note"]) == {"98765432109876543210"}
    frame = pd.DataFrame({"a": [98765432109876543210, 1, None], "b": ["x", "y", "z"]}, dtype=object)
    write_table(frame, tmp_path / "big.csv")
    assert (tmp_path / "big.csv").read_text().splitlines() == ["a,b", "98765432109876543210,x", "1,y", ",z"]


def test_parquet_columns_keep_their_types(tmp_path):
    frame = pd.DataFrame({"item_id": ["c1", "c2", "t1", "t2"], "split": ["calibration"] * 2 + ["test"] * 2,
                          "score_a": [1.0, 2.0, 0.5, 3.0], "level": [1, 2, 3, 4], "code": ["007", "x", "010", "y"]})
    frame.to_parquet(tmp_path / "scores.parquet")
    table = load_scores(tmp_path / "scores.parquet")
    assert table.test_extra["level"].tolist() == [3, 4] and table.test_extra["level"].dtype.kind == "i"
    assert table.test_extra["code"].tolist() == ["010", "y"]


@pytest.mark.parametrize(("header", "layout", "expected"), [
    (["item_id", "split", "score_a", "member_a", "x_len", "text", "note"], "auto", ("item_id", "text", "note")),
    (["item_id", "split", "model", "score", "member", "x_len", "text"], "auto", ("item_id", "model", "text")),
    (["item_id", "split", "model", "score", "score_a"], "auto", ("item_id", "model", "score")),  # wide: score_ wins
    (["item_id", "split", "model", "score"], "wide", ("item_id", "model", "score")),
])
def test_the_columns_kept_as_written(header, layout, expected):
    assert read_as_written(header, layout) == expected


@pytest.mark.parametrize("writer", ["pyarrow", "pandas"])
def test_parquet_integers_with_gaps_stay_integers_to_the_export(writer, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    ids, splits = [f"i{j}" for j in range(12)], ["calibration"] * 6 + ["test"] * 6
    scores = np.random.default_rng(5).normal(size=12)
    level, labels = [1, None] * 6, [None] * 6 + [0, 1] * 3  # labels: empty on calibration rows
    path, out = tmp_path / "scores.parquet", tmp_path / "selected.csv"
    if writer == "pyarrow":  # no stored pandas types: Arrow's int64 with nulls
        pq.write_table(pa.table({"item_id": ids, "split": splits, "score_a": scores, "member_a": pa.array(labels, pa.int64()),
                                 "level": pa.array(level, pa.int64()), "big": pa.array([2**64 - 1] * 12, pa.uint64())}), path)
    else:
        pd.DataFrame({"item_id": ids, "split": splits, "score_a": scores, "member_a": pd.array(labels, dtype="Int64"),
                      "level": pd.array(level, dtype="Int64"), "big": pd.array([2**64 - 1] * 12, dtype="UInt64")}).to_parquet(path)
    table = load_scores(path)
    assert table.test_members[:, 0].tolist() == [0, 1] * 3
    assert main(["select", str(path), "--out", str(out), "--no-diagnostics", "--no-progress"]) == 0
    written = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert written["level"].tolist() == ["1", ""] * 3 and set(written["big"]) == {str(2**64 - 1)}
    assert written["member_a"].tolist() == ["0", "1"] * 3


def test_a_parquet_score_with_a_gap_is_still_refused_by_name(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "scores.parquet"
    pq.write_table(pa.table({"item_id": ["c1", "c2", "t1"], "split": ["calibration", "calibration", "test"],
                             "score_a": pa.array([1, None, 3], pa.int64())}), path)
    with pytest.raises(ValueError, match=r"column 'score_a': missing score \(empty or NaN\) at row 2"):
        load_scores(path)
