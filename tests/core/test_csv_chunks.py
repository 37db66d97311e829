"""A large clean CSV is read a chunk at a time; the table (or the error) must be the whole-file path's."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jecs_core import ScoreTableError, load_scores
from jecs_core import _csv_arrow as arrow_lane
from jecs_core import _csv_chunks as chunks

FIELDS = ("models", "calibration", "test", "calibration_ids", "test_ids", "test_members", "covariates",
          "calibration_covariates", "covariate_names", "flipped", "source", "source_sha256")


def _load(path, monkeypatch, *, chunked: bool, rows: int = 3, block_bytes: int = 64, lanes: list | None = None,
          **options):
    """``load_scores`` through one path; returns (table or None, error text or None, whether chunks were read).

    ``lanes`` (a list) receives whether Arrow's lane read the table; ``block_bytes`` is its parse unit."""
    taken, arrow = [], [] if lanes is None else lanes
    real, real_arrow = chunks.read_clean_wide_csv, chunks.read_plain_wide_csv

    def spy(*args, **kwargs):
        fields = real(*args, **kwargs)
        taken.append(fields is not None)
        return fields

    def spy_arrow(*args, **kwargs):
        fields = real_arrow(*args, **kwargs)
        arrow.append(fields is not None)
        return fields

    with monkeypatch.context() as patch:
        patch.setattr(chunks, "CHUNKED_FROM_BYTES", 0 if chunked else 10**18)
        patch.setattr(chunks, "CHUNK_ROWS", rows)
        patch.setattr(arrow_lane, "BLOCK_BYTES", block_bytes)
        patch.setattr(chunks, "read_plain_wide_csv", spy_arrow)
        patch.setattr("jecs_core.data.read_clean_wide_csv", spy)
        try:
            return load_scores(path, **options), None, taken[0]
        except ScoreTableError as exc:
            return None, str(exc), taken[0]


def assert_same_table(a, b):
    for name in FIELDS:
        x, y = getattr(a, name), getattr(b, name)
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and x.shape == y.shape, name
            np.testing.assert_array_equal(x, y, err_msg=name)
            assert np.array_equal(np.signbit(x), np.signbit(y)) if x.dtype.kind == "f" else True, name
        else:
            assert x == y, name
    pd.testing.assert_frame_equal(a.test_extra, b.test_extra)
    pd.testing.assert_frame_equal(a.calibration_extra, b.calibration_extra)


def _both(path, monkeypatch, *, block_bytes: int = 64, lanes: list | None = None, **options):
    """Both reads of ``path``: the table (or error) must be the same; returns the chunked read's (taken, error)."""
    whole, whole_error, whole_taken = _load(path, monkeypatch, chunked=False, **options)
    chunked, chunked_error, chunked_taken = _load(path, monkeypatch, chunked=True, block_bytes=block_bytes, lanes=lanes,
                                                  **options)
    assert not whole_taken
    assert whole_error == chunked_error
    if whole is not None:
        assert_same_table(chunked, whole)
    return chunked_taken, chunked_error


CLEAN = {
    "calibration first": "item_id,split,score_a,score_b\nc1,calibration,1,2.5\nc2,calibration,0.5,-0.0\nc3,calibration,3,4\n"
                         "t1,test,0.25,1e-7\nt2,test,7,8\nt3,test,-1,1e300\nt4,test,2,2\n",
    "interleaved splits, labels and text": "item_id,split,score_a,member_a,text\nt1,test,1.5,0,\"a, b\"\nc1,calibration,2,,x\n"
                                           "t2,test,0.1,1,\"multi\nline\"\nc2, Calibration ,3,1,NA\nt3,TEST,5,0,\nc3,calibration,4,,y\n",
    "covariates and an NA id": "item_id,split,score_a,x_len,x_lang,note\nNA,calibration,1,10,1,n\nnull,calibration,2,11,2,\n"
                               "c3,calibration,3,12.5,1,m\nt1,test,4,13,2,k\nt2,test,5,14,1,\nt3,test,6,15,2,z\n",
    "boolean labels": "item_id,split,score_a,member_a\nc1,calibration,1,True\nc2,calibration,2,True\nt1,test,3,False\n"
                      "t2,test,4,True\nt3,test,5,False\n",
    "ids with spaces, quotes and digits": 'item_id,split,score_a\n c1 ,calibration,1\n007,calibration,2\n"say ""hi""",calibration,3\n'
                                          "t 1,test,4\n1e3,test,5\n 0042,test,6\n",
    "a byte-order mark": "\ufeffitem_id,split,score_a\nc1,calibration,1\nc2,calibration,2\nt1,test,3\nt2,test,4\n",
    "a carried column of numbers, then text": "item_id,split,score_a,note\nc1,calibration,1,1\nc2,calibration,2,007\n"
                                              "t1,test,3,3.10\nt2,test,4,four\nt3,test,5,NA\nt4,test,6,\n",
}

