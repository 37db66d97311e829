"""Score tables: the validated :class:`ScoreTable` and the functions that load one.

What a usable table is (wide and long layouts, covariates, reserved names, the minimum calibration size) is
defined and checked in :mod:`jecs_core.contract`; files are read by :mod:`jecs_core.io`. Errors are
:class:`ScoreTableError`: one line naming the file, column and rows; ``error.problems`` lists every problem found.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from ._columns import by_split
from ._csv_chunks import read_clean_wide_csv
from ._csv_rows import sheet_rows
from ._long import detect_layout
from ._rows import row_any
from ._table_blocks import model_indices, settle_blocks
from ._validation import check_bool
from .contract import (
    COVARIATE_PREFIX,
    MEMBER_PREFIX,
    MIN_CALIBRATION,
    SCORE_PREFIX,
    SPLITS,
    calibration_warnings,
    check_frame,
    validate_frame,
)
from .io import LONG_TABLE_COLUMNS, ScoreTableError, file_sha256, read_as_written, read_table, read_table_bytes


@dataclass(frozen=True)
class ScoreTable:
    """A validated score table, split into calibration and test parts.

    Attributes
    ----------
    models : tuple of str
        Model names (the ``<model>`` of ``score_<model>``), in column order.
    calibration, test : numpy.ndarray, shape (m, K) and (n, K)
        Scores oriented larger = more member-like.
    calibration_ids, test_ids : numpy.ndarray of str
    test_members : numpy.ndarray of int8, shape (n, K), or None
        Member labels of the test items, when the table has them.
    test_extra : pandas.DataFrame
        Other columns of the test rows (``text``, ``x_<name>`` covariates, ...), carried to the export.
    source : str
        Where the table came from (a path, or a description).
    source_sha256 : str or None
        SHA-256 of the source file's bytes.
    flipped : bool
        True when the scores were negated on load (``lower_is_member=True``).
    covariate_names : tuple of str
        The ``<name>`` of each ``x_<name>`` column, in column order.
    covariates, calibration_covariates : numpy.ndarray, shape (n, d) and (m, d)
        Covariate values of the test and calibration rows (d = 0 without covariates).
    calibration_extra : pandas.DataFrame
        The carried columns of the calibration rows.
    """

    models: tuple[str, ...]
    calibration: np.ndarray
    test: np.ndarray
    calibration_ids: np.ndarray
    test_ids: np.ndarray
    test_members: np.ndarray | None = None
    test_extra: pd.DataFrame = field(default_factory=pd.DataFrame)
    source: str = "<memory>"
    source_sha256: str | None = None
    flipped: bool = False
    covariate_names: tuple[str, ...] = ()
    covariates: np.ndarray | None = None
    calibration_covariates: np.ndarray | None = None
    calibration_extra: pd.DataFrame = field(default_factory=pd.DataFrame)

    def __post_init__(self):
        settle_blocks(self)  # a hand-built table: blocks that disagree are refused here, naming the field

    n = property(lambda self: int(self.test.shape[0]), doc="The number of test items.")
    m = property(lambda self: int(self.calibration.shape[0]), doc="The number of calibration items.")
    K = property(lambda self: len(self.models), doc="The number of models.")
    has_labels = property(lambda self: self.test_members is not None, doc="Whether the test items carry member labels.")

    @property
    def contaminated(self) -> np.ndarray | None:
        """Test items that are members of at least one model (None without labels)."""
        return None if self.test_members is None else row_any(self.test_members)

    def warnings(self, alpha: float) -> list[str]:
        """One-line warnings about this table at level ``alpha`` (see :func:`jecs_core.contract.calibration_warnings`)."""
        return calibration_warnings(self.m, self.n, alpha)

    def subset_models(self, models) -> ScoreTable:
        """The same table restricted to some of its models.

        Parameters
        ----------
        models : sequence of str
            Distinct model names of this table, in the order wanted (a list, not one string).

        Returns
        -------
        ScoreTable
            Those models' scores and labels; ids, splits, covariates and carried columns unchanged.
        """
        models, idx = model_indices(tuple(self.models), models)
        return replace(self, models=models, calibration=self.calibration[:, idx], test=self.test[:, idx],
                       test_members=None if self.test_members is None else self.test_members[:, idx])

    def to_frame(self) -> pd.DataFrame:
        """The table back in the wide layout (calibration rows first), carried columns included."""
        frames = []
        for split, ids, scores, extra in (("calibration", self.calibration_ids, self.calibration, self.calibration_extra),
                                          ("test", self.test_ids, self.test, self.test_extra)):
            part = pd.DataFrame({"item_id": ids, "split": split})
            for k, name in enumerate(self.models):
                part[SCORE_PREFIX + name] = scores[:, k]
            for k, name in enumerate(self.models if self.test_members is not None else ()):  # calibration: members
                part[MEMBER_PREFIX + name] = 1 if split == "calibration" else self.test_members[:, k]
            for col in extra.columns:
                part[col] = extra[col].to_numpy()
            frames.append(part)
        return pd.concat(frames, ignore_index=True)


def table_from_frame(
    frame: pd.DataFrame,
    *,
    source: str = "<memory>",
    layout: str = "auto",
    lower_is_member: bool = False,
    source_sha256: str | None = None,
    from_file: object = False,
) -> ScoreTable:
    """Validate a DataFrame against the data contract (:mod:`jecs_core.contract`) and build a :class:`ScoreTable`.

    Parameters
    ----------
    frame : pandas.DataFrame
        Wide or long table.
    source : str
        Name used in error messages (usually the file path).
    layout : {"auto", "wide", "long"}
        ``"auto"`` treats a table with ``model`` and ``score`` columns and no
        ``score_`` columns as long.
    lower_is_member : bool
        Set when the file's scores run the other way (smaller = more member-like,
        e.g. raw perplexity or loss); they are negated on load.
    source_sha256 : str, optional
        Hash of the source bytes, recorded in exports.
    from_file : bool or jecs_core._csv_rows.SheetRows
        Read from a CSV file: messages add the spreadsheet row (header = row 1; SheetRows counts blank lines).

    Returns
    -------
    ScoreTable
        Test and calibration score matrices, item ids, model names, labels and covariates.

    Raises
    ------
    ScoreTableError
        Naming the file, column and rows of the first problem; ``.problems`` lists them all.

    Examples
    --------
    >>> import pandas as pd
    >>> table = table_from_frame(pd.DataFrame({
    ...     "item_id": ["c1", "c2", "c3", "t1", "t2"], "split": ["calibration"] * 3 + ["test"] * 2,
    ...     "score_a": [2.0, 3.0, 4.0, 0.5, 3.5], "score_b": [1.0, 2.5, 3.0, 0.1, 2.8]}))
    >>> table.n, table.m, table.K, table.models
    (2, 3, 2, ('a', 'b'))
    """
    lower_is_member = check_bool(lower_is_member, "lower_is_member")
    checked, problems = check_frame(frame, source=source, layout=layout, from_file=from_file)
    if problems:
        raise ScoreTableError(problems[0], problems)
    is_cal, is_test = checked.is_calibration, ~checked.is_calibration
    scores = -checked.scores if lower_is_member else checked.scores
    calibration, test = by_split(scores, is_cal)
    carried = set(checked.extra_columns) | {COVARIATE_PREFIX + c for c in checked.covariate_names}
    extra = checked.frame.loc[:, [c for c in checked.frame.columns if c in carried]]  # input column order
    return ScoreTable(
        models=checked.models,
        calibration=calibration,
        test=test,
        calibration_ids=checked.ids[is_cal],
        test_ids=checked.ids[is_test],
        test_members=checked.members,
        test_extra=extra.loc[is_test].reset_index(drop=True),
        source=source,
        source_sha256=source_sha256,
        flipped=lower_is_member,
        covariate_names=checked.covariate_names,
        covariates=checked.covariates[is_test],
        calibration_covariates=checked.covariates[is_cal],
        calibration_extra=extra.loc[is_cal].reset_index(drop=True),
    )


def load_scores(path: str | Path, *, layout: str = "auto", lower_is_member: bool = False) -> ScoreTable:
    """Load and validate a score table from a CSV or Parquet file.

    Parameters
    ----------
    path : str or pathlib.Path
        ``.csv`` or ``.parquet`` file in the wide or long layout.
    layout : {"auto", "wide", "long"}
        See :func:`table_from_frame`.
    lower_is_member : bool
        Set when smaller scores mean more member-like; scores are negated on load.

    Returns
    -------
    ScoreTable
        Test and calibration score matrices, item ids, model names, labels and covariates.

    Raises
    ------
    ScoreTableError
        If the file cannot be read or breaks the data contract.

    Notes
    -----
    A wide CSV of 16 MiB or more that passes the contract is read a block of rows at a time, at about half
    the peak memory of the whole-file read, which takes any file with a problem (equal tables).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "scores.csv"
    >>> _ = path.write_text("item_id,split,score_a\\nc1,calibration,2.0\\nc2,calibration,3.0\\nt1,test,0.5\\n")
    >>> table = load_scores(path)
    >>> table.n, table.m, table.models
    (1, 2, ('a',))
    """
    if not isinstance(path, (str, os.PathLike)):
        raise ValueError(f"path must be a file path (str or pathlib.Path), got {type(path).__name__}")
    lower_is_member = check_bool(lower_is_member, "lower_is_member")
    # The file is hashed beside the parse (hashlib releases the GIL); only a regular file (a FIFO
    # would block the hash): read_table refuses anything else with its own message.
    with ThreadPoolExecutor(max_workers=1) as beside:
        digest = beside.submit(file_sha256, path) if Path(path).is_file() else None
        chunked = read_clean_wide_csv(path, source=str(path), layout=layout, lower_is_member=lower_is_member)
        if chunked is not None:
            return ScoreTable(**chunked, source=str(path), source_sha256=digest.result())
        frame = read_table(path, text_columns=lambda header: read_as_written(header, layout))
    return table_from_frame(frame, source=str(path), layout=layout, lower_is_member=lower_is_member,
                            source_sha256=digest.result(), from_file=sheet_rows(path))


def load_scores_bytes(data: bytes, name: str, *, layout: str = "auto", lower_is_member: bool = False,
                      progress: Callable[[str], None] | None = None) -> ScoreTable:
    """:func:`load_scores` for uploaded bytes.

    Parameters
    ----------
    data : bytes
        The file's content (CSV or Parquet; never unpickled).
    name : str
        The file's name: its suffix picks the parser, and messages name it.
    layout, lower_is_member
        As in :func:`load_scores`.
    progress : callable, optional
        ``progress(step)`` is told each stage in words (reading, checking the contract).

    Returns
    -------
    ScoreTable

    Examples
    --------
    >>> table = load_scores_bytes(b"item_id,split,score_a\\nc1,calibration,2.0\\nt1,test,0.5\\n", "up.csv")
    >>> table.n, table.m, table.K
    (1, 1, 1)
    """
    lower_is_member = check_bool(lower_is_member, "lower_is_member")
    report = progress or (lambda step: None)
    report(f"Reading {name} ({len(data) / 1e6:,.1f} MB)…")
    frame = read_table_bytes(data, name, text_columns=lambda header: read_as_written(header, layout))
    report(f"Checking {len(frame):,} rows against the data contract…")
    return table_from_frame(frame, source=str(name), layout=layout, lower_is_member=lower_is_member,
                            source_sha256=hashlib.sha256(data).hexdigest(), from_file=sheet_rows(data, name))


__all__ = ["COVARIATE_PREFIX", "LONG_TABLE_COLUMNS", "MEMBER_PREFIX", "MIN_CALIBRATION", "SCORE_PREFIX", "SPLITS",
           "ScoreTable", "ScoreTableError", "calibration_warnings", "detect_layout", "load_scores", "load_scores_bytes",
           "table_from_frame", "validate_frame"]
