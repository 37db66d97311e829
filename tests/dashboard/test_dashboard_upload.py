"""parse_upload: the path every uploaded file takes (CSV/Parquet only, readable errors, size bound)."""

from __future__ import annotations

import hashlib
import io
import pickle

import pandas as pd
import pytest

from dashboard.upload import parse_upload, upload_key
from jecs_core import ScoreTableError, load_scores
from sample_data import SAMPLE_DIR

SAMPLE = SAMPLE_DIR / "synthetic_k4.csv"


def _csv(frame: pd.DataFrame) -> bytes:
    return frame.to_csv(index=False).encode()


def test_csv_upload_matches_load_scores():
    data = SAMPLE.read_bytes()
    table = parse_upload("scores.csv", data)
    reference = load_scores(SAMPLE)
    assert table.models == reference.models and table.n == reference.n and table.m == reference.m
    assert (table.test == reference.test).all() and (table.test_members == reference.test_members).all()
    assert table.source == "scores.csv"
    assert table.source_sha256 == hashlib.sha256(data).hexdigest() == reference.source_sha256


def test_parquet_and_long_layout_and_orientation():
    wide = pd.read_csv(SAMPLE, dtype={"item_id": str}).groupby("split").head(100)
    buffer = io.BytesIO()
    wide.to_parquet(buffer)
    assert parse_upload("scores.parquet", buffer.getvalue()).K == 4
    long = wide.melt(id_vars=["item_id", "split"], value_vars=[f"score_m{k}" for k in range(4)], var_name="model", value_name="score")
    long["model"] = long["model"].str.removeprefix("score_")
    table = parse_upload("long.csv", _csv(long), layout="long")
    flipped = parse_upload("long.csv", _csv(long), layout="auto", lower_is_member=True)
    assert table.K == 4 and not table.has_labels
    assert (flipped.test == -table.test).all() and flipped.flipped
    assert upload_key(table, "long") != upload_key(flipped, "auto")


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda f: f.drop(columns="split"), "missing required column 'split'"),
        (lambda f: f.assign(score_m1=f["score_m1"].astype(object).where(f.index != 4, "abc")), "column 'score_m1': non-numeric value 'abc' at row 5"),
        (lambda f: f.assign(member_m2=f["member_m2"].where(f.index != 700, 3)), "column 'member_m2'"),
        (lambda f: f.assign(item_id=f["item_id"].where(f.index != 1, "c0")), "duplicate id 'c0' at rows 1, 2"),
        (lambda f: f.assign(split=f["split"].where(f.index != 9, "train")), "column 'split': unknown value 'train' at row 10"),
    ],
)
def test_contract_errors_name_column_and_rows(edit, expected):
    frame = edit(pd.read_csv(SAMPLE, dtype={"item_id": str}))
    with pytest.raises(ScoreTableError, match="^bad.csv: ") as info:
        parse_upload("bad.csv", _csv(frame))
    assert expected in str(info.value)


def test_size_limit():
    with pytest.raises(ScoreTableError, match=r"above the dashboard's limit of 0.001 MB.*maxUploadSize"):
        parse_upload("big.csv", SAMPLE.read_bytes(), max_mb=0.001)


@pytest.mark.parametrize(
    ("name", "data", "expected"),
    [
        ("empty.csv", b"", "the file is empty"),
        ("scores.pkl", pickle.dumps(pd.DataFrame({"a": [1]})), "unsupported file type '.pkl'"),
        ("broken.parquet", b"not parquet at all", "could not be read as Parquet"),
        ("scores.xlsx", b"PK\x03\x04", "unsupported file type '.xlsx'"),
        ("ragged.csv", b'item_id,split\n"unclosed,test\n', "line 2 opens a quoted cell (\") that is never closed"),
    ],
)
def test_unreadable_files(name, data, expected):
    with pytest.raises(ScoreTableError) as info:
        parse_upload(name, data)
    assert expected in str(info.value) and str(info.value).startswith(name)


