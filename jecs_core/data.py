"""The score-table data contract: load, validate and hold a wide or long score table.

Wide table (CSV or Parquet): ``item_id`` (unique), ``split`` in {calibration, test},
``score_<model>`` per model, optional ``member_<model>`` (0/1), optional ``text``,
any other columns carried through untouched.

Long table: ``item_id, split, model, score[, member]``, pivoted to wide on load.

Row numbers in error messages are 1-based data rows (the header is not counted).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

SPLITS = ("calibration", "test")
SCORE_PREFIX = "score_"
MEMBER_PREFIX = "member_"
LONG_COLUMNS = ("item_id", "split", "model", "score")
_MAX_ROWS_LISTED = 5


class ScoreTableError(ValueError):
    """A score table that breaks the data contract; the message names file, column and rows."""


def _show(value) -> str:
    """repr() of a cell value without numpy's type wrapper (``2``, not ``np.int64(2)``)."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def _rows(mask_or_index, limit: int = _MAX_ROWS_LISTED) -> str:
    idx = np.flatnonzero(mask_or_index) if np.asarray(mask_or_index).dtype == bool else np.asarray(mask_or_index)
    shown = ", ".join(str(int(i) + 1) for i in idx[:limit])
    more = f" and {len(idx) - limit} more" if len(idx) > limit else ""
    return f"row{'s' if len(idx) > 1 else ''} {shown}{more}"


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
        Other columns of the test rows (e.g. ``text``), carried to the export.
    source : str
        Where the table came from (a path, or a description).
    source_sha256 : str or None
        SHA-256 of the source file's bytes.
    flipped : bool
        True when the scores were negated on load (``lower_is_member=True``).
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

    @property
    def n(self) -> int:
        return int(self.test.shape[0])

    @property
    def m(self) -> int:
        return int(self.calibration.shape[0])

    @property
    def K(self) -> int:
        return len(self.models)

    @property
    def has_labels(self) -> bool:
        return self.test_members is not None

    @property
    def contaminated(self) -> np.ndarray | None:
        """Test items that are members of at least one model (None without labels)."""
        return None if self.test_members is None else self.test_members.astype(bool).any(axis=1)

    def subset_models(self, models) -> "ScoreTable":
        """The same table restricted to ``models`` (names, in the given order)."""
        models = list(models)
        unknown = [m for m in models if m not in self.models]
        if unknown:
            raise ValueError(f"models {unknown} are not in this table (it has {list(self.models)})")
        idx = [self.models.index(m) for m in models]
        return ScoreTable(
            models=tuple(models),
            calibration=self.calibration[:, idx],
            test=self.test[:, idx],
            calibration_ids=self.calibration_ids,
            test_ids=self.test_ids,
            test_members=None if self.test_members is None else self.test_members[:, idx],
            test_extra=self.test_extra,
            source=self.source,
            source_sha256=self.source_sha256,
            flipped=self.flipped,
        )

    def to_frame(self) -> pd.DataFrame:
        """The table back in the wide layout (calibration rows first)."""
        parts = []
        for split, ids, scores in (("calibration", self.calibration_ids, self.calibration), ("test", self.test_ids, self.test)):
            part = pd.DataFrame({"item_id": ids, "split": split})
            for k, name in enumerate(self.models):
                part[SCORE_PREFIX + name] = scores[:, k]
            parts.append(part)
        if self.test_members is not None:
            for k, name in enumerate(self.models):
                parts[0][MEMBER_PREFIX + name] = 1
                parts[1][MEMBER_PREFIX + name] = self.test_members[:, k]
        for col in self.test_extra.columns:
            parts[1][col] = self.test_extra[col].to_numpy()
        return pd.concat(parts, ignore_index=True)


