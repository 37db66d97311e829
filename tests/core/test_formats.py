"""The one formats table: every suffix it lists is read as its kind, and the readers agree with it."""

from __future__ import annotations

import pytest

from jecs_core import formats
from jecs_core.data import ScoreTableError
from jecs_core.io import read_table_bytes


def test_every_listed_suffix_has_its_kind():
    assert all(formats.table_kind(f"a{s}") == "csv" for s in formats.CSV_LIKE_SUFFIXES)
    assert all(formats.table_kind(f"a{s.upper()}") == "parquet" for s in formats.PARQUET_SUFFIXES)
    assert set(formats.WRITE_SUFFIXES) <= set(formats.TABLE_SUFFIXES)
    assert formats.table_kind("a.jsonl") is None and formats.suffix("dir/a.JSONL") in formats.JSONL_SUFFIXES


@pytest.mark.parametrize("name", ["scores.xlsx", "scores.json"])
def test_the_reader_refuses_what_the_table_does_not_list(name):
    with pytest.raises(ScoreTableError, match="unsupported file type"):
        read_table_bytes(b"item_id,split\n", name)
