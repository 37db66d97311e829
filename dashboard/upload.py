"""Uploaded bytes -> a validated :class:`jecs_core.ScoreTable` (CSV or Parquet only, never pickle).

The Data page's file uploader and the tests both go through :func:`parse_upload`,
so the validation a user sees is the one the tests check.
"""

from __future__ import annotations

import hashlib
import io
from pathlib import PurePath

import pandas as pd

from jecs_core import ScoreTable, ScoreTableError, table_from_frame

# Used when Streamlit's ``server.maxUploadSize`` (in MB, see .streamlit/config.toml) is not available.
DEFAULT_MAX_UPLOAD_MB = 200
UPLOAD_TYPES = ("csv", "parquet")
_PARQUET_SUFFIXES = (".parquet", ".pq")


def _read_frame(name: str, data: bytes) -> pd.DataFrame:
    suffix = PurePath(name).suffix.lower()
    buffer = io.BytesIO(data)
    try:
        if suffix in _PARQUET_SUFFIXES:
            return pd.read_parquet(buffer)  # Arrow columns only; nothing is unpickled
        if suffix == ".csv":
            return pd.read_csv(buffer, dtype={"item_id": str}, keep_default_na=True)
    except pd.errors.EmptyDataError:
        raise ScoreTableError(f"{name}: the file is empty") from None
    except Exception as exc:  # parsers raise many types for malformed input
        kind = "Parquet" if suffix in _PARQUET_SUFFIXES else "CSV"
        raise ScoreTableError(f"{name}: could not be read as {kind} ({exc.__class__.__name__}: {exc})") from None
    raise ScoreTableError(f"{name}: unsupported file type '{suffix or '(none)'}'; upload a .csv or .parquet file")


def parse_upload(
    name: str,
    data: bytes,
    *,
    layout: str = "auto",
    lower_is_member: bool = False,
    max_mb: float = DEFAULT_MAX_UPLOAD_MB,
) -> ScoreTable:
    """Validate an uploaded score table.

    Parameters
    ----------
    name : str
        The uploaded file's name; its suffix picks the parser and it names the file in errors.
    data : bytes
        The file's content.
    layout : {"auto", "wide", "long"}
        See :func:`jecs_core.table_from_frame`.
    lower_is_member : bool
        Scores run the other way (smaller = more member-like); they are negated on load.
    max_mb : float
        Size limit in megabytes.

    Raises
    ------
    jecs_core.ScoreTableError
        With a readable message naming the file and, for contract errors, the column and rows.
    """
    size_mb = len(data) / 1e6
    if size_mb > max_mb:
        raise ScoreTableError(
            f"{name}: the file is {size_mb:,.1f} MB, above the dashboard's limit of {max_mb:g} MB "
            "(server.maxUploadSize in .streamlit/config.toml); use the command line (`jecs select`) for larger tables"
        )
    frame = _read_frame(name, data)
    return table_from_frame(
        frame,
        source=name,
        layout=layout,
        lower_is_member=lower_is_member,
        source_sha256=hashlib.sha256(data).hexdigest(),
    )


def upload_key(table: ScoreTable, layout: str) -> str:
    """A cache key that changes whenever the bytes or the load options do."""
    return f"upload:{table.source_sha256}:{layout}:{int(table.flipped)}"
