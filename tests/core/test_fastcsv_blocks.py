"""The CSV writer a block of rows at a time: the bytes of pandas' to_csv whatever the block size."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jecs_core._fastcsv as fastcsv


def _frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "item_id": [f"i{j}" if j % 7 else f'say "{j}", ok' for j in range(n)],
        "p": rng.integers(1, 30, n) / 31,  # repeated values: formatted once each
        "x": rng.standard_normal(n) * 10.0 ** rng.integers(-8, 18, n),
        "flag": rng.random(n) < 0.5,
        "count": rng.integers(-5, 5, n).astype(np.int8),
    })


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 2500), st.integers(1, 700), st.integers(0, 2**32 - 1))
def test_blocks_give_the_bytes_of_pandas(n, block, seed):
    frame = _frame(n, seed)
    saved = fastcsv._ROWS_PER_CHUNK
    fastcsv._ROWS_PER_CHUNK = block
    try:
        from_frame, from_mapping = io.BytesIO(), io.BytesIO()
        fastcsv.write_columns(frame, from_frame)
        fastcsv.write_columns({name: frame[name].to_numpy() for name in frame.columns}, from_mapping)
    finally:
        fastcsv._ROWS_PER_CHUNK = saved
    expected = frame.to_csv(index=False).encode()
    assert from_frame.getvalue() == expected and from_mapping.getvalue() == expected


def test_a_column_type_found_in_a_later_block_rewrites_the_file_through_pandas(tmp_path, monkeypatch):
    monkeypatch.setattr(fastcsv, "_ROWS_PER_CHUNK", 4)
    frame = pd.DataFrame({"item_id": [f"i{j}" for j in range(10)], "note": ["a"] * 8 + [3, 4.5]})
    path = tmp_path / "out.csv"
    assert fastcsv.write_csv(frame, path) == "pandas"
    assert path.read_bytes() == frame.to_csv(index=False).encode()


def test_an_unseekable_output_refuses_a_late_column_type(monkeypatch):
    monkeypatch.setattr(fastcsv, "_ROWS_PER_CHUNK", 4)

    class Pipe(io.BytesIO):
        def seekable(self):
            return False

    frame = pd.DataFrame({"item_id": [f"i{j}" for j in range(10)], "note": ["a"] * 8 + [3, 4.5]})
    with pytest.raises(ValueError, match="unseekable"):
        fastcsv.write_csv(frame, Pipe())


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.none(), st.text(max_size=6), st.sampled_from(["a,b", 'q"', "l\nm", "r\rs", "é,", "ü"])),
                min_size=1, max_size=40),
       st.integers(1, 9), st.sampled_from([object, "string[pyarrow]"]))
def test_text_cells_are_quoted_as_pandas_quotes_them_in_any_block(cells, block, dtype):
    # Blocks whose cells need no quoting skip the per-cell quoting; the others take it.
    frame = pd.DataFrame({"text": pd.array(cells, dtype=dtype), "k": np.arange(len(cells))})
    saved = fastcsv._ROWS_PER_CHUNK
    fastcsv._ROWS_PER_CHUNK = block
    try:
        out = io.BytesIO()
        fastcsv.write_columns(frame, out)
    finally:
        fastcsv._ROWS_PER_CHUNK = saved
    assert out.getvalue() == frame.to_csv(index=False).encode()
