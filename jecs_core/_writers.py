"""Writers of :mod:`jecs_core.io`: spreadsheet-safe cells, output-path checks, atomic writes.

Import them from :mod:`jecs_core.io`.
"""

from __future__ import annotations

import glob
import os
import re
import socket
import tempfile
import time
import zlib
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from ._fastcsv import write_csv
from .formats import CSV_SUFFIXES, WRITE_SUFFIXES

# Text cells starting with one of these are run as formulas by spreadsheets (OWASP "CSV injection").
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
# The quote put in front of them; a cell that already starts with it gets one more, so that dropping
# one leading quote gives every cell back and two cells never read the same once quoted.
QUOTE = "'"
_QUOTED_PREFIXES = (*FORMULA_PREFIXES, QUOTE)
# A plain decimal number ("-1.5", "+3e2") is read by a spreadsheet as a number, never as a formula;
# Python's float() also takes "-nan", "+inf" and "-1_000", which a spreadsheet runs as formulas.
_PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _numeric_text(values: np.ndarray) -> np.ndarray:
    """True where a string is a plain decimal number: a spreadsheet reads it as a number, not a formula."""
    return np.fromiter((_PLAIN_NUMBER.fullmatch(text) is not None for text in values), dtype=bool, count=len(values))


def spreadsheet_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells cannot run as spreadsheet formulas.

    A text cell (or column name) that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
    return gets a single quote in front (``=HYPERLINK(...)`` -> ``'=HYPERLINK(...)``), as OWASP
    recommends for CSV exports; spreadsheets show the quote-prefixed text as text. A cell that
    already starts with a quote gets one more (``'=1`` -> ``''=1``), so dropping one leading quote
    from every cell that has one gives the original text back, and no two cells read the same. A
    cell that is a plain decimal number written as text (``-1.5``) is left alone: a spreadsheet
    reads it as a number.
    Numeric, boolean and missing cells are untouched. Only columns holding text are scanned, so
    the cost is one vectorised ``startswith`` per text column.
    """
    out = frame.copy(deep=False)
    for column in out.columns:
        safe = _safe_cells(out[column])
        if safe is not None:
            out[column] = safe
    out.columns = [_safe_name(c) for c in out.columns]
    return out


def spreadsheet_safe_columns(columns: Mapping[str, object]) -> dict:
    """:func:`spreadsheet_safe` for a mapping of column name to 1-D array (an export's columns, no DataFrame).

    Parameters
    ----------
    columns : mapping of str to array_like
        The columns; numeric ones are passed through as they are.

    Returns
    -------
    dict
        The same columns with text cells and names neutralised; a column that needed no change is passed on
        as it came or, given as an array, as the pandas Series built to check it (the writer takes it without
        converting the cells again).
    """
    out = {}
    for name, values in columns.items():
        series = values if isinstance(values, pd.Series) else pd.Series(np.asarray(values), copy=False)
        safe = _safe_cells(series)
        out[_safe_name(name)] = series if safe is None else safe  # one-to-one: a quote is itself quoted
    return out


def _safe_name(name):
    if isinstance(name, str) and name.startswith(_QUOTED_PREFIXES) and not _numeric_text([name])[0]:
        return QUOTE + name
    return name


def _safe_cells(series: pd.Series) -> pd.Series | None:
    """The column with formula-leading text cells quote-prefixed, or ``None`` when none needs it."""
    if not (pd.api.types.is_object_dtype(series.dtype) or pd.api.types.is_string_dtype(series.dtype)):
        return None
    try:
        hit = series.str.startswith(_QUOTED_PREFIXES, na=False).to_numpy(dtype=bool)
    except (AttributeError, TypeError):  # cells that are not all text (bytes, lists): only text ones can be formulas
        hit = np.fromiter((isinstance(v, str) and v.startswith(_QUOTED_PREFIXES) for v in series.to_numpy(dtype=object)),
                          dtype=bool, count=len(series))
    if not hit.any():
        return None
    rows = np.flatnonzero(hit)
    texts = series.to_numpy(dtype=object)[rows]
    rows = rows[~_numeric_text(texts)]
    if not len(rows):
        return None
    values = series.to_numpy(dtype=object).copy()
    values[rows] = [QUOTE + str(v) for v in values[rows]]
    return pd.Series(values, index=series.index, dtype=object)


def csv_bytes(frame: pd.DataFrame, *, spreadsheet_safe: bool = True) -> bytes:
    """``frame`` as CSV bytes (no index) for a download: the bytes :func:`write_table` writes to a ``.csv``."""
    import io

    buffer = io.BytesIO()
    write_csv(_neutralise(frame) if spreadsheet_safe else frame, buffer)
    return buffer.getvalue()


_neutralise = spreadsheet_safe  # write_table's keyword of the same name shadows the function


def check_output_path(path: str | Path, *, suffixes=WRITE_SUFFIXES, inputs=(), what: str = "path") -> Path:
    """Refuse an output path with another extension, that is a directory, or that is one of ``inputs``.

    Errors start with ``what``: the argument or command-line flag the path came from.

    Paths are compared after resolving symlinks, so ``--out link-to-input.csv`` is caught too.
    """
    path = Path(path)
    if path.name.lower() in suffixes:  # ".csv" alone: Path reads it as a hidden file with no extension
        raise ValueError(f"{what}: {path} has no file name before {path.name}; name the file, e.g. out{path.name}")
    if path.is_dir():  # before the extension: "must end in .csv" would not say what is wrong with a folder
        example = "" if path.suffix.lower() in suffixes else f" inside it, e.g. {path / ('out' + suffixes[0])}"
        raise ValueError(f"{what}: {path} is a directory; name a file{example}")
    if path.suffix.lower() not in suffixes:
        raise ValueError(f"{what}: {path} must end in {' or '.join(suffixes)}")
    if not path.parent.is_dir():
        above = next((p for p in path.parents if p.exists()), None)
        if above is not None and not above.is_dir():
            raise ValueError(f"{what}: {above} is a file, not a directory; {path} cannot be written inside it")
        raise ValueError(f"{what}: directory {path.parent} does not exist")
    resolved = path.resolve()
    for source in inputs:
        if source is not None and Path(source).exists() and Path(source).resolve() == resolved:
            raise ValueError(f"{what}: {path} is the input file {source}; write the output somewhere else")
    return path


# Temporary files beside an output end in this; one older than STALE_SECONDS was left by a killed writer.
TEMP_SUFFIX = ".jecs-partial"
STALE_SECONDS = 3600.0


def _umask_mode() -> int:
    """0666 less the process umask: the mode ``open()`` would give a new file."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


def _host_tag() -> str:
    return f"{zlib.crc32(socket.gethostname().encode()) & 0xFFFFFFFF:08x}"


def _owner_tag() -> str:
    """``p<pid>h<host>``: which process on which machine writes a temporary file (read back by the cleanup)."""
    return f"p{os.getpid()}h{_host_tag()}"


_OWNER = re.compile(r"p(\d+)h([0-9a-f]{8})\.")


def _writer_is_gone(name: str, target: Path) -> bool:
    """True when the temporary file ``name`` was made by a process of this machine that no longer runs."""
    found = _OWNER.match(name[len(target.name) + 2:])
    if found is None or found.group(2) != _host_tag():
        return False  # another machine's (a shared folder) or an unnamed file: only its age tells
    try:
        os.kill(int(found.group(1)), 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError, OSError):
        return False  # alive under another user, or not a pid we can ask about
    return False


def _remove_stale_temps(target: Path) -> None:
    """Delete this target's temporary files left by a killed writer (SIGKILL): at once when the writer's
    process is gone from this machine, otherwise once they are older than an hour."""
    now = time.time()
    for temp in target.parent.glob(f".{glob.escape(target.name)}.*{TEMP_SUFFIX}"):
        try:
            if temp.is_file() and (_writer_is_gone(temp.name, target) or now - temp.stat().st_mtime > STALE_SECONDS):
                temp.unlink()
        except OSError:  # another writer's file, gone or not ours to delete: leave it
            pass


def write_files_atomic(writers: Mapping[str | Path, Callable[[Path], None]]) -> list[Path]:
    """Write several files both-or-neither: each writer fills a temporary file, then all are renamed.

    ``writers`` maps each target path to ``writer(temporary_path)``. If any writer fails, no
    target is touched. The temporary files live in the targets' directories (same file
    system), so each rename is atomic; they are named ``.<target>.p<pid>h<host>.<random>.jecs-partial``,
    and one left by a killed writer is deleted on the next write to that target (at once when its
    process is gone from this machine, else after an hour). The
    outputs get the mode the user's umask gives new files.
    """
    temps: list[tuple[Path, Path]] = []
    mode = _umask_mode()
    try:
        for target, writer in writers.items():
            target = Path(target)
            _remove_stale_temps(target)
            try:
                fd, name = tempfile.mkstemp(prefix=f".{target.name}.{_owner_tag()}.", suffix=TEMP_SUFFIX,
                                            dir=target.parent)
            except OSError as exc:  # name the file asked for, not the temporary one beside it
                raise OSError(f"{target}: cannot be written in {target.parent} ({exc.strerror})") from None
            os.close(fd)
            os.chmod(name, mode)  # mkstemp makes 0600; the output gets the mode any new file of the user's gets
            temps.append((Path(name), target))
            writer(Path(name))
        renamed: list[Path] = []
        try:
            for temp, target in temps:
                os.replace(temp, target)
                renamed.append(target)
        except OSError:
            for target in renamed:  # neither: take back what was already renamed
                target.unlink(missing_ok=True)
            raise
        return [target for _, target in temps]
    finally:
        for temp, _ in temps:
            temp.unlink(missing_ok=True)


def write_table(frame: pd.DataFrame, path: str | Path, *, spreadsheet_safe: bool = True, inputs=()) -> Path:
    """Write ``frame`` to ``.csv`` or ``.parquet`` (by extension) atomically, without the index.

    CSV cells are neutralised with :func:`spreadsheet_safe` unless ``spreadsheet_safe=False``;
    Parquet keeps typed values as they are. ``inputs`` lists paths the output must not overwrite.
    """
    path = check_output_path(path, inputs=inputs)
    as_csv = path.suffix.lower() in CSV_SUFFIXES
    data = _neutralise(frame) if (as_csv and spreadsheet_safe) else frame

    def _write(temp: Path) -> None:
        if as_csv:
            write_csv(data, temp)  # the bytes of data.to_csv(temp, index=False), faster
        else:
            data.to_parquet(temp, index=False)

    write_files_atomic({path: _write})
    return path
