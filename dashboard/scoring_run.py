"""Glue between the Score page and the optional ``scoring`` package (no torch import here).

The page lets a user name local model directories and a texts table; these
helpers parse that input with clear errors and turn the scoring output into the
active score table.
"""

from __future__ import annotations

import importlib.util
import tempfile
from pathlib import Path

import numpy as np

from jecs_core import ScoreTable, table_from_frame


def scoring_available() -> str | None:
    """``None`` when torch and transformers are importable, else what is missing."""
    missing = [name for name in ("torch", "transformers") if importlib.util.find_spec(name) is None]
    return ", ".join(missing) or None


def parse_model_lines(text: str) -> dict[str, str]:
    """``NAME=PATH`` per line (blank lines and ``#`` comments ignored) -> ``{name: path}``.

    Raises
    ------
    ValueError
        Naming the line that is not ``NAME=PATH``, a repeated name, or no model at all.
    """
    models: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, path = line.partition("=")
        name, path = name.strip(), path.strip()
        if not sep or not name or not path:
            raise ValueError(f"models, line {number}: expected NAME=PATH (a local model directory or .gguf file), got {line!r}")
        if name in models:
            raise ValueError(f"models, line {number}: the name {name!r} is used twice")
        models[name] = path
    if not models:
        raise ValueError("models: name at least one model as NAME=PATH, one per line")
    return models


def read_uploaded_texts(name: str, data: bytes):
    """Validate an uploaded texts table (CSV or Parquet, never unpickled) via ``scoring.read_texts``."""
    from scoring import read_texts

    suffix = Path(name).suffix.lower()
    if suffix not in (".csv", ".parquet", ".pq"):
        raise ValueError(f"{name}: expected a .csv or .parquet texts table")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"texts{suffix}"
        path.write_bytes(data)
        try:
            return read_texts(path)
        except ValueError as exc:
            raise ValueError(str(exc).replace(str(path), name)) from None


def scored_table(wide, *, source: str) -> tuple[ScoreTable, list[str]]:
    """The scoring output as a validated score table, without the items that scored NaN.

    Texts with nothing to score (empty, or a single token without BOS) get NaN
    scores; they cannot be selected, so they are dropped here and returned so the
    page can list them.
    """
    score_cols = [c for c in wide.columns if c.startswith("score_")]
    nan_rows = wide[score_cols].isna().any(axis=1).to_numpy()
    dropped = [str(i) for i in wide.loc[nan_rows, "item_id"]]
    kept = wide.loc[~nan_rows].reset_index(drop=True)
    if not len(kept):
        raise ValueError("every text scored NaN (nothing to score); check the texts and the models' tokenizers")
    return table_from_frame(kept, source=source), dropped


def finite_fraction(values) -> float:
    arr = np.asarray(values, dtype=float)
    return float(np.isfinite(arr).mean()) if arr.size else 0.0
