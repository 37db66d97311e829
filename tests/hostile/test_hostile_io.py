"""jecs_core.io: the one reader / writer: exact headers, one-line errors, atomic and spreadsheet-safe writes."""

from __future__ import annotations

import io
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jecs_core.all_scores import pivot_scores
from jecs_core.io import (
    ScoreTableError,
    file_sha256,
    parse_name_path,
    read_table,
    read_table_bytes,
    spreadsheet_safe,
    write_files_atomic,
    write_table,
)


def test_duplicate_csv_header_is_refused_not_renamed(tmp_path):
    path = tmp_path / "dup.csv"
    path.write_text("item_id,split,score_m1,score_m1\na,test,1,2\n")
    with pytest.raises(ScoreTableError) as info:
        read_table(path)
    assert str(info.value) == f"{path}: column 'score_m1' appears twice (columns 3 and 4); column names must be unique"


def test_second_item_id_column_is_refused(tmp_path):
    data = b"item_id,split,item_id,score_a\na,test,b,1\n"
    with pytest.raises(ScoreTableError, match=r"^up.csv: column 'item_id' appears twice \(columns 1 and 3\)"):
        read_table_bytes(data, "up.csv")


def test_empty_header_is_refused(tmp_path):
    with pytest.raises(ScoreTableError, match=r"^u.csv: column 2 has an empty header; name every column$"):
        read_table_bytes(b"item_id,,score_a\na,test,1\n", "u.csv")


def test_row_longer_than_header_is_an_error_not_an_index(tmp_path):
    with pytest.raises(ScoreTableError, match=r"^u.csv: line 2 has 3 field\(s\), more than the header's 2; quote text that holds commas$"):
        read_table_bytes(b"item_id,split\n1,test,3\n", "u.csv")
    # A comment line above the header: the header is one field wide, and the error names the line.
    path = tmp_path / "c.csv"
    path.write_text('# exported 2026-01-01\nitem_id,split,score_a\n"a,b",test,1\n')
    with pytest.raises(ScoreTableError, match=r"^.*c.csv: line 2 has 3 field\(s\), more than the header's 1; quote text"):
        read_table(path)


@pytest.mark.parametrize(("data", "message"), [
    (b"\n", r"the file is empty$"),
    (b"\r\n\r\n", r"the file is empty$"),
    (b"\n\nitem_id\n", r"line 1 is blank; the header .* must be the first line"),
    (b"\nitem_id,split,score_a\nt1,test,1\n", r"line 1 is blank"),
    (b"item_id|split|score_a\nt1|test|1\n", r"looks pipe-separated"),
    (b"item_id\tsplit\tscore_a\nt1\ttest\t1\n", r"looks tab-separated"),
])
def test_a_blank_first_line_or_another_separator_is_named(data, message, tmp_path):
    # Named as it is: no blank line reads as "semicolon-separated", and the file and the upload say the same.
    with pytest.raises(ScoreTableError, match=rf"^u.csv: {message}") as caught:
        read_table_bytes(data, "u.csv")
    assert "semicolon" not in str(caught.value)
    (tmp_path / "u.csv").write_bytes(data)
    with pytest.raises(ScoreTableError, match=message):
        read_table(tmp_path / "u.csv")


def test_na_like_ids_stay_ids_and_bom_is_stripped():
    frame = read_table_bytes("\ufeffitem_id,split,score_a\nNA,test,1\nnull,calibration,NA\n".encode(), "u.csv")
    assert list(frame.columns) == ["item_id", "split", "score_a"]
    assert list(frame["item_id"]) == ["NA", "null"]
    assert frame["score_a"].isna().tolist() == [False, True]