REFUSED = {
    "a missing score in a later chunk": "item_id,split,score_a\nc1,calibration,1\nc2,calibration,2\nt1,test,3\nt2,test,\nt3,test,1\n",
    "an unknown split word": "item_id,split,score_a\nc1,calibration,1\nc2,calibration,2\nt1,test,3\nt2,tset,4\n",
    "an id repeated across chunks": "item_id,split,score_a\nc1,calibration,1\nc2,calibration,2\nt1,test,3\nt2,test,4\nc1,test,5\n",
    "text in a score column": "item_id,split,score_a\nc1,calibration,1\nc2,calibration,2\nt1,test,3\nt2,test,4\nt3,test,high\n",
    "a label of 2": "item_id,split,score_a,member_a\nc1,calibration,1,1\nc2,calibration,2,1\nt1,test,3,0\nt2,test,4,2\n",
    "no test rows": "item_id,split,score_a\nc1,calibration,1\nc2,calibration,2\nc3,calibration,3\nc4,calibration,4\n",
    "no calibration rows": "item_id,split,score_a\nt1,test,1\nt2,test,2\nt3,test,3\nt4,test,4\n",
    "a row longer than the header": "item_id,split,score_a\nc1,calibration,1\nc2,calibration,2\nt1,test,3\nt2,test,4,9\n",
    "an empty id": "item_id,split,score_a\nc1,calibration,1\nc2,calibration,2\nt1,test,3\n,test,4\n",
    "an infinite score": "item_id,split,score_a\nc1,calibration,1\nc2,calibration,2\nt1,test,3\nt2,test,inf\n",
    "a reserved column": "item_id,split,score_a,selected\nc1,calibration,1,0\nt1,test,2,1\n",
    "a long table": "item_id,split,model,score\nc1,calibration,a,1\nc2,calibration,a,2\nt1,test,a,3\nt2,test,a,4\n",
    "a covariate typed differently in a later chunk": "item_id,split,score_a,x_note\nc1,calibration,1,1\nc2,calibration,2,2\n"
                                                      "t1,test,3,3\nt2,test,4,four\nt3,test,5,5\n",
    "a semicolon-separated file": "item_id;split;score_a\nc1;calibration;1\nt1;test;2\n",
}


# Usable tables the chunked path leaves to the whole-file read.
READ_WHOLE_WITHOUT_PROBLEM = {"a long table"}


@pytest.mark.parametrize("name", sorted(CLEAN))
@pytest.mark.parametrize("lower_is_member", [False, True])
def test_a_clean_table_is_read_in_chunks_and_equals_the_whole_file_read(name, lower_is_member, tmp_path, monkeypatch):
    path = tmp_path / "scores.csv"
    path.write_text(CLEAN[name], encoding="utf-8")
    taken, error = _both(path, monkeypatch, lower_is_member=lower_is_member)
    assert taken and error is None


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_table_with_a_problem_goes_to_the_whole_file_read_and_its_message(name, tmp_path, monkeypatch):
    path = tmp_path / "scores.csv"
    path.write_text(REFUSED[name], encoding="utf-8")
    taken, error = _both(path, monkeypatch)
    assert not taken
    assert (error is None) == (name in READ_WHOLE_WITHOUT_PROBLEM)


def test_blocks_grow_past_a_low_row_estimate(tmp_path, monkeypatch):
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"item_id": [f"i{j}" for j in range(500)], "split": ["calibration"] * 200 + ["test"] * 300,
                          "score_a": rng.standard_normal(500), "score_b": rng.standard_normal(500),
                          "member_a": np.where(np.arange(500) < 200, 1, rng.integers(0, 2, 500)),
                          "member_b": np.where(np.arange(500) < 200, 1, rng.integers(0, 2, 500))})
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    monkeypatch.setattr(chunks, "_estimated_rows", lambda path: 7)
    taken, error = _both(path, monkeypatch)
    assert taken and error is None


def test_the_size_threshold_keeps_small_files_on_the_whole_file_read(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text(CLEAN["calibration first"], encoding="utf-8")
    assert path.stat().st_size < chunks.CHUNKED_FROM_BYTES
    assert chunks.read_clean_wide_csv(path, source=str(path)) is None
    assert chunks.read_clean_wide_csv(tmp_path / "missing.csv", source="missing.csv") is None


cells = st.one_of(st.integers(-10**6, 10**6).map(str), st.floats(allow_nan=False, allow_infinity=False).map(repr),
                  st.sampled_from(["1e-300", "-0.0", "0", "3.0", "1E5"]))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(st.sampled_from(["calibration", "test", "Test "]), cells, cells,
                               st.sampled_from(["0", "1"]), st.sampled_from(["", "x", "a,b", "NA", "7"])),
                     min_size=2, max_size=30),
       chunk_rows=st.integers(1, 8), lower_is_member=st.booleans(), text_notes=st.booleans())
