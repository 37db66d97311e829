"""The plainest clean wide CSV score table, parsed by Arrow's CSV reader a block at a time.

Arrow's streaming reader types each column as told and parses these files in about half the time
of pandas' chunked reader (benchmarks/RESULTS.md), releasing the GIL while this thread checks the
block before. This lane takes only files whose every cell Arrow and pandas are sure to read
alike, so the table equals the one :mod:`jecs_core._csv_chunks` (and the whole-file read) builds:

* the columns are ``item_id``, ``split``, ``score_<model>`` and optionally ``member_<model>``:
  no covariate or carried column, whose pandas-inferred types the table keeps;
* the file holds no double quote and no NUL byte (quoting and NUL are where the two parsers'
  rules part); Arrow reads it with quoting off, so a quote shows in a cell or breaks a row;
* every score parses as a finite float64 under Arrow's parser (a cell pandas reads as missing,
  text, or a number padded with more than spaces and tabs fails it); every label parses as an
  integer or is empty, every test row's is 0 or 1 and every calibration row's 1 or empty (a label
  such as ``1.0`` or ``True``, which pandas also reads, goes to the pandas lane); every id has a
  non-blank character and ids are distinct.

Anything else returns ``None`` before or during the parse, and the pandas lane reads the file;
a cell or id the data contract refuses whichever lane reads it (a missing, non-finite or text score,
an unknown split, a repeated id) raises :class:`Breach`, so that only the whole-file read, which words
the problem, reads the file again.
Both parsers round decimal text to the nearest double, so the scores are bit-identical (tested).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from ._arrow_text import all_distinct, holds_any_byte, text_buffers, text_hashes
from ._blocks import read_ahead
from ._columns import EXACT_INTEGERS, SPLITS, by_split
from .contract import MEMBER_PREFIX, MIN_CALIBRATION, RESERVED_MODELS, SCORE_PREFIX

# Arrow's parse unit. Measured at 10^6 x 16: 8 MiB blocks were no quicker and raised the read's peak
# by about 160 MiB; a few blocks are in flight at a time.
BLOCK_BYTES = 1 * 2**20
_QUOTE_OR_NUL = np.array([ord('"'), 0], dtype=np.uint8)
# How Arrow names a cell it could not read as a float64, and what pandas might still read as a finite
# number there (padded or signed; a quoted cell is left to pandas' quoting rules): any other score
# cell is text, which the contract refuses.
_NOT_A_DOUBLE = re.compile(r"conversion error to double: invalid value '(.*)'", re.S)
_NUMBER_LIKE = re.compile(r"\s*[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\s*")


class Breach(Exception):
    """The file breaks the data contract in a way every reader sees alike."""


def lane_columns(header: list[str]) -> tuple[list[str], list[str]] | None:
    """``(score columns, member columns)`` when ``header`` is for this lane, else ``None``."""
    scores = [c for c in header if c.startswith(SCORE_PREFIX) and len(c) > len(SCORE_PREFIX)]
    members = [c for c in header if c.startswith(MEMBER_PREFIX)]
    models = [c[len(SCORE_PREFIX):] for c in scores]
    if (header[:2] != ["item_id", "split"] or len(header) != 2 + len(scores) + len(members) or not scores
            or (members and sorted(members) != sorted(MEMBER_PREFIX + m for m in models))):
        return None
    if any(model in RESERVED_MODELS for model in models):
        return None
    return scores, [MEMBER_PREFIX + m for m in models] if members else []


def _plain_header(path: Path) -> bool:
    """The file's first line holds no double quote (Arrow skips one physical line for the header)."""
    with open(path, "rb") as handle:
        return b'"' not in handle.readline()


def _plain_text(column) -> bool:
    """No double quote and no NUL byte in a text column's cells.

    With quoting off, every byte of the file but the commas and line ends lands in a cell, and a
    quote or NUL in a number cell fails its parse: so the text cells alone show whether the file
    holds one (scanning the file itself would map all of it into memory)."""
    return not holds_any_byte(column, _QUOTE_OR_NUL)


