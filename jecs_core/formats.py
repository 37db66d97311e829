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


__all__ = ["CSV_LIKE_SUFFIXES", "CSV_SUFFIXES", "JSONL_SUFFIXES", "PARQUET_SUFFIXES", "TABLE_SUFFIXES",
           "WRITE_SUFFIXES", "suffix", "table_kind"]
