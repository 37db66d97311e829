"""A clean wide CSV score table, read a chunk of rows at a time straight into its final arrays.

pandas' whole-file reader holds its parsed pieces and their joined frame at once, and the frame
then hands its columns to the score block: at the peak the scores exist three times over. Read
:data:`CHUNK_ROWS` rows at a time, each chunk's cells are checked and copied into blocks sized
from the file, and the chunk is dropped, so the peak is the table's own arrays plus one chunk.

Only a table that passes the data contract takes this path. A chunk that breaks any check, a
column whose type changes from one chunk to the next, a long table or a file the parser refuses
returns ``None``; the caller then reads the whole file with :func:`jecs_core.io.read_table` and
checks it with :func:`jecs_core.contract.check_frame`, whose messages name every problem's rows.
Both paths type every cell with :func:`jecs_core.io.csv_options`, so they build equal tables.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from ._blocks import read_ahead
from ._columns import Where, by_split, empty_text, label_column, plain_block, split_rows
from ._csv_arrow import read_plain_wide_csv
from ._csv_rows import short_row
from ._long import detect_layout
from ._mixed_columns import mixed_columns
from ._roles import read_as_written
from .contract import COVARIATE_PREFIX, MEMBER_PREFIX, MIN_CALIBRATION, SCORE_PREFIX, column_roles
from .formats import table_kind
from .io import WIDE_HEADER, csv_header, csv_options, last_cell_empty

CHUNK_ROWS = 65_536
# Below this size the whole-file reader's peak is small and its parallel parse the quicker.
CHUNKED_FROM_BYTES = 16 * 2**20
_SAMPLE_BYTES = 4 * 2**20  # read to estimate the row count from the bytes per line


class _Refused(Exception):
    """Not for the chunked path: the whole-file path reads the file and says what is wrong."""


def _estimated_rows(path: Path) -> int:
    size = path.stat().st_size
    with open(path, "rb") as handle:
        sample = handle.read(_SAMPLE_BYTES)
    lines = max(sample.count(b"\n"), 1)
    return int(size / (len(sample) / lines) * 1.1) + CHUNK_ROWS


def _number(dtype) -> bool:
    return isinstance(dtype, np.dtype) and dtype.kind in "iuf"


class _Blocks:
    """Arrays sized from an estimate of the row count, grown when it falls short; the numeric rows
    past ``rows`` are never written, so an estimate too high costs address space, not memory."""

    def __init__(self, capacity: int, K: int, d: int, labelled: bool):
        self.rows, self.test_rows = 0, 0
        self.scores = np.empty((capacity, K))
        self.covariates = np.empty((capacity, d))
        self.is_cal = np.empty(capacity, dtype=bool)
        self.ids = np.empty(capacity, dtype=object)
        self.members = np.empty((capacity, K), dtype=np.int8) if labelled else None

    def reserve(self, more: int) -> None:
        if self.rows + more <= len(self.ids):
            return
        capacity = max(int(len(self.ids) * 1.5), self.rows + more)
        for name in ("scores", "covariates", "is_cal", "ids", "members"):
            old = getattr(self, name)
            if old is not None:
                new = np.empty((capacity,) + old.shape[1:], dtype=old.dtype)
                new[: self.rows] = old[: self.rows]
                setattr(self, name, new)


class _Reader:
    """Checks each chunk against the contract's cell rules and fills the blocks."""

    def __init__(self, first: pd.DataFrame, capacity: int, source: str):
        self.source, self.dtypes = source, first.dtypes
        where = Where(source, np.arange(len(first)), True)
        self.scores, self.members, self.covariates, extra, problems = column_roles(first, where)
        if problems or "item_id" not in first.columns or "split" not in first.columns:
            raise _Refused
        carried = set(extra) | set(self.covariates)
        self.carried = [c for c in first.columns if c in carried]  # input column order
        self.models = tuple(c[len(SCORE_PREFIX):] for c in self.scores)
        self.numbers = set(self.scores) | set(self.members) | set(self.covariates)
        self.blocks = _Blocks(capacity, len(self.scores), len(self.covariates), bool(self.members))
        self.extra = {"calibration": [], "test": []}
        self.seen: set = set()  # the ids so far, gathered while the next chunk parses
        self.last_empty = False  # a cell of the last column is empty: a row may be short (checked once read)

    def _same_types(self, chunk: pd.DataFrame) -> bool:
        """Each column typed as in the first chunk; a number column may switch between int and float (as
        the whole-file parse would join them; the values are the same floats)."""
        if chunk.dtypes.equals(self.dtypes):
            return True
        return all(now == was or (name in self.numbers and _number(now) and _number(was))
                   for name, now, was in zip(chunk.columns, chunk.dtypes, self.dtypes))

    def add(self, chunk: pd.DataFrame) -> None:
        if not self._same_types(chunk) or empty_text(chunk["item_id"]).any():
            raise _Refused
        self.last_empty = self.last_empty or last_cell_empty(chunk.iloc[:, -1])
        if mixed_columns(chunk[self.carried]):  # typed one block of rows at a time within the chunk
            raise _Refused
        is_cal, unknown = split_rows(chunk["split"])
        if unknown.any():
            raise _Refused
        b, rows = self.blocks, len(chunk)
        b.reserve(rows)
        start, stop = b.rows, b.rows + rows
        if plain_block(chunk, self.scores, out=b.scores[start:stop]) is None:
            raise _Refused
        if self.covariates and plain_block(chunk, self.covariates, out=b.covariates[start:stop]) is None:
            raise _Refused
        is_test = ~is_cal
        tests = int(is_test.sum())
        if self.members:
            where = Where(self.source, np.arange(start, stop), True)
            for k, model in enumerate(self.models):
                values, problem = label_column(chunk[MEMBER_PREFIX + model], MEMBER_PREFIX + model, is_test, where)
                if problem:
                    raise _Refused
                b.members[b.test_rows: b.test_rows + tests, k] = values[is_test]
        b.ids[start:stop] = chunk["item_id"].astype(str).to_numpy()
        self.seen.update(b.ids[start:stop])
        if len(self.seen) != stop:  # a repeated id: the whole-file read names its rows
            raise _Refused
        b.is_cal[start:stop] = is_cal
        part = chunk.loc[:, self.carried]
        self.extra["calibration"].append(part.loc[is_cal])
        self.extra["test"].append(part.loc[is_test])
        b.rows, b.test_rows = stop, b.test_rows + tests

    def fields(self, lower_is_member: bool) -> dict:
        """The :class:`jecs_core.data.ScoreTable` fields, built as :func:`jecs_core.data.table_from_frame` does."""
        b = self.blocks
        is_cal = b.is_cal[: b.rows]
        m = int(is_cal.sum())
        ids = b.ids[: b.rows]
        self.seen.clear()  # every id is distinct (add() checked): its memory goes back before the table is built
        if m < MIN_CALIBRATION or m == b.rows:
            raise _Refused
        is_test = ~is_cal
        scores, covariates = b.scores[: b.rows], b.covariates[: b.rows]
        if lower_is_member:
            np.negative(scores, out=scores)
        calibration, test = by_split(scores, is_cal)
        extra = {part: pd.concat(frames, ignore_index=True) for part, frames in self.extra.items()}
        return dict(
            models=self.models,
            calibration=calibration,
            test=test,
            calibration_ids=ids[is_cal],
            test_ids=ids[is_test],
            test_members=None if b.members is None else b.members[: b.test_rows],
            test_extra=extra["test"],
            flipped=bool(lower_is_member),
            covariate_names=tuple(c[len(COVARIATE_PREFIX):] for c in self.covariates),
            covariates=covariates[is_test],
            calibration_covariates=covariates[is_cal],
            calibration_extra=extra["calibration"],
        )


