"""Writing one score-cache part from plain columns, without pandas.

A Ray scoring actor writes its shard's part itself; keeping pandas (about 0.3 s to import,
``benchmarks/RESULTS.md``, "Ray engine vs local engine") out of that path shortens every
cold actor's start. :class:`scoring.cache.ScoreCache` writes through the same function, so a
part reads back the same whichever engine wrote it, and its file name carries
:func:`columns_digest` of its content.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import uuid
from collections.abc import Mapping
from pathlib import Path

import numpy as np

#: Columns every part has before its score columns.
ROW_COLUMNS = ("text_sha", "n_scored", "truncated", "max_length")


def cache_columns(names) -> tuple[str, ...]:
    """The columns of a part holding the scores ``names``."""
    return (*ROW_COLUMNS, *names)


def columns_digest(columns: Mapping[str, object]) -> str:
    """SHA-256 of a part's content: each column's name, then its values in a fixed encoding.

    ``text_sha`` is hashed as its strings joined by newlines, every other column as float64
    bytes, so the digest depends on the values, not on the integer or string type a reader gives.
    """
    digest = hashlib.sha256()
    for column, values in columns.items():
        digest.update(f"\0{column}\0".encode())
        if column == "text_sha":
            digest.update("\n".join(map(str, values)).encode())
        else:
            digest.update(np.ascontiguousarray(np.asarray(values, dtype=np.float64)).tobytes())
    return digest.hexdigest()


def concatenated(parts: list[dict[str, np.ndarray]], names) -> dict[str, np.ndarray]:
    """The cache rows of ``parts`` (each a mapping of :func:`cache_columns` to arrays) one after the other."""
    if not parts:
        empty = {"text_sha": np.array([], dtype=object), "n_scored": np.array([], dtype=np.int64),
                 "truncated": np.array([], dtype=bool), "max_length": np.array([], dtype=np.int64)}
        return {**empty, **{name: np.array([], dtype=np.float64) for name in names}}
    return {column: np.concatenate([part[column] for part in parts]) for column in cache_columns(names)}


def write_part(directory: Path, meta: dict, columns: Mapping[str, object], *, tag: str = "") -> Path | None:
    """Add the rows ``columns`` (names in part order, equal-length arrays) as a new part, atomically.

    Writes ``meta.json`` first when the directory has none. Returns the part's path, or ``None``
    when there are no rows.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrays = {name: np.asarray(values) for name, values in columns.items()}
    if not arrays or len(next(iter(arrays.values()))) == 0:
        return None
    directory.mkdir(parents=True, exist_ok=True)
    meta_path = directory / "meta.json"
    if not meta_path.exists():
        tmp_meta = directory / f".meta.{uuid.uuid4().hex[:8]}.tmp"
        tmp_meta.write_text(json.dumps(meta, indent=2, sort_keys=True))
        os.replace(tmp_meta, meta_path)
    table = pa.Table.from_arrays([_arrow_array(pa, values) for values in arrays.values()], names=list(arrays))
    # Time first, so that sorted names are in write order ("last wins"); the content hash last.
    name = f"part-{time.time_ns():020d}{tag}-{uuid.uuid4().hex[:8]}-{columns_digest(arrays)[:32]}.parquet"
    tmp = directory / f".{name}.tmp"
    pq.write_table(table, tmp)
    os.replace(tmp, directory / name)
    return directory / name


def _arrow_array(pa, values: np.ndarray):
    """One column as an Arrow array built from its buffers: ``pa.array`` imports pandas to inspect its input.

    Booleans, integers (as int64) and floats (as float64, NaN kept as a value) are copied as they
    are, strings written as UTF-8; an object column of anything else is read as the numpy array of its values.
    """
    n = len(values)
    if values.dtype == np.bool_:
        return pa.Array.from_buffers(pa.bool_(), n, [None, pa.py_buffer(np.packbits(values, bitorder="little"))])
    if values.dtype.kind in "iu":
        return pa.Array.from_buffers(pa.int64(), n, [None, pa.py_buffer(np.ascontiguousarray(values, np.int64))])
    if values.dtype.kind == "f":
        return pa.Array.from_buffers(pa.float64(), n, [None, pa.py_buffer(np.ascontiguousarray(values, np.float64))])
    if values.dtype == object and not all(isinstance(value, str) for value in values):
        inferred = np.array(values.tolist())
        if inferred.dtype.kind not in "biuf":
            raise TypeError(f"a score-cache column holds values of mixed types ({inferred[:3].tolist()!r}, ...)")
        return _arrow_array(pa, inferred)
    encoded = [str(value).encode("utf-8") for value in values]
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    return pa.Array.from_buffers(pa.large_string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))])
