"""Malformed CSV files found by a fuzzer: each gets one line in the project's words naming the file and the
physical line (as an editor counts lines), never pandas' tokenizer text or its line numbers, which skip blank
lines and a quoted cell's line breaks."""

from __future__ import annotations

from pathlib import Path

import pytest

from jecs_cli import main
from jecs_core.io import ScoreTableError, read_table_bytes

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "synthetic_k4.csv"


def _lines() -> list[str]:
    """Header, 35 calibration rows and 25 test rows of the sample table (header = line 1)."""
    every = SAMPLE.read_text().split("\n")
    return every[:36] + every[361:386]


def _cell(lines: list[str], index: int, column: int, value: str) -> None:
    fields = lines[index].split(",")
    fields[column] = value
    lines[index] = ",".join(fields)


def _select(path: Path, capsys) -> str:
    code = main(["select", str(path), "--out", str(path.parent / "out.csv")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and not (path.parent / "out.csv").exists()
    assert "ParserError" not in err and "C error" not in err
    return err.strip()


def _write(tmp_path: Path, lines: list[str], name: str = "s.csv", **kwargs) -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines), **kwargs)
    return path


def test_a_long_row_after_a_quoted_line_break_names_its_physical_line(tmp_path, capsys):
    lines = _lines()
    lines[1] = lines[1].replace("c0,", '"c0\nx",')  # line 2 now spans lines 2 and 3
    lines[50] += ",9"
    path = _write(tmp_path, lines)
    assert _select(path, capsys) == (f"jecs select: error: {path}: line 52 has 11 field(s), more than the header's 10; "
                                     "quote text that holds commas")


def test_a_long_row_is_worded_like_a_short_one_after_blank_lines(tmp_path):
    data = b"a,b\n1,2\n\n  \n3,4,5\n"
    with pytest.raises(ScoreTableError) as caught:
        read_table_bytes(data, "u.csv")
    assert str(caught.value) == "u.csv: line 5 has 3 field(s), more than the header's 2; quote text that holds commas"


def test_the_large_file_lanes_leave_a_long_row_to_the_reader_that_words_it(tmp_path, capsys, monkeypatch):
    import jecs_core._csv_chunks as chunks

    monkeypatch.setattr(chunks, "CHUNKED_FROM_BYTES", 0)  # the readers of files >= 16 MiB, on a small one
    lines = _lines()
    lines[1] = lines[1].replace("c0,", '"c0\nx",')
    lines[40] += ",9"
    path = _write(tmp_path, lines)
    assert chunks.read_clean_wide_csv(path, source=str(path)) is None
    assert _select(path, capsys) == (f"jecs select: error: {path}: line 42 has 11 field(s), more than the header's 10; "
                                     "quote text that holds commas")


def test_the_spreadsheet_row_counts_the_blank_lines_pandas_skips(tmp_path, capsys):
    lines = _lines()
    lines.insert(30, "")
    _cell(lines, 55, 3, "")  # physical line 56: the 54th data row
    path = _write(tmp_path, lines)
    assert _select(path, capsys) == (f"jecs select: error: {path}: column 'score_m1': missing score (empty or NaN) "
                                     "at row 54 (spreadsheet row 56)")


def test_after_a_quoted_line_break_the_editors_line_is_named_beside_the_spreadsheet_row(tmp_path, capsys):
    lines = _lines()
    lines[1] = lines[1].replace("c0,", '"c0\nx",')  # one spreadsheet row, two lines
    lines.insert(30, "")
    _cell(lines, 55, 3, "")
    _cell(lines, 58, 3, "")
    path = _write(tmp_path, lines)
    assert _select(path, capsys) == (f"jecs select: error: {path}: column 'score_m1': missing score (empty or NaN) "
                                     "at rows 54, 57 (spreadsheet rows 56, 59; lines 57, 60)")


def test_the_spreadsheet_row_of_an_upload_counts_blank_lines_too():
    from jecs_core.data import load_scores_bytes

    data = b"item_id,split,score_a\nc1,calibration,1\n\n\nc2,calibration,2\nt1,test,\nt2,test,3\n"
    with pytest.raises(ScoreTableError) as caught:
        load_scores_bytes(data, "up.csv")
    assert str(caught.value) == "up.csv: column 'score_a': missing score (empty or NaN) at row 3 (spreadsheet row 6)"


def test_an_unclosed_quote_names_the_line_it_opens_on(tmp_path, capsys):
    lines = _lines()
    lines[5] = '"' + lines[5]
    path = _write(tmp_path, lines)
    assert _select(path, capsys) == (f"jecs select: error: {path}: line 6 opens a quoted cell (\") that is never "
                                     "closed; close it, and write a quote inside a cell as two (\"\")")


@pytest.mark.parametrize(("data", "line"), [
    (b'a,b\n1,2\n"3,4', 3),  # no line end after it
    (b'a,b\r1,2\r"3,4\r5,6\r', 3),  # old Mac line ends
    (b'a,b\r\n1,2\r\n\r\n"3\r\n4",5\r\n"6,7\r\n', 6),  # after a blank line and a closed quoted line break
    (b'a,b\n1,2\n3,"x' + b"y" * 200_000 + b"\n4,5\n", 3),  # a cell past the csv module's size limit
])
def test_an_unclosed_quote_is_found_whatever_precedes_it(data, line):
    with pytest.raises(ScoreTableError) as caught:
        read_table_bytes(data, "u.csv")
    assert str(caught.value) == (f"u.csv: line {line} opens a quoted cell (\") that is never closed; close it, and "
                                 "write a quote inside a cell as two (\"\")")


def test_a_second_byte_order_mark_is_named_with_its_column(tmp_path, capsys):
    path = tmp_path / "s.csv"
    path.write_text("\ufeff" + "\n".join(_lines()), encoding="utf-8-sig")
    assert _select(path, capsys) == (f"jecs select: error: {path}: column 1 ('item_id') starts with a stray byte-order "
                                     "mark (U+FEFF, an invisible character); delete that character from the header line")


def test_excels_separator_line_is_named(tmp_path, capsys):
    path = _write(tmp_path, ["sep=,", *_lines()])
    assert _select(path, capsys) == (f"jecs select: error: {path}: line 1 ('sep=,') is Excel's separator hint, not "
                                     "the header; delete that line, so that the header (item_id, split, "
                                     "score_<model>, ...) is the first line")


@pytest.mark.parametrize("text", ["", "   \n\n", "\n", "\t\r\n \r\n"])
def test_a_file_of_white_space_only_is_empty(tmp_path, capsys, text):
    path = tmp_path / "s.csv"
    path.write_bytes(text.encode())
    assert _select(path, capsys) == f"jecs select: error: {path}: the file is empty"