def file_sha256(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def read_table_file(path: str | Path) -> pd.DataFrame:
    """Read a CSV or Parquet file into a DataFrame (``item_id`` kept as text)."""
    path = Path(path)
    if not path.exists():
        raise ScoreTableError(f"{path}: file not found")
    if path.is_dir():
        raise ScoreTableError(f"{path}: is a directory, expected a .csv or .parquet file")
    suffix = path.suffix.lower()
    try:
        if suffix == ".parquet" or suffix == ".pq":
            frame = pd.read_parquet(path)
        elif suffix in (".csv", ".txt") or suffix == "":
            frame = pd.read_csv(path, dtype={"item_id": str}, keep_default_na=True)
        else:
            raise ScoreTableError(f"{path}: unsupported file type '{suffix}', expected .csv or .parquet")
    except ScoreTableError:
        raise
    except Exception as exc:  # pandas/pyarrow raise many types for unreadable files
        raise ScoreTableError(f"{path}: could not be read as {suffix.lstrip('.') or 'csv'} ({exc.__class__.__name__}: {exc})") from exc
    return frame


def detect_layout(frame: pd.DataFrame) -> str:
    """``"long"`` if the frame has the long columns and no ``score_`` columns, else ``"wide"``."""
    has_wide = any(str(c).startswith(SCORE_PREFIX) for c in frame.columns)
    has_long = all(c in frame.columns for c in ("model", "score"))
    return "long" if has_long and not has_wide else "wide"


def _long_to_wide(frame: pd.DataFrame, source: str) -> pd.DataFrame:
    missing = [c for c in LONG_COLUMNS if c not in frame.columns]
    if missing:
        raise ScoreTableError(f"{source}: long table is missing column(s) {missing}; expected {list(LONG_COLUMNS)}[, member]")
    frame = frame.copy()
    frame["item_id"] = frame["item_id"].astype(str)
    frame["model"] = frame["model"].astype(str)
    dup = frame.duplicated(["item_id", "model"], keep="first").to_numpy()
    if dup.any():
        first = frame.loc[dup, ["item_id", "model"]].iloc[0]
        raise ScoreTableError(
            f"{source}: column 'item_id'+'model': duplicate pair ({first['item_id']!r}, {first['model']!r}) at {_rows(dup)}"
        )
    split_per_item = frame.groupby("item_id", sort=False)["split"].nunique()
    mixed = split_per_item[split_per_item > 1]
    if len(mixed):
        raise ScoreTableError(f"{source}: column 'split': item {mixed.index[0]!r} has more than one split value across its rows")
    models = list(dict.fromkeys(frame["model"]))
    wide = frame.drop_duplicates("item_id")[["item_id", "split"]].reset_index(drop=True)
    scores = frame.pivot(index="item_id", columns="model", values="score")
    for model in models:
        wide[SCORE_PREFIX + model] = scores[model].reindex(wide["item_id"]).to_numpy()
    if "member" in frame.columns:
        labels = frame.pivot(index="item_id", columns="model", values="member")
        for model in models:
            wide[MEMBER_PREFIX + model] = labels[model].reindex(wide["item_id"]).to_numpy()
    missing_cells = wide[[SCORE_PREFIX + m for m in models]].isna()
    if missing_cells.to_numpy().any():
        row, col = np.argwhere(missing_cells.to_numpy())[0]
        raise ScoreTableError(
            f"{source}: long table has no row for item {wide['item_id'].iloc[row]!r} and model {models[col]!r}; "
            "every item needs one score per model"
        )
    return wide


def _numeric_column(frame: pd.DataFrame, column: str, source: str) -> np.ndarray:
    raw = frame[column]
    values = pd.to_numeric(raw, errors="coerce")
    text_cells = values.isna().to_numpy() & raw.notna().to_numpy()
    if text_cells.any():
        first = raw[text_cells].iloc[0]
        raise ScoreTableError(
            f"{source}: column '{column}': non-numeric value {_show(first)} at {_rows(text_cells)}; scores must be numbers"
        )
    arr = values.to_numpy(dtype=float)
    missing = np.isnan(arr)
    if missing.any():
        raise ScoreTableError(f"{source}: column '{column}': missing score (empty or NaN) at {_rows(missing)}")
    infinite = ~np.isfinite(arr)
    if infinite.any():
        raise ScoreTableError(f"{source}: column '{column}': non-finite score (inf) at {_rows(infinite)}")
    return arr


def _labels(frame: pd.DataFrame, column: str, rows: np.ndarray, source: str) -> np.ndarray:
    raw = frame[column]
    values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float)
    bad = rows & ~np.isin(values, (0.0, 1.0))
    if bad.any():
        first = raw[bad].iloc[0]
        raise ScoreTableError(
            f"{source}: column '{column}': label {_show(first)} at {_rows(bad)}; member labels must be 0 or 1 on every test row"
        )
    return values


