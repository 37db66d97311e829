"""Fuzzing the table reader and the contract: random headers, types and values never give a
traceback (only a one-line ScoreTableError / ValueError) and never a silent rename; and the fast CSV
writer gives exactly pandas' bytes."""

from __future__ import annotations

import csv
import io
import string

import numpy as np
import pandas as pd
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from jecs_core import ScoreTableError  # noqa: E402
from jecs_core._fastcsv import write_csv  # noqa: E402
from jecs_core.contract import MIN_CALIBRATION  # noqa: E402
from jecs_core.data import load_scores_bytes, table_from_frame  # noqa: E402
from jecs_core.io import read_table_bytes  # noqa: E402

NAMES = st.one_of(
    st.sampled_from(["item_id", "split", "score_a", "score_b", "member_a", "member_b", "x_len", "text", "selected", "p_max",
                     "score_max", "score_", "", " ", "model", "score", "member", "a,b", 'q"t', "new\nline", "=cmd", "NA"]),
    st.text(alphabet=string.ascii_letters + "_é,\"'=+- ", min_size=0, max_size=8),
)
CELLS = st.one_of(
    st.sampled_from(["calibration", "test", "Calibration ", "train", "", "NA", "null", "True", "false", "inf", "-inf", "nan",
                     "=HYPERLINK(1)", "(1+2j)", "2024-01-01", "0", "1", "1e400", "-0.0", " 3 "]),
    st.integers(-10, 10).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(max_size=6),
)
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _csv_bytes(header, rows) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8")


def _check_outcome(data: bytes, name: str, header=None) -> None:
    try:
        table = load_scores_bytes(data, name)
    except (ScoreTableError, ValueError) as exc:
        message = str(exc)
        assert message and "\n" not in message and "Traceback" not in message
        assert message.startswith(f"{name}: ") or message.startswith("layout")
        return
    frame = read_table_bytes(data, name)
    if header is not None:
        assert list(frame.columns) == list(header)  # nothing renamed
    assert all(f"score_{m}" in frame.columns for m in table.models)
    assert set(table.test_extra.columns) <= set(frame.columns)
    assert np.isfinite(table.test).all() and np.isfinite(table.calibration).all()
    assert table.m >= MIN_CALIBRATION and table.n >= 1


@FUZZ
@given(header=st.lists(NAMES, min_size=1, max_size=7), data=st.data())
def test_random_csv_never_tracebacks_or_renames(header, data):
    rows = data.draw(st.lists(st.lists(CELLS, min_size=len(header), max_size=len(header)), min_size=0, max_size=8))
    _check_outcome(_csv_bytes(header, rows), "fuzz.csv", header)


@FUZZ
@given(n_rows=st.integers(3, 12), data=st.data())
def test_mostly_valid_csv_with_random_damage(n_rows, data):
    header = ["item_id", "split", "score_a", "score_b"] + data.draw(st.lists(NAMES, max_size=3))
    rows = []
    for i in range(n_rows):
        row = [f"i{i}", "calibration" if i < n_rows // 2 else "test", repr(float(i)), repr(float(-i))]
        row += [data.draw(CELLS) for _ in header[4:]]
        if data.draw(st.booleans()):
            row[data.draw(st.integers(0, len(row) - 1))] = data.draw(CELLS)
        rows.append(row)
    _check_outcome(_csv_bytes(header, rows), "damaged.csv", header)


ARROW_COLUMNS = st.sampled_from(["float", "int", "bool", "timestamp", "string", "dictionary", "null", "float_nan", "duration"])


@FUZZ
@given(kinds=st.lists(ARROW_COLUMNS, min_size=1, max_size=4), names=st.lists(NAMES, min_size=4, max_size=4), seed=st.integers(0, 99))
def test_random_parquet_types_never_traceback(kinds, names, seed):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    n = 6
    makers = {
        "float": lambda: pa.array(rng.standard_normal(n)),
        "float_nan": lambda: pa.array(np.where(rng.random(n) < 0.3, np.nan, rng.standard_normal(n))),
        "int": lambda: pa.array(rng.integers(-3, 3, n)),
        "bool": lambda: pa.array(rng.random(n) < 0.5),
        "timestamp": lambda: pa.array(pd.date_range("2024-01-01", periods=n)),
        "duration": lambda: pa.array(pd.timedelta_range(0, periods=n, freq="s")),
        "string": lambda: pa.array([str(v) for v in rng.standard_normal(n)]),
        "dictionary": lambda: pa.array(["1.5", "2.5"] * (n // 2)).dictionary_encode(),
        "null": lambda: pa.nulls(n),
    }
    columns = {"item_id": pa.array([f"i{j}" for j in range(n)]), "split": pa.array(["calibration"] * 3 + ["test"] * 3)}
    arrays = [columns["item_id"], columns["split"]] + [makers[k]() for k in kinds]
    header = ["item_id", "split"] + [f"score_{names[j] or j}" if j % 2 == 0 else names[j] for j in range(len(kinds))]
    buffer = io.BytesIO()
    try:
        pq.write_table(pa.table(arrays, names=header), buffer)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return  # Parquet itself cannot hold this column; nothing for the reader to do
    _check_outcome(buffer.getvalue(), "fuzz.parquet", header)


@FUZZ
@given(values=st.lists(st.one_of(st.booleans(), st.integers(-5, 5), st.floats(allow_nan=True), st.text(max_size=3),
                                 st.complex_numbers(max_magnitude=10), st.none()), min_size=6, max_size=6))
def test_object_score_columns_of_mixed_python_values(values):
    frame = pd.DataFrame({"item_id": [f"i{j}" for j in range(6)], "split": ["calibration"] * 3 + ["test"] * 3,
                          "score_a": pd.Series(values, dtype=object)})
    try:
        table = table_from_frame(frame, source="mixed")
    except ScoreTableError as exc:
        assert str(exc).startswith("mixed: column 'score_a': ") and "\n" not in str(exc)
        return
    assert all(not isinstance(v, (bool, complex)) for v in values)
    np.testing.assert_array_equal(np.concatenate([table.calibration[:, 0], table.test[:, 0]]), [float(v) for v in values])


FRAME_VALUES = {
    "float": st.floats(allow_nan=True, allow_infinity=True, width=64),
    "int": st.integers(-(2**62), 2**62),
    "bool": st.booleans(),
    "text": st.one_of(st.none(), st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=8)),
}


@FUZZ
@given(kinds=st.lists(st.sampled_from(sorted(FRAME_VALUES)), min_size=2, max_size=5), n=st.integers(1, 8), data=st.data())
def test_fast_csv_writer_gives_pandas_bytes(tmp_path_factory, kinds, n, data):
    columns = {}
    for j, kind in enumerate(kinds):
        values = data.draw(st.lists(FRAME_VALUES[kind], min_size=n, max_size=n))
        columns[f"c{j},{kind}"] = pd.Series(values, dtype=object if kind == "text" else None)
    frame = pd.DataFrame(columns)
    folder = tmp_path_factory.mktemp("fastcsv")
    frame.to_csv(folder / "pandas.csv", index=False)
    assert write_csv(frame, folder / "fast.csv") == "fast"  # the Arrow path, not the pandas fallback
    assert (folder / "fast.csv").read_bytes() == (folder / "pandas.csv").read_bytes()