def _open(path: Path, header: list[str], scores: list[str], members: list[str]):
    import pyarrow as pa
    from pyarrow import csv

    # An empty cell is null (a label left out on a calibration row); the text columns never are,
    # and a null score sends the file to the pandas lane.
    types = {"item_id": pa.string(), "split": pa.string(), **{c: pa.float64() for c in scores},
             **{c: pa.int8() for c in members}}
    return csv.open_csv(
        path,
        read_options=csv.ReadOptions(column_names=header, skip_rows=1, block_size=BLOCK_BYTES, use_threads=True),
        parse_options=csv.ParseOptions(delimiter=",", quote_char=False, newlines_in_values=False),
        convert_options=csv.ConvertOptions(column_types=types, null_values=[""], strings_can_be_null=False,
                                           quoted_strings_can_be_null=False, check_utf8=True),
    )


class _Fill:
    """Arrays sized from an estimate of the row count, grown when it falls short (as the pandas lane's)."""

    def __init__(self, capacity: int, K: int, labelled: bool):
        self.rows = self.test_rows = 0
        self.scores = np.empty((capacity, K))
        self.is_cal = np.empty(capacity, dtype=bool)
        self.members = np.empty((capacity, K), dtype=np.int8) if labelled else None
        self.ids = np.empty(capacity, dtype=object)
        # The ids' uniqueness is checked on hashes of their bytes, computed while Arrow parses the next
        # blocks: a Python set of a million ids took twice as long.
        self.hashes = np.empty(capacity, dtype=np.uint64)

    def reserve(self, more: int) -> None:
        if self.rows + more <= len(self.is_cal):
            return
        capacity = max(int(len(self.is_cal) * 1.5), self.rows + more)
        for name in ("scores", "is_cal", "members", "ids", "hashes"):
            old = getattr(self, name)
            if old is not None:
                new = np.empty((capacity,) + old.shape[1:], dtype=old.dtype)
                new[: self.rows] = old[: self.rows]
                setattr(self, name, new)


def _split(column) -> tuple[np.ndarray, bool]:
    """Per row: is it a calibration row; and whether every word is one of :data:`SPLITS` (case and
    outer spaces ignored, as the contract reads them)."""
    import pyarrow.compute as pc

    coded = pc.dictionary_encode(column)
    words = np.array([str(word).strip().lower() for word in coded.dictionary.to_pylist()], dtype=object)
    codes = coded.indices.to_numpy()
    return (words == "calibration")[codes], bool(np.isin(words, SPLITS).all())


def _labels(batch, members: list[str], is_test: np.ndarray) -> np.ndarray | None:
    """The test rows' labels (rows x models, int8), or ``None`` when one is missing or not 0 or 1, or when a
    calibration row's is neither 1 nor empty (the whole-file read names the row)."""
    columns = (batch.column(c) for c in members)
    labels = np.stack([(c.fill_null(-1) if c.null_count else c).to_numpy() for c in columns], axis=1)
    calibration, labels = labels[~is_test], labels[is_test]
    if not ((calibration == 1) | (calibration == -1)).all():
        return None
    return labels if ((labels == 0) | (labels == 1)).all() else None


def _add(fill: _Fill, batch, scores: list[str], members: list[str]) -> bool:
    """Check one block and copy it in; ``False`` when it breaks a rule of this lane (:class:`Breach`
    when it breaks the contract)."""
    rows = batch.num_rows
    if not all(_plain_text(batch.column(c)) for c in ("item_id", "split")):
        return False
    if any(batch.column(c).null_count for c in scores):
        raise Breach("a missing score")
    is_cal, known = _split(batch.column("split"))
    if not known:
        raise Breach("an unknown split")
    fill.reserve(rows)
    start, stop = fill.rows, fill.rows + rows
    block = fill.scores[start:stop]
    np.stack([batch.column(c).to_numpy() for c in scores], axis=1, out=block)
    if not np.isfinite(block).all():
        raise Breach("a score that is not finite")
    zeros = block == 0
    if zeros.any() and np.signbit(block[zeros]).any():  # "-0": pandas types an all-integer column int64 (+0.0)
        return False
    if block.size and (block.max() >= EXACT_INTEGERS or block.min() <= -EXACT_INTEGERS):  # pandas may type as integers
        return False
    is_test = ~is_cal
    tests = int(is_test.sum())
    if members:
        labels = _labels(batch, members, is_test)
        if labels is None:
            return False
        fill.members[fill.test_rows: fill.test_rows + tests] = labels
    ids = batch.column("item_id")
    if _blank_ids(ids):
        return False
    fill.ids[start:stop] = ids.to_numpy(zero_copy_only=False)
    fill.hashes[start:stop] = text_hashes(ids)
    fill.is_cal[start:stop] = is_cal
    fill.rows, fill.test_rows = stop, fill.test_rows + tests
    return True


