"""Arrow's CSV lane sends a file straight to the whole-file read only when that read refuses it too."""

from __future__ import annotations

import gc
import weakref

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jecs_core import ScoreTableError, load_scores
from jecs_core import _csv_arrow as arrow_lane
from jecs_core import _csv_chunks as chunks

HEADER = ["item_id", "split", "score_a", "score_b"]


def _write(path, cell: str, *, rows: int = 40, at: int = -1) -> None:
    lines = [f"i{j},{'calibration' if j % 2 else 'test'},{j / 7},{j % 5}" for j in range(rows)]
    item, split, _, b = lines[at].split(",")
    lines[at] = ",".join([item, split, cell, b])
    path.write_text(",".join(HEADER) + "\n" + "\n".join(lines) + "\n", encoding="utf-8")


def _arrow(path):
    return arrow_lane.read_plain_wide_csv(path, HEADER, capacity=4, lower_is_member=False)


def _whole_file_refuses(path, monkeypatch) -> bool:
    with monkeypatch.context() as patch:
        patch.setattr(chunks, "CHUNKED_FROM_BYTES", 2**62)
        try:
            load_scores(path)
        except ScoreTableError:
            return True
    return False


def _straight_to_the_whole_file_read(path, header, monkeypatch, match=None) -> None:
    """The lane raises Breach; ``load_scores`` then never tries the pandas lane, and the whole-file read words it."""
    with pytest.raises(arrow_lane.Breach):
        arrow_lane.read_plain_wide_csv(path, header, capacity=1, lower_is_member=False)
    monkeypatch.setattr(chunks, "CHUNKED_FROM_BYTES", 0)
    monkeypatch.setattr(chunks, "_chunks", lambda *a: pytest.fail("the pandas lane read a file the Arrow lane refused"))
    with pytest.raises(ScoreTableError, match=match):
        load_scores(path)


@pytest.mark.parametrize("text", ["item_id,split,score_a\nc1,calibration,1\nc1,calibration,2\nt1,test,3\n",
                                  "item_id,split,score_a\nc1,calibration,1\nc2,calibration,2\nt1,tset,3\n",
                                  "item_id,split,score_a\nc1,calibration,1\nc2,calibration,2\nt1,test,inf\n",
                                  "item_id,split,score_a\nc1,calibration,1\nc2,calibration,\nt1,test,3\n"])
def test_a_repeated_id_an_unknown_split_and_a_missing_or_infinite_score_are_breaches(text, tmp_path, monkeypatch):
    path = tmp_path / "scores.csv"
    path.write_text(text, encoding="utf-8")
    _straight_to_the_whole_file_read(path, text.split("\n")[0].split(","), monkeypatch)


@pytest.mark.parametrize("cell", ["abc", "N/A", "1.5x", "--1", "1e", "#VALUE!", "\u0661"])
def test_text_in_a_score_column_goes_straight_to_the_whole_file_read(cell, tmp_path, monkeypatch):
    path = tmp_path / "scores.csv"
    _write(path, cell)
    _straight_to_the_whole_file_read(path, HEADER, monkeypatch, match="column 'score_a'")


@pytest.mark.parametrize("cell", ['"1.5"', "1.5\t", "\t+2", "+.5", "7.", "1E5"])
def test_a_cell_pandas_may_read_as_a_number_is_left_to_the_pandas_lane(cell, tmp_path):
    path = tmp_path / "scores.csv"
    _write(path, cell)
    _arrow(path)  # a table, or None for the pandas lane; never Breach


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cell=st.one_of(st.text(st.characters(blacklist_characters=',\r\n\0', blacklist_categories=("Cs",)), max_size=8),
                      st.from_regex(r"[ \t]?[+-]?[0-9]{0,3}[.]?[0-9]{0,3}([eE][+-]?[0-9]{0,2})?[ \t]?", fullmatch=True)),
       at=st.sampled_from([0, -1]))
def test_a_breach_is_one_the_whole_file_read_refuses_too(cell, at, tmp_path, monkeypatch):
    path = tmp_path / "scores.csv"
    _write(path, cell, at=at)
    try:
        _arrow(path)
    except arrow_lane.Breach:
        assert _whole_file_refuses(path, monkeypatch), repr(cell)


@pytest.mark.parametrize("last_row", ["t-late,test,1.5", "t-late,test,abc,1", "t-late,test,1.5,1,9"])
def test_each_lane_lets_go_of_its_arrays_as_soon_as_it_gives_up(last_row, tmp_path, monkeypatch):
    # A problem in the last block: a short row, a text score, a long row. No garbage collection
    # runs here, so an array still held (in a reference cycle through the parse error) would show.
    path = tmp_path / "scores.csv"
    _write(path, "1.0", rows=4000)
    path.write_text(path.read_text(encoding="utf-8") + last_row + "\n", encoding="utf-8")
    monkeypatch.setattr(arrow_lane, "BLOCK_BYTES", 4096)
    monkeypatch.setattr(chunks, "CHUNK_ROWS", 512)
    monkeypatch.setattr(chunks, "CHUNKED_FROM_BYTES", 0)
    held = []

    def tracked(init):
        def __init__(self, *args, **kwargs):
            init(self, *args, **kwargs)
            held.append(weakref.ref(self))
        return __init__

    for cls in (arrow_lane._Fill, chunks._Reader):
        monkeypatch.setattr(cls, "__init__", tracked(cls.__init__))
    gc.collect()
    gc.disable()
    try:
        assert chunks.read_clean_wide_csv(path, source="scores.csv") is None
        assert held and [ref() for ref in held] == [None] * len(held)
    finally:
        gc.enable()