def test_any_table_reads_the_same_through_either_path(rows, chunk_rows, lower_is_member, text_notes, tmp_path,
                                                       monkeypatch):
    lines = ["item_id,split,score_a,score_b,member_a,member_b,note"]
    for j, (split, a, b, label, note) in enumerate(rows):
        note = f"n{j}" if text_notes else note  # text in every block: the note column's type never changes
        note = f'"{note}"' if "," in note else note
        lines.append(f"id{j},{split},{a},{b},{label},{label},{note}")
    path = tmp_path / "scores.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    whole, whole_error, _ = _load(path, monkeypatch, chunked=False, lower_is_member=lower_is_member)
    chunked, chunked_error, taken = _load(path, monkeypatch, chunked=True, rows=chunk_rows, lower_is_member=lower_is_member)
    assert chunked_error == whole_error
    if whole is not None:
        assert_same_table(chunked, whole)
        assert taken or not text_notes  # a usable table whose columns keep their types is read in chunks


# Arrow's lane takes only files both parsers read alike; the rest go to the pandas lane (or the whole-file read).
ARROW_LANE = {
    "scores, labels, padded split words": ("item_id,split,score_a,score_b,member_a,member_b\nc1, Calibration ,1,2.5,,1\n"
                                           "c2,calibration,0.5,1E5,1,\nt1,TEST,0.25,1e-7,0,1\nt2,test,7,+1,01,1\n", True),
    "a 0 label on a calibration row": ("item_id,split,score_a,member_a\nc1,calibration,1,0\nc2,calibration,2,1\n"
                                       "t1,test,3,1\nt2,test,4,0\n", False),
    "text labels on calibration rows": ("item_id,split,score_a,member_a\nc1,calibration,1,x\nc2,calibration,2,2.5\n"
                                        "t1,test,3,1\nt2,test,4,0\n", False),
    "a missing label on a test row": ("item_id,split,score_a,member_a\nc1,calibration,1,\nc2,calibration,2,\nt1,test,3,\n"
                                      "t2,test,4,0\n", False),
    "a label of 2 on a test row": ("item_id,split,score_a,member_a\nc1,calibration,1,\nc2,calibration,2,\nt1,test,3,2\n"
                                   "t2,test,4,0\n", False),
    "a non-ASCII id and a BOM": ("\ufeffitem_id,split,score_a\né,calibration,1\nc2,calibration,2\nt1,test,3\nt2,test,4\n", True),
    # Beyond 2^53 pandas may type a column as integers, which the contract refuses where a float64 would round them.
    "integers past 2^64": ("item_id,split,score_a\nc1,calibration,123456789012345678901234567\nc2,calibration,2\n"
                           "t1,test,-98765432109876543210\nt2,test,4\n", False),
    "integers past 2^53": ("item_id,split,score_a\nc1,calibration,9007199254740993\nc2,calibration,2\n"
                           "t1,test,3\nt2,test,4\n", False),
    "CRLF line ends": ("item_id,split,score_a\r\nc1,calibration,1\r\nc2,calibration,2\r\nt1,test,3\r\nt2,test,4\r\n", True),
    "CR line ends": ("item_id,split,score_a\rc1,calibration,1\rc2,calibration,2\rt1,test,3\rt2,test,4\r", True),
    "blank lines and no final line end": ("item_id,split,score_a\nc1,calibration,1\n\nc2,calibration,2\nt1,test,3\n\nt2,test,4", True),
    "a negative zero": ("item_id,split,score_a\nc1,calibration,-0\nc2,calibration,2\nt1,test,3\nt2,test,4\n", False),
    "a quoted id": ('item_id,split,score_a\n"c,1",calibration,1\nc2,calibration,2\nt1,test,3\nt2,test,4\n', False),
    "a quoted id without a comma": ('item_id,split,score_a\n"c1",calibration,1\nc2,calibration,2\nt1,test,3\nt2,test,4\n', False),
    "a NUL byte in an id": ("item_id,split,score_a\nc\0,calibration,1\nc2,calibration,2\nt1,test,3\nt2,test,4\n", False),
    "scores padded with spaces and tabs": ("item_id,split,score_a\nc1,calibration, 1.5\nc2,calibration,2 \nt1,test,\t3\n"
                                           "t2,test,4\n", True),
    "a score padded with a vertical tab": ("item_id,split,score_a\nc1,calibration,\v1.5\nc2,calibration,2\nt1,test,3\n"
                                           "t2,test,4\n", False),
    "a label written 1.0": ("item_id,split,score_a,member_a\nc1,calibration,1,\nc2,calibration,2,\nt1,test,3,1.0\n"
                            "t2,test,4,0\n", False),
    "a blank non-ASCII id": ("item_id,split,score_a\n\u3000,calibration,1\nc2,calibration,2\nt1,test,3\nt2,test,4\n", False),
    "a covariate": ("item_id,split,score_a,x_len\nc1,calibration,1,3\nc2,calibration,2,4\nt1,test,3,5\nt2,test,4,6\n", False),
    "columns in another order": ("split,item_id,score_a\ncalibration,c1,1\ncalibration,c2,2\ntest,t1,3\ntest,t2,4\n", False),
    "a short row": ("item_id,split,score_a,member_a\nc1,calibration,1\nc2,calibration,2,\nt1,test,3,1\nt2,test,4,0\n", False),
}