def _chunks(path: Path, header: list[str]):
    options = csv_options(header, read_as_written(header, "wide"))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)  # a row longer than the header
            warnings.simplefilter("ignore", pd.errors.DtypeWarning)  # a mixed column is refused in add()
            with pd.read_csv(path, chunksize=CHUNK_ROWS, **options) as reader:
                yield from reader
    except Exception as exc:  # the parser raises many types; the whole-file path words them
        raise _Refused from exc


def read_clean_wide_csv(path: str | Path, *, source: str, layout: str = "auto",
                        lower_is_member: bool = False) -> dict | None:
    """The :class:`jecs_core.data.ScoreTable` fields of a clean wide CSV table, or ``None``.

    ``None`` means the file is not a wide table that passes the data contract, or is not read
    here (a long table, Parquet, a file under :data:`CHUNKED_FROM_BYTES`): read it with
    :func:`jecs_core.io.read_table` for the full checks.
    """
    path = Path(path)
    try:
        if (layout == "long" or table_kind(path) != "csv" or not path.is_file()
                or path.stat().st_size < CHUNKED_FROM_BYTES):
            return None
        with open(path, encoding="utf-8-sig", newline="") as stream:
            header = csv_header(stream, source)
        if len(header) > WIDE_HEADER:
            return None
        capacity = _estimated_rows(path)
        plain = read_plain_wide_csv(path, header, capacity=capacity, lower_is_member=lower_is_member)
        if plain is not None:  # its header has score_ columns: a wide table
            no_columns = pd.Index(header)[:0]  # typed as the parser types a header
            return {**plain, **{f"{part}_extra": pd.DataFrame(index=pd.RangeIndex(len(plain[f"{part}_ids"])), columns=no_columns)
                                for part in ("test", "calibration")}}
        chunks = _chunks(path, header)
        ahead = read_ahead(chunks)
        try:
            reader = _fill(ahead, header, capacity, source, layout)
            if reader.last_empty and short_row(path, len(header)) is not None:
                return None  # the whole-file read names the line
            return reader.fields(lower_is_member)
        finally:
            ahead.close()  # waits for the chunk in flight
            chunks.close()  # restores the warning filters now, not when the generator is collected
    except MemoryError:
        raise
    except Exception:  # _Refused, or a cell no check here foresaw: the whole-file read words the problem
        return None


def _fill(chunks, header: list[str], capacity: int, source: str, layout: str) -> _Reader:
    first = next(chunks, None)
    if first is None or list(first.columns) != header or (layout == "auto" and detect_layout(first) == "long"):
        raise _Refused
    reader = _Reader(first, capacity, source)
    reader.add(first)
    del first
    for chunk in chunks:
        reader.add(chunk)
    return reader