def test_duplicate_parquet_columns_are_refused(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "d.parquet"
    pq.write_table(pa.table([pa.array([1.0]), pa.array([2.0])], names=["score_a", "score_a"]), path)
    with pytest.raises(ScoreTableError, match=r"column 'score_a' appears twice"):
        read_table(path)


def test_named_parquet_index_comes_back_as_a_column(tmp_path):
    frame = pd.DataFrame({"score_a": [1.0, 2.0]}, index=pd.Index(["x", "y"], name="item_id"))
    frame.to_parquet(tmp_path / "q.parquet")
    back = read_table(tmp_path / "q.parquet")
    assert list(back.columns) == ["item_id", "score_a"] and list(back["item_id"]) == ["x", "y"]
    assert read_table_bytes((tmp_path / "q.parquet").read_bytes(), "q.parquet").equals(back)


@pytest.mark.parametrize(
    "name, data, message",
    [
        ("x.pkl", b"\x80\x04", "x.pkl: unsupported file type '.pkl', expected .csv or .parquet"),
        ("x.csv", b"", "x.csv: the file is empty"),
        ("x.parquet", b"not parquet", "x.parquet: could not be read as Parquet"),
        ("x.csv", b"\xff\xfe\x00bad", "x.csv: not UTF-8 text; save it as CSV UTF-8"),
    ],
)
def test_unreadable_bytes_give_one_line(name, data, message):
    with pytest.raises(ScoreTableError) as info:
        read_table_bytes(data, name)
    assert str(info.value).startswith(message) and "\n" not in str(info.value)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(ScoreTableError, match="nope.csv: file not found"):
        read_table(tmp_path / "nope.csv")
    with pytest.raises(ScoreTableError, match="is a directory"):
        read_table(tmp_path)


def test_spreadsheet_safe_neutralises_formula_cells_only():
    frame = pd.DataFrame(
        {
            "item_id": ["=HYPERLINK(\"http://x\",\"y\")", "+1+2", "-3", "@SUM(A1)", "\tcmd", "\rcmd", "plain", "-1+2"],
            "score": [-1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
        }
    )
    frame["=head"] = 1
    safe = spreadsheet_safe(frame)
    assert list(safe["item_id"]) == [
        "'=HYPERLINK(\"http://x\",\"y\")", "'+1+2", "-3", "'@SUM(A1)", "'\tcmd", "'\rcmd", "plain", "'-1+2"
    ]
    assert safe["score"].tolist() == frame["score"].tolist() and safe["score"].dtype == frame["score"].dtype
    assert list(safe.columns) == ["item_id", "score", "'=head"]
    assert frame["item_id"].iloc[0].startswith("=")  # the input is not modified


def test_a_cell_already_quoted_gets_one_more_quote_so_no_two_cells_read_the_same():
    frame = pd.DataFrame({"item_id": ["=1", "'=1", "@x", "'@x", "''", "'plain", "-nan", "+inf", "-1_000", "-\u0661"]})
    frame["'=col"] = 1
    frame["=col"] = 2
    safe = spreadsheet_safe(frame)
    assert list(safe["item_id"]) == ["'=1", "''=1", "'@x", "''@x", "'''", "''plain", "'-nan", "'+inf", "'-1_000",
                                     "'-\u0661"]  # only ASCII digits make a plain number
    assert list(safe.columns) == ["item_id", "''=col", "'=col"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="'=+-@\t\r1.e_an x", max_size=6), min_size=1, max_size=12, unique=True))
def test_dropping_one_leading_quote_gives_every_cell_back(cells):
    # The quoting is one-to-one: distinct cells stay distinct, and a reader can undo it.
    safe = list(spreadsheet_safe(pd.DataFrame({"c": cells}))["c"])
    assert len(set(safe)) == len(cells)
    assert [v[1:] if v.startswith("'") else v for v in safe] == cells
    for v in safe:  # what a spreadsheet would run is only ever a plain number
        assert not v.startswith(("=", "+", "-", "@", "\t", "\r")) or re.fullmatch(r"[+-](\d+\.?\d*|\.\d+)(e[+-]?\d+)?", v)