@pytest.mark.parametrize("name", sorted(ARROW_LANE))
@pytest.mark.parametrize("block_bytes", [64, 2**20])
def test_arrow_lane_reads_only_what_both_parsers_read_alike(name, block_bytes, tmp_path, monkeypatch):
    text, by_arrow = ARROW_LANE[name]
    path = tmp_path / "scores.csv"
    path.write_bytes(text.encode("utf-8"))
    lanes = []
    _both(path, monkeypatch, block_bytes=block_bytes, lanes=lanes)
    assert lanes == [by_arrow]


plain_ids = st.text(st.characters(blacklist_characters='",\r\n\0', blacklist_categories=("Cs",)), max_size=8)
plain_cells = st.one_of(st.integers(-10**25, 10**25).map(str),
                        st.floats(allow_nan=False, allow_infinity=False).map(lambda v: repr(v + 0.0)),
                        st.sampled_from(["1e-300", "4.9e-324", "3.0", "1E5", "+2.5", ".5", "7.", " 1.5", "2 ", "\t3"]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(plain_ids, st.sampled_from(["calibration", "test", " Test", "CALIBRATION "]), plain_cells,
                               plain_cells, st.sampled_from(["0", "1", " 1", "01"]), st.sampled_from(["", "0", "1", "7"])),
                     min_size=2, max_size=40),
       block_bytes=st.sampled_from([256, 1024, 2**20]), estimate=st.sampled_from([1, 7, 10**4]), lower_is_member=st.booleans())
def test_arrow_lane_equals_the_whole_file_read(rows, block_bytes, estimate, lower_is_member, tmp_path, monkeypatch):
    lines = ["item_id,split,score_a,score_b,member_a,member_b"]
    for j, (name, split, a, b, label, cal_label) in enumerate(rows):
        label = cal_label if split.strip().lower() == "calibration" else label  # a member's label: 1 or empty only
        lines.append(f"{j}:{name},{split},{a},{b},{label},{label}")
    path = tmp_path / "scores.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.setattr(chunks, "_estimated_rows", lambda path: estimate)
    lanes = []
    _both(path, monkeypatch, block_bytes=block_bytes, lanes=lanes, lower_is_member=lower_is_member)
    splits = {split.strip().lower() for _, split, *_ in rows}
    members = all(cal in ("", "1") for _, split, *_, cal in rows if split.strip().lower() == "calibration")
    exact = all(abs(float(cell)) < 2**53 for _, _, a, b, *_ in rows for cell in (a, b))  # else pandas may type integers
    assert lanes == [splits == {"calibration", "test"} and members and exact]  # every other usable table is Arrow's


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ids=st.lists(st.sampled_from(["a", "b", "ab", "ba", "t1", "t10", "\u00e9", "1"]), min_size=4, max_size=30),
       block_bytes=st.sampled_from([32, 2**20]))
def test_arrow_lane_takes_a_file_exactly_when_its_ids_are_distinct_in_any_block(ids, block_bytes, tmp_path, monkeypatch):
    monkeypatch.setattr(arrow_lane, "BLOCK_BYTES", block_bytes)
    lines = ["item_id,split,score_a"] + [f"{name},{'calibration' if j % 2 else 'test'},{j}" for j, name in enumerate(ids)]
    path = tmp_path / "scores.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    if len(set(ids)) < len(ids):
        with pytest.raises(arrow_lane.Breach):
            arrow_lane.read_plain_wide_csv(path, ["item_id", "split", "score_a"], capacity=2, lower_is_member=False)
        return
    read = arrow_lane.read_plain_wide_csv(path, ["item_id", "split", "score_a"], capacity=2, lower_is_member=False)
    assert sorted([*read["calibration_ids"], *read["test_ids"]]) == sorted(ids)
