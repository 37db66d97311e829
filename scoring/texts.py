"""The texts table that scoring reads: ``item_id, split, text[, member_<model>, ...]``."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from jecs_core.data import ScoreTableError
from jecs_core.formats import TABLE_SUFFIXES, table_kind
from jecs_core.io import read_as_written, read_table, read_table_bytes

REQUIRED_COLUMNS = ("item_id", "split", "text")
SPLITS = ("calibration", "test")

def _read_file(p: Path) -> pd.DataFrame:
    # The core's one reader: exact headers (a duplicate is refused, never renamed), never unpickles;
    # ids, texts and carried columns are read as written (a text "NA" is a text, an empty cell the empty text).
    try:
        frame = read_table(p, text_columns=read_as_written)
    except ScoreTableError as exc:
        raise ValueError(f"texts file {str(p)!r}: {str(exc).removeprefix(str(p) + ': ')}") from None
    _check_parquet_text_type(p.name, p, f"texts file {str(p)!r}")
    return frame


def _check_parquet_text_type(name: str, source, where: str) -> None:
    """Refuse a Parquet ``text`` column of a type other than strings: the reader prints any cell as text, so
    a list of token ids would be scored as ``"[1, 2]"``. ``source`` is the file's path or bytes."""
    if table_kind(name) != "parquet":
        return
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pq.read_schema(source if isinstance(source, Path) else pa.BufferReader(source))
    if "text" not in schema.names:
        return  # the column check names what is missing
    field = schema.field("text").type
    if pa.types.is_dictionary(field):
        field = field.value_type
    textual = pa.types.is_string(field) or pa.types.is_large_string(field) or pa.types.is_null(field)
    if not (textual or str(field) == "string_view"):
        raise ValueError(f"{where}: column 'text' is of Parquet type {field}, not text; store the texts as strings")


def read_texts(path: str | Path) -> pd.DataFrame:
    """Read and validate a texts table from CSV or Parquet, or from a directory of such shards.

    A directory is read as the concatenation of its ``*.csv``, ``*.parquet``
    and ``*.pq`` files in name order (e.g. ``part-00000.parquet`` ...), so a
    corpus too large for one file can be handed over as shards.

    Raises
    ------
    ValueError
        If the path does not exist, a format is unknown, a directory holds no
        shards, or :func:`validate_texts` rejects the table.
    """
    p = Path(path)
    if p.is_dir():
        shards = sorted(f for f in p.iterdir() if f.is_file() and f.suffix.lower() in TABLE_SUFFIXES)
        if not shards:
            raise ValueError(f"texts directory {str(p)!r} holds no .csv or .parquet shards")
        frames = [_read_file(f) for f in shards]
        for shard, frame in zip(shards, frames):  # a concat would fill a shard's missing column with NaN
            _check_columns(frame, f"texts shard {str(shard)!r}")
            odd = sorted(set(map(str, frame.columns)) ^ set(map(str, frames[0].columns)))
            if odd:
                raise ValueError(f"texts shard {str(shard)!r}: its columns differ from those of {shards[0].name!r} in "
                                 f"{', '.join(map(repr, odd[:5]))}; give every shard the same columns")
        frame = pd.concat(frames, ignore_index=True)
        return validate_texts(frame, source=f"texts directory {str(p)!r} ({len(shards)} shards)")
    if not p.is_file():
        raise ValueError(f"texts file {str(p)!r} does not exist")
    return validate_texts(_read_file(p), source=f"texts file {str(p)!r}")


def read_texts_bytes(data: bytes, name: str) -> pd.DataFrame:
    """:func:`read_texts` for an uploaded file's bytes; ``name``'s extension picks the parser and names it in errors.

    Cells are read as :func:`read_texts` reads them: a text "NA" is a text, a carried ``007`` stays ``007``.
    """
    frame = read_table_bytes(data, name, text_columns=read_as_written)
    _check_parquet_text_type(name, data, name)
    return validate_texts(frame, source=name)