def test_write_table_is_safe_by_default_and_raw_on_request(tmp_path):
    frame = pd.DataFrame({"item_id": ["=1+1", "a"], "v": [1, 2]})
    write_table(frame, tmp_path / "s.csv")
    assert (tmp_path / "s.csv").read_text() == "item_id,v\n'=1+1,1\na,2\n"
    write_table(frame, tmp_path / "r.csv", spreadsheet_safe=False)
    assert (tmp_path / "r.csv").read_text() == "item_id,v\n=1+1,1\na,2\n"
    write_table(frame, tmp_path / "r.parquet")
    assert pd.read_parquet(tmp_path / "r.parquet").equals(frame)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv", "r.parquet", "s.csv"]


@pytest.mark.parametrize("name, message", [("r.xlsx", "must end in .csv or .parquet"), ("sub", "must end in")])
def test_write_table_refuses_bad_paths(tmp_path, name, message):
    with pytest.raises(ValueError, match=message):
        write_table(pd.DataFrame({"a": [1]}), tmp_path / name)


def test_write_table_refuses_directory_and_input(tmp_path):
    (tmp_path / "d.csv").mkdir()
    with pytest.raises(ValueError, match=r"d.csv is a directory"):
        write_table(pd.DataFrame({"a": [1]}), tmp_path / "d.csv")
    src = tmp_path / "in.csv"
    src.write_text("a\n1\n")
    link = tmp_path / "link.csv"
    link.symlink_to(src)
    with pytest.raises(ValueError, match=r"is the input file"):
        write_table(pd.DataFrame({"a": [2]}), link, inputs=[src])
    assert src.read_text() == "a\n1\n"


def test_write_files_atomic_both_or_neither(tmp_path):
    def boom(path):
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        write_files_atomic({tmp_path / "a.csv": lambda p: p.write_text("x"), tmp_path / "a.json": boom})
    assert list(tmp_path.iterdir()) == []
    write_files_atomic({tmp_path / "a.csv": lambda p: p.write_text("x"), tmp_path / "a.json": lambda p: p.write_text("{}")})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv", "a.json"]


def test_file_sha256(tmp_path):
    import hashlib

    (tmp_path / "f").write_bytes(b"abc" * 1000)
    assert file_sha256(tmp_path / "f") == hashlib.sha256(b"abc" * 1000).hexdigest()


@pytest.mark.parametrize("spec, parsed", [("a=b", ("a", "b")), (" a = dir/x=y ", ("a", "dir/x=y"))])
def test_parse_name_path(spec, parsed):
    assert parse_name_path(spec) == parsed


@pytest.mark.parametrize("spec", ["ab", "=b", "a=", " = "])
def test_parse_name_path_errors(spec):
    with pytest.raises(ValueError, match=r"^--model: expected NAME=PATH, got"):
        parse_name_path(spec, what="--model")


def test_pivot_scores_matches_a_loop():
    long = pd.DataFrame(
        {"item_id": ["a", "a", "b", "b", "a"], "model": ["m", "n", "m", "n", "m"], "score_name": ["s", "s", "s", "s", "t"],
         "value": [1.0, 2.0, 3.0, 4.0, 9.0]}
    )
    wide = pivot_scores(long, "s", item_ids=["b", "a", "c"])
    assert list(wide.columns) == ["score_m", "score_n"]
    assert wide["score_m"].tolist()[:2] == [3.0, 1.0] and wide["score_n"].tolist()[:2] == [4.0, 2.0]
    assert wide.iloc[2].isna().all()
    assert pivot_scores(long, "t")["score_m"].tolist() == [9.0] and pivot_scores(long, "t", models=["n"]).isna().all().all()
    with pytest.raises(ValueError, match="no rows with score_name 'u'"):
        pivot_scores(long, "u")


def test_csv_bytes_equal_the_written_file(tmp_path):
    from jecs_core.io import csv_bytes

    frame = pd.DataFrame({"item_id": ["=1+1", "a,b", "c"], "v": [1.5, float("nan"), -0.0], "n": [1, 2, 3]})
    write_table(frame, tmp_path / "s.csv")
    assert csv_bytes(frame) == (tmp_path / "s.csv").read_bytes()
    assert csv_bytes(frame, spreadsheet_safe=False) == frame.to_csv(index=False).encode()
    assert csv_bytes(frame[["n"]]) == b"n\n1\n2\n3\n"


