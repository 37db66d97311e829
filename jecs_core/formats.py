"""File formats by suffix: the one table the readers, writers, upload checks and scoring inputs read.

A score table, a text table or a results table is CSV or Parquet; a file named ``.txt`` or
with no suffix is read as CSV.  Outputs are written as ``.csv`` or ``.parquet``.  Per-sample
lm-eval logs are JSON lines.
"""

from __future__ import annotations

from pathlib import PurePath

CSV_SUFFIXES = (".csv",)
PARQUET_SUFFIXES = (".parquet", ".pq")
# Read as CSV as well: what a spreadsheet or a shell often names a CSV export.
CSV_LIKE_SUFFIXES = CSV_SUFFIXES + (".txt", "")
TABLE_SUFFIXES = CSV_SUFFIXES + PARQUET_SUFFIXES
WRITE_SUFFIXES = (".csv", ".parquet")
JSONL_SUFFIXES = (".jsonl",)


def suffix(name) -> str:
    """The lower-cased suffix of a file name or path (``""`` when it has none)."""
    return PurePath(str(name)).suffix.lower()


def table_kind(name) -> str | None:
    """``"csv"`` or ``"parquet"`` for a table file's name, ``None`` for any other suffix.

    Parameters
    ----------
    name : str or os.PathLike
        A file name or path.

    Returns
    -------
    str or None

    Examples
    --------
    >>> table_kind("scores.PQ"), table_kind("scores.txt"), table_kind("scores.xlsx")
    ('parquet', 'csv', None)
    """
    found = suffix(name)
    if found in CSV_LIKE_SUFFIXES:
        return "csv"
    if found in PARQUET_SUFFIXES:
        return "parquet"
    return None


def file_head(handle) -> bytes:
    """The first bytes of a path or a seekable binary handle (``b""`` when they cannot be had)."""
    try:
        if isinstance(handle, str | PurePath):
            with open(handle, "rb") as raw:
                return raw.read(64)
        handle.seek(0)
        return bytes(handle.read(64))
    except Exception:  # noqa: BLE001 - a hint is optional
        return b""


def content_hint(head: bytes, *, text: bool = True) -> str:
    """What a file's first bytes say it is, when its name says otherwise: a hint to add to a read error
    (``""`` when the bytes say nothing useful). ``text=False``: the file is read as CSV already, so only a
    binary kind is worth naming."""
    if head.startswith(b"PAR1"):
        return "; it is a Parquet file (it starts with PAR1): name it .parquet"
    if head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        return "; it looks like a Python pickle, which is never read: save the table as CSV or Parquet"
    if head.startswith(b"\x1f\x8b"):
        return "; it is gzip-compressed: decompress it first"
    if head.startswith(b"PK\x03\x04"):
        return "; it is a zip archive (an Excel .xlsx is one): export the sheet as CSV UTF-8"
    if not text:
        return ""
    try:
        text = head.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 3:  # not just a character cut at the end of the head
            return ""
        text = head[:exc.start].decode("utf-8-sig")
    plain = all(ch.isprintable() or ch in "\r\n\t" for ch in text)
    return "; it looks like CSV text: name it .csv" if plain and ("," in text or ";" in text) else ""


__all__ = ["CSV_LIKE_SUFFIXES", "CSV_SUFFIXES", "JSONL_SUFFIXES", "PARQUET_SUFFIXES", "TABLE_SUFFIXES",
           "WRITE_SUFFIXES", "content_hint", "file_head", "suffix", "table_kind"]