def table_from_frame(
    frame: pd.DataFrame,
    *,
    source: str = "<memory>",
    layout: str = "auto",
    lower_is_member: bool = False,
    source_sha256: str | None = None,
) -> ScoreTable:
    """Validate a DataFrame against the data contract and build a :class:`ScoreTable`.

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

    Raises
    ------
    ScoreTableError
        Naming the file, column and rows of the first problem found.
    """
    if layout not in ("auto", "wide", "long"):
        raise ValueError(f"layout must be 'auto', 'wide' or 'long', got {layout!r}")
    if not isinstance(frame, pd.DataFrame):
        raise ScoreTableError(f"{source}: expected a table (pandas.DataFrame), got {type(frame).__name__}")
    if frame.shape[0] == 0:
        raise ScoreTableError(f"{source}: the table has no rows")
    frame = frame.copy()
    frame.columns = [str(c) for c in frame.columns]
    for required in ("item_id", "split"):
        if required not in frame.columns:
            raise ScoreTableError(f"{source}: missing required column '{required}' (columns found: {list(frame.columns)[:12]})")
    if layout == "long" or (layout == "auto" and detect_layout(frame) == "long"):
        frame = _long_to_wide(frame, source)

    ids_missing = frame["item_id"].isna().to_numpy()
    if ids_missing.any():
        raise ScoreTableError(f"{source}: column 'item_id': empty id at {_rows(ids_missing)}")
    ids = frame["item_id"].astype(str).to_numpy()
    dup = pd.Series(ids).duplicated(keep=False).to_numpy()
    if dup.any():
        raise ScoreTableError(f"{source}: column 'item_id': duplicate id {ids[dup][0]!r} at {_rows(dup)}; ids must be unique")

    split = frame["split"].astype(str).str.strip().str.lower().to_numpy()
    unknown = ~np.isin(split, SPLITS)
    if unknown.any():
        raise ScoreTableError(
            f"{source}: column 'split': unknown value {_show(frame['split'].to_numpy()[unknown][0])} at {_rows(unknown)}; "
            f"expected one of {list(SPLITS)}"
        )
    is_cal = split == "calibration"
    is_test = ~is_cal

    score_cols = [c for c in frame.columns if c.startswith(SCORE_PREFIX)]
    if not score_cols:
        raise ScoreTableError(
            f"{source}: no score columns; expected one column 'score_<model>' per model "
            "(or a long table with columns item_id, split, model, score)"
        )
    models = tuple(c[len(SCORE_PREFIX):] for c in score_cols)
    if any(not m for m in models):
        raise ScoreTableError(f"{source}: column 'score_' has no model name; name it 'score_<model>'")
    member_cols = [c for c in frame.columns if c.startswith(MEMBER_PREFIX)]
    member_models = tuple(c[len(MEMBER_PREFIX):] for c in member_cols)
    if member_cols and set(member_models) != set(models):
        only_scores = sorted(set(models) - set(member_models))
        only_members = sorted(set(member_models) - set(models))
        raise ScoreTableError(
            f"{source}: member columns do not match score columns: "
            f"score_ without member_: {only_scores}; member_ without score_: {only_members}"
        )

    if not is_cal.any():
        raise ScoreTableError(f"{source}: column 'split': no calibration rows; JECS needs known members to calibrate against")
    if not is_test.any():
        raise ScoreTableError(f"{source}: column 'split': no test rows; there is nothing to select from")
    for col in score_cols:
        values = pd.to_numeric(frame[col], errors="coerce")
        if values[is_cal].isna().all() and frame[col][is_cal].isna().all():
            raise ScoreTableError(f"{source}: column '{col}': model has no calibration rows (all calibration scores empty)")
        if values[is_test].isna().all() and frame[col][is_test].isna().all():
            raise ScoreTableError(f"{source}: column '{col}': model has no test rows (all test scores empty)")
    scores = np.column_stack([_numeric_column(frame, c, source) for c in score_cols])
    if lower_is_member:
        scores = -scores

    members = None
    if member_cols:
        members = np.column_stack([_labels(frame, MEMBER_PREFIX + m, is_test, source) for m in models])[is_test].astype(np.int8)

    extra_cols = [c for c in frame.columns if c not in ("item_id", "split") and c not in score_cols and c not in member_cols]
    extra = frame.loc[is_test, extra_cols].reset_index(drop=True)
    return ScoreTable(
        models=models,
        calibration=scores[is_cal],
        test=scores[is_test],
        calibration_ids=ids[is_cal],
        test_ids=ids[is_test],
        test_members=members,
        test_extra=extra,
        source=source,
        source_sha256=source_sha256,
        flipped=bool(lower_is_member),
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

    Raises
    ------
    ScoreTableError
        If the file cannot be read or breaks the data contract.
    """
    frame = read_table_file(path)
    return table_from_frame(
        frame, source=str(path), layout=layout, lower_is_member=lower_is_member, source_sha256=file_sha256(path)
    )