@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_integer_scores_beyond_2_53_are_refused_not_rounded(kind, tmp_path):
    from jecs_core import load_scores

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"item_id": [f"i{k}" for k in range(60)], "split": ["calibration"] * 30 + ["test"] * 30,
                          "score_a": rng.normal(size=60), "score_b": (2**62 + np.arange(60)).astype("int64")})
    path = tmp_path / f"t.{kind}"
    frame.to_parquet(path) if kind == "parquet" else frame.to_csv(path, index=False)
    # 2^62 + 1 and 2^62 + 2 are one float64: read as floats, the 60 distinct scores would collapse to a few.
    with pytest.raises(ScoreTableError, match=r"column 'score_b': integer score 4611686018427387905 at rows 2, "
                                              r".* is beyond 2\^53 and would be rounded"):
        load_scores(path)
    frame["score_b"] = (2**53 + 2 * np.arange(60)).astype("int64")  # even, so each is a float64 exactly
    frame.to_parquet(path) if kind == "parquet" else frame.to_csv(path, index=False)
    table = load_scores(path)
    assert len(np.unique(table.test[:, 1])) == 30


@pytest.mark.parametrize(("text", "line", "found"), [
    # A text cell left off: without the check it would read as an empty text.
    ("item_id,split,score_a,text\nc1,calibration,1,x\nc2,calibration,2,y\nt1,test,3\nt2,test,4,z\n", 4, 3),
    # A calibration label left off, after a blank line (pandas skips it; the line count does not).
    ("item_id,split,score_a,member_a\nc1,calibration,1,1\n\nc2,calibration,2\nt1,test,3,0\n", 4, 3),
    # An unquoted line break inside a text: the rest of the text becomes a row of one field.
    ("item_id,split,score_a,text\nc1,calibration,1,two\nlines\nt1,test,3,z\n", 3, 1),
])
def test_a_row_with_fewer_fields_than_the_header_is_named(text, line, found, tmp_path):
    from jecs_core import load_scores

    message = rf"line {line} has {found} field\(s\), fewer than the header's 4; its last cells would be read as empty"
    with pytest.raises(ScoreTableError, match=message):
        read_table_bytes(text.encode(), "u.csv")
    (tmp_path / "u.csv").write_text(text)
    with pytest.raises(ScoreTableError, match=message):
        load_scores(tmp_path / "u.csv")


def test_empty_last_cells_written_as_such_still_read(tmp_path):
    # Every field present (trailing commas, a quoted line break): empty is a value here, not a lost field.
    text = ('item_id,split,score_a,member_a,text\nc1,calibration,1,,\nc2,calibration,2,1,"a\nb"\n'
            "t1,test,3,0,\nt2,test,4,1,z\n")
    frame = read_table_bytes(text.encode(), "u.csv", text_columns=("item_id", "text"))
    assert frame["text"].tolist() == ["", "a\nb", "", "z"] and frame["member_a"].isna().tolist() == [True, False, False, False]


def test_the_row_scans_leave_the_callers_buffer_open():
    # An upload's bytes are read again after the scan (a column of mixed types): the scan must not close them.

    from jecs_core._csv_rows import long_row_problem, parse_problem, short_row

    text = b"item_id,split,score_a,note\nc1,calibration,1,1\nc2,calibration,2,two\nt1,test,3\nt2,test,4,5,6\n"
    buffer = io.BytesIO(text)
    assert short_row(buffer, 4) == (4, 3)
    assert long_row_problem("u.csv", buffer, 4) == "u.csv: line 5 has 5 field(s), more than the header's 4; quote text that holds commas"
    assert parse_problem("u.csv", buffer, 4, "") == long_row_problem("u.csv", buffer, 4)
    assert not buffer.closed and buffer.getvalue() == text
    assert short_row(io.BytesIO(b"a,b\n1,2\n\n \n3,4\n"), 2) is None  # blank lines are not rows