def _blank_ids(column) -> bool:
    """Whether an id is empty or white space only (by Python's or by Arrow's idea of white space, as
    the pandas lane's strings may use either); only ids not starting with printable ASCII are looked at."""
    import pyarrow as pa
    import pyarrow.compute as pc

    offsets, data = text_buffers(column)
    if (np.diff(offsets) == 0).any():
        return True
    first = data[offsets[:-1]]
    unclear = (first < 0x21) | (first > 0x7E)
    if not unclear.any():
        return False
    suspects = column.filter(pa.array(unclear))
    trimmed = pc.utf8_trim_whitespace(suspects).to_pylist()
    return any(not value.strip() or not cut for value, cut in zip(suspects.to_pylist(), trimmed))


def _filled(fill: _Fill, path: Path, header: list[str], scores: list[str], members: list[str]) -> bool:
    """Parse the file into ``fill``; ``False`` at the first block against this lane's rules or a parse error."""
    import pyarrow as pa

    try:
        with _open(path, header, scores, members) as reader:
            batches = read_ahead(iter(reader))
            try:
                return all(not batch.num_rows or _add(fill, batch, scores, members) for batch in batches)
            finally:
                batches.close()  # waits for the block in flight before the reader closes
    except (ValueError, OSError) as exc:  # pyarrow.ArrowInvalid is a ValueError
        cell = _NOT_A_DOUBLE.search(str(exc))
        text_score = bool(cell) and '"' not in cell.group(1) and not _NUMBER_LIKE.fullmatch(cell.group(1))
    finally:
        # The parse's freed blocks (about 40 MiB at 10^6 rows) would otherwise stay with the
        # allocator and raise the command's peak by as much.
        pa.default_memory_pool().release_unused()
    # Raised here, not in the handler: there, the Arrow error and this frame would hold each other (and
    # ``fill``'s arrays) until a garbage collection, through the whole-file read that comes next.
    if text_score:
        raise Breach("text in a score column")
    return False


def read_plain_wide_csv(path: Path, header: list[str], *, capacity: int, lower_is_member: bool) -> dict | None:
    """The :class:`jecs_core.data.ScoreTable` fields but the two (empty) extra frames, or ``None``.

    ``capacity`` is the estimated row count. Errors of the parse (a short or long row, a number or
    label Arrow reads otherwise than pandas, invalid UTF-8) return ``None`` too; a breach of the
    contract (text in a score column among them) raises :class:`Breach`.
    """
    columns = lane_columns(header)
    if columns is None or not _plain_header(path):
        return None
    scores, members = columns
    fill = _Fill(capacity, len(scores), bool(members))
    if not _filled(fill, path, header, scores, members):
        return None
    ids, is_cal = fill.ids[: fill.rows], fill.is_cal[: fill.rows]
    if not all_distinct(fill.hashes[: fill.rows], ids):
        raise Breach("a repeated id")
    fill.hashes = None  # its memory goes back before the table is built
    m = int(is_cal.sum())
    if m < MIN_CALIBRATION or m == fill.rows:
        return None
    values = fill.scores[: fill.rows]
    if lower_is_member:
        np.negative(values, out=values)
    calibration, test = by_split(values, is_cal)
    return dict(
        models=tuple(c[len(SCORE_PREFIX):] for c in scores),
        calibration=calibration,
        test=test,
        calibration_ids=ids[is_cal],
        test_ids=ids[~is_cal],
        test_members=None if fill.members is None else fill.members[: fill.test_rows],
        flipped=bool(lower_is_member),
        covariate_names=(),
        covariates=np.empty((fill.rows - m, 0)),
        calibration_covariates=np.empty((m, 0)),
    )
