"""A table file named for one format but holding another, or holding a results table: named for what it is."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from jecs_core import load_scores_bytes
from jecs_core.io import ScoreTableError, read_table, read_table_bytes


def _kinds(tmp_path):
    import gzip
    import pickle

    csv_bytes_ = b"item_id,split,score_a\nc1,calibration,1\nt1,test,2\n"
    parquet = tmp_path / "p.parquet"
    pd.read_csv(io.BytesIO(csv_bytes_)).to_parquet(parquet)
    return {"csv": csv_bytes_, "parquet": parquet.read_bytes(), "pickle": pickle.dumps({"a": 1}),
            "gzip": gzip.compress(csv_bytes_), "zip": _zipped(csv_bytes_)}


def _zipped(data: bytes) -> bytes:
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:  # an .xlsx is one of these
        archive.writestr("xl/worksheets/sheet1.xml", data * 20)
    return buffer.getvalue()


@pytest.mark.parametrize(("kind", "name", "hint"), [
    ("parquet", "t.csv", "not UTF-8 text; it is a Parquet file (it starts with PAR1): name it .parquet"),
    ("csv", "t.parquet", "; it looks like CSV text: name it .csv"),
    ("pickle", "t.parquet", "; it looks like a Python pickle, which is never read: save the table as CSV or Parquet"),
    ("gzip", "t.csv", "not UTF-8 text; it is gzip-compressed: decompress it first"),
    ("zip", "t.csv", "not UTF-8 text; it is a zip archive (an Excel .xlsx is one): export the sheet as CSV UTF-8"),
])
def test_a_file_whose_content_is_not_what_its_name_says_is_named_for_what_it_is(tmp_path, kind, name, hint):
    data = _kinds(tmp_path)[kind]
    path = tmp_path / name
    path.write_bytes(data)
    for read in (lambda: read_table(path), lambda: read_table_bytes(data, name)):
        with pytest.raises(ScoreTableError) as caught:
            read()
        message = str(caught.value)
        assert message.startswith(f"{name}: ") or message.startswith(f"{path}: ")
        assert message.endswith(hint) and "\n" not in message



def test_a_csv_in_another_encoding_is_told_to_save_as_utf8_not_renamed(tmp_path):
    # Plain ASCII header, a Latin-1 byte further on: the name is right, the encoding is not.
    path = tmp_path / "lat1.csv"
    path.write_bytes(b"item_id,split,score_model_alpha,score_model_beta,notes\n1,calibration,0.1,0.2,caf\xe9\n")
    with pytest.raises(ScoreTableError) as caught:
        read_table(path)
    assert str(caught.value).startswith(f"{path}: not UTF-8 text; save it as CSV UTF-8")
    assert "name it .csv" not in str(caught.value)


@pytest.mark.parametrize(("content", "hinted"), [
    (b"item_id,model,correct\n1,a,1\n", True),  # lm-eval style per-item results
    (b"item_id,acc_m1,acc_m2\n1,1,0\n", True),  # a wide results table
    (b"item_id,score_a\n1,1\n", False),  # a score table that lost its split: no results hint
    (b"item_id,model,score\n1,a,0.5\n", False),  # a long score table without split
])
def test_a_results_table_read_as_scores_is_pointed_to_the_leaderboard(content, hinted):
    with pytest.raises(ScoreTableError) as caught:
        load_scores_bytes(content, "r.csv")
    message = str(caught.value)
    assert message.startswith("r.csv: missing required column 'split'")
    assert ("this looks like per-item results (ids and a metric), which the leaderboard reads" in message) == hinted