def validate_texts(frame: pd.DataFrame, *, source: str = "texts table") -> pd.DataFrame:
    """Check a texts table and return a copy with ``text`` as plain strings.

    A missing text (None/NaN) becomes the empty text, which scores NaN (see
    the package's NaN policy); it is not an error.

    Raises
    ------
    ValueError
        On a missing required column, an empty table, a missing or duplicate
        ``item_id``, a ``split`` outside {calibration, test}, or a ``member_<model>``
        label the score table would refuse (not 0 or 1 on a test row, not 1 or empty on a
        calibration row). The message names ``source`` and the column.
    """
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"{source}: expected a pandas DataFrame, got {type(frame).__name__}")
    _check_columns(frame, source)
    if frame.empty:
        raise ValueError(f"{source}: the table has no rows")
    ids = frame["item_id"]
    if ids.isna().any():
        raise ValueError(f"{source}: column 'item_id' has {int(ids.isna().sum())} missing value(s)")
    blank = ids.astype(str).str.strip() == ""
    if blank.any():  # jecs select refuses an empty id: refused here, before any model runs
        raise ValueError(f"{source}: column 'item_id' is empty at row {int(blank.to_numpy().argmax()) + 1} "
                         f"({int(blank.sum())} such row(s)); every text needs an id")
    dup = ids[ids.duplicated()]
    if not dup.empty:
        raise ValueError(f"{source}: column 'item_id' must be unique; repeated: {[str(v) for v in dup.unique()[:5]]}")
    # As in a score table: any letter case, spaces around the word ignored; a missing cell is no split.
    words = frame["split"].where(frame["split"].notna(), "").astype(str).str.strip().str.lower()
    bad = ~words.isin(SPLITS)
    if bad.any():
        raise ValueError(f"{source}: column 'split' must be 'calibration' or 'test'; {_odd_splits(frame['split'], bad)}")
    scores = [c for c in frame.columns if isinstance(c, str) and c.startswith("score_")]
    if scores:
        raise ValueError(f"{source}: column(s) {scores} would be read as models' scores in the score table this "
                         "writes; rename them (a texts table holds item_id, split, text and columns to carry)")
    _check_labels(frame, is_test=(words == "test").to_numpy(), source=source)
    out = frame.copy()
    text = out["text"].astype(object)  # a categorical column takes no new "" category; plain objects do
    out["text"] = text.where(text.notna(), "")
    _check_text_cells(out["text"], ids, source)
    out["text"] = out["text"].astype(str)
    return out


def _check_text_cells(text: pd.Series, ids: pd.Series, source: str) -> None:
    """Every cell a string a model can read: never a list, number or bytes turned into its printed form, and
    no unpaired surrogate (not UTF-8, so it could be neither hashed nor tokenized)."""
    for row, cell in enumerate(text.to_numpy()):
        if not isinstance(cell, str):
            raise ValueError(f"{source}: column 'text' must hold text; item {str(ids.iloc[row])!r} (row {row + 1}) "
                             f"holds a {type(cell).__name__}; store the texts as strings")
        if not cell.isascii():
            try:
                cell.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise ValueError(f"{source}: column 'text' of item {str(ids.iloc[row])!r} (row {row + 1}) holds an "
                                 f"unpaired surrogate at character {exc.start + 1}, which is not valid Unicode text; "
                                 "decode the source with errors='replace'") from None


def _odd_splits(split: pd.Series, bad: pd.Series) -> str:
    """What the refused ``split`` cells hold: a few of the words, and the empty cells with the first row."""
    values = split[bad]
    blank = (values.isna() | (values.astype(str).str.strip() == "")).to_numpy()
    words = sorted(map(str, values[~blank].unique()))
    parts = [f"found {words[:5]}"] if words else []
    if blank.any():
        row = int(bad.to_numpy().nonzero()[0][blank.argmax()]) + 1
        parts.append(f"{int(blank.sum())} empty cell(s), the first at row {row}")
    return " and ".join(parts)


def _check_columns(frame: pd.DataFrame, source: str) -> None:
    """The required columns, each by its exact name; a near miss (`` split``, ``Text``) is named with the fix."""
    missing = [c for c in REQUIRED_COLUMNS if c not in frame.columns]
    if missing:
        near = {c: str(x) for c in missing for x in frame.columns if str(x).strip().lower() == c}
        hint = "".join(f"; {near[c]!r} would be {c!r} without its spaces or capitals" for c in missing if c in near)
        raise ValueError(f"{source}: missing column(s) {', '.join(map(repr, missing))}; a texts table needs "
                         f"{', '.join(REQUIRED_COLUMNS)}{hint}")


def _check_labels(frame: pd.DataFrame, *, is_test, source: str) -> None:
    """Refuse before any model loads the member labels ``jecs select`` would refuse once scored."""
    import numpy as np

    from jecs_core.contract import MEMBER_PREFIX, Where, label_column

    where = Where(source, np.arange(len(frame)), False)
    for column in (c for c in frame.columns if isinstance(c, str) and c.startswith(MEMBER_PREFIX)):
        problem = label_column(frame[column], column, is_test, where)[1]
        if problem:
            raise ValueError(problem)