def test_problems_lists_every_problem_and_the_hints():
    from dashboard.upload import LINE_HINT, problems

    listed = ["a.csv: column 'x': missing score at row 3", "a.csv: column 'y': missing score at row 9"]
    lines = problems("a.csv", b"item_id,split\n", ScoreTableError(listed[0], problems=listed))
    assert lines == [*listed, LINE_HINT]  # no spreadsheet row in the messages: the convention is explained
    semi = problems("b.csv", b"item_id;split;score_a\n1;test;0.5\n", ScoreTableError("b.csv: missing required column"))
    assert "semicolon-separated" in semi[0] and len(semi) == 2
    # The core's own header check said it already: the hint is not added a second time.
    said = "b.csv: looks semicolon-separated (';' in the header line); save it as comma-separated CSV"
    assert problems("b.csv", b"item_id;split;score_a\n1;test;0.5\n", ScoreTableError(said)) == [said]
    assert problems("c.parquet", b";;;", ScoreTableError("c.parquet: bad")) == ["c.parquet: bad"]


def test_upload_reports_its_stages():
    steps = []
    parse_upload("scores.csv", SAMPLE.read_bytes(), progress=steps.append)
    assert steps[0].startswith("Reading scores.csv") and "rows" in steps[1]


def test_an_upload_is_the_cores_load_scores_bytes_with_its_progress_steps():
    from jecs_core import load_scores_bytes

    data = SAMPLE.read_bytes()
    steps: list[str] = []
    table = parse_upload("synthetic_k4.csv", data, progress=steps.append)
    core = load_scores_bytes(data, "synthetic_k4.csv")
    assert (table.test == core.test).all() and table.source_sha256 == core.source_sha256
    assert len(steps) == 2 and steps[0].startswith("Reading synthetic_k4.csv") and "data contract" in steps[1]


def _parquet(rows: int) -> bytes:
    # Repeated values: run-length and dictionary encoding keep the file tiny whatever the row count.
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    zeros = pa.array(np.zeros(rows))
    table = pa.table({"item_id": pa.array(np.zeros(rows, dtype="int64")), "split": pa.array(["test"] * rows),
                      "score_a": zeros, "score_b": zeros})
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="zstd")
    return sink.getvalue()


def test_a_small_parquet_file_of_very_many_rows_is_refused_before_it_is_read(monkeypatch):
    from dashboard import upload

    data = _parquet(200_000)  # 6.4 MB of cells in memory, a few kB on disk
    assert len(data) < 50_000
    monkeypatch.setattr(upload, "load_scores_bytes", lambda *a, **k: pytest.fail("the file was read"))
    with pytest.raises(ScoreTableError, match=r"^bomb.parquet: 200,000 rows x 4 columns would take at least 6 MB in "
                                              r"memory, above 2 x the dashboard's 1 MB upload limit"):
        parse_upload("bomb.parquet", data, max_mb=1)
    assert upload.parquet_footprint_problem("bomb.parquet", data, 200) is None  # within a usual limit
    assert upload.parquet_footprint_problem("bomb.csv", data, 1) is None  # only Parquet is looked at
    assert upload.parquet_footprint_problem("broken.parquet", b"PAR1 not really", 1) is None  # the reader says why


def test_the_leaderboard_refuses_the_same_parquet_results_file(monkeypatch):
    from dashboard import leaderboard_results, state

    monkeypatch.setattr(state, "upload_limit_mb", lambda: 1.0)
    file = type("Uploaded", (), {"name": "results.parquet", "getvalue": lambda self: _parquet(200_000)})()
    problem = leaderboard_results.take_upload([file])
    assert problem.startswith("results.parquet: 200,000 rows x 4 columns would take at least 6 MB in memory")


def test_the_score_page_refuses_the_same_parquet_texts_file(monkeypatch):
    from dashboard import scoring_run, state

    monkeypatch.setattr(state, "upload_limit_mb", lambda: 1.0)
    with pytest.raises(ValueError, match=r"^texts.parquet: 200,000 rows x 4 columns would take at least 6 MB"):
        scoring_run.read_uploaded_texts("texts.parquet", _parquet(200_000))
