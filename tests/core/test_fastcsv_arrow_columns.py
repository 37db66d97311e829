"""The fast CSV writer on Arrow-backed pandas columns (they arrive as chunked Arrow arrays)."""

from __future__ import annotations

import io

import pandas as pd

from jecs_core._fastcsv import write_csv


def test_arrow_backed_text_columns_give_the_pandas_bytes():
    frame = pd.DataFrame({
        "item_id": pd.array([f"t{i}" for i in range(5)], dtype="string[pyarrow]"),
        "text": pd.array(["a", 'with "quote"', "x,y", None, "=1+1"], dtype="string[pyarrow]"),
        "score": [0.5, 1.0, -2.25, 3.0, 0.1],
    })
    buffer = io.BytesIO()
    write_csv(frame, buffer)
    assert buffer.getvalue() == frame.to_csv(index=False).encode("utf-8")
