"""The CSV writer's repeated-value path (each distinct float formatted once) gives pandas' bytes."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from jecs_core._fastcsv import write_csv

specials = [0.0, 1.0, -2.5, 1e-5, 1e16, 123456789.125, np.nan, np.inf, -np.inf, 1 / 3]


@settings(max_examples=25, deadline=None)
@given(st.integers(1001, 4000), st.integers(1, 300), st.lists(st.sampled_from(specials), max_size=4),
       st.integers(0, 2**32 - 1))
def test_repeated_floats_write_pandas_bytes(n, m, extra, seed):
    rng = np.random.default_rng(seed)
    pool = np.concatenate([(np.arange(m) + 1.0) / (m + 1), np.array(extra, dtype=float)])
    frame = pd.DataFrame({"id": [f"t{i}" for i in range(n)], "p": pool[rng.integers(0, len(pool), n)],
                          "q": rng.standard_normal(n)})
    buffer = io.BytesIO()
    write_csv(frame, buffer)
    assert buffer.getvalue() == frame.to_csv(index=False).encode("utf-8")


@settings(max_examples=25, deadline=None)
@given(st.integers(1001, 3000), st.sampled_from(["int8", "int16", "int64", "uint8", "uint64"]),
       st.integers(-200, 200), st.integers(0, 5000), st.integers(0, 2**32 - 1))
def test_small_range_integers_write_pandas_bytes(n, dtype, low, width, seed):
    info = np.iinfo(dtype)
    low = min(max(low, info.min), info.max)
    high = min(low + width, info.max)
    rng = np.random.default_rng(seed)
    values = rng.integers(low, high, n, endpoint=True).astype(dtype)
    frame = pd.DataFrame({"id": [f"t{i}" for i in range(n)], "label": values, "extreme": values[::-1]})
    buffer = io.BytesIO()
    write_csv(frame, buffer)
    assert buffer.getvalue() == frame.to_csv(index=False).encode("utf-8")
