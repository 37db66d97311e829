"""Score a texts table under K models: one model in memory at a time, cached, resumable.

:func:`run_scoring` is the entry point for the CLI and the dashboard. It
returns a :class:`~scoring.results.ScoringOutput` holding the wide score table
of the data contract (``item_id, split, text, score_<model>...`` plus carried
columns such as ``member_<model>``), the long table of all four scores, and a
report.

Torch is imported only when a model actually has to be loaded.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .cache import CACHE_COLUMNS, ScoreCache, text_digest
from .results import ModelReport, ScoringOutput, ScoringReport, assemble_output
from .settings import (
    DEFAULT_CACHE_DIR,
    DEFAULT_SCORE,
    DEFAULT_TOKEN_BUDGET,
    SCORE_NAMES,
    ScoreSettings,
    check_score_name,
    check_token_budget,
)
from .sources import ModelSource, check_models
from .texts import validate_texts

#: ``progress(done, total, message)``; units are (model, distinct text) pairs.
ProgressFn = Callable[[int, int, str], None]

#: An interrupted run loses at most this much scoring work.
FLUSH_SECONDS = 30.0


class _RowBuffer:
    """Collects one model's fresh rows; writes them to the cache every so often."""

    def __init__(self, cache: ScoreCache | None):
        self.cache = cache
        self.frames: list[pd.DataFrame] = []
        self.pending: list[pd.DataFrame] = []
        self.last_flush = time.monotonic()

    def add(self, rows: pd.DataFrame) -> None:
        self.frames.append(rows)
        self.pending.append(rows)
        if time.monotonic() - self.last_flush >= FLUSH_SECONDS:
            self.flush()

    def flush(self) -> None:
        if self.cache is not None and self.pending:
            self.cache.write(pd.concat(self.pending, ignore_index=True))
        self.pending = []
        self.last_flush = time.monotonic()

    def result(self) -> pd.DataFrame:
        if not self.frames:
            return pd.DataFrame(columns=list(CACHE_COLUMNS)).set_index("text_sha")
        return pd.concat(self.frames, ignore_index=True).set_index("text_sha")


@dataclass(frozen=True)
class _ModelRows:
    rows: pd.DataFrame  # CACHE_COLUMNS, indexed by text digest
    device: str
    dtype: str
    n_from_cache: int
    n_scored: int


def _rows(digests: list[str], encoded, positions: np.ndarray, scores: np.ndarray) -> pd.DataFrame:
    frame = pd.DataFrame(scores, columns=list(SCORE_NAMES))
    frame.insert(0, "text_sha", [digests[i] for i in positions])
    frame.insert(1, "n_scored", encoded.n_scored[positions])
    frame.insert(2, "truncated", encoded.truncated[positions])
    frame.insert(3, "max_length", encoded.max_length)
    return frame


def _score_model(
    name: str,
    source: ModelSource,
    texts_by_digest: dict[str, str],
    *,
    settings: ScoreSettings,
    token_budget: int,
    device: str | None,
    dtype: str | None,
    cache_dir: Path | None,
    tick: Callable[[int, str], None],
) -> _ModelRows:
    """Cache-format rows for every distinct text under one model."""
    from . import loading
    from .batching import encode_texts
    from .engine import effective_max_length, score_encoded

    dev = loading.resolve_device(device)
    dt = loading.resolve_dtype(dev, dtype)
    dtype_name = loading.dtype_name(dt)
    cache = None
    if cache_dir is not None:
        cache = ScoreCache.open(cache_dir, source, settings, device_type=dev.type, dtype=dtype_name)
    cached = cache.load() if cache is not None else None
    missing = [d for d in texts_by_digest if cached is None or d not in cached.index]
    n_hit = len(texts_by_digest) - len(missing)
    if n_hit:
        tick(n_hit, f"{name}: {n_hit} texts from cache")
    if not missing:
        return _ModelRows(cached, str(dev), dtype_name, n_from_cache=n_hit, n_scored=0)

    tick(0, f"{name}: loading the model")
    buffer = _RowBuffer(cache)
    loaded = loading.load_model(source, device=str(dev), dtype=dtype_name)
    try:
        encoded = encode_texts(
            loaded.tokenizer,
            [texts_by_digest[d] for d in missing],
            max_length=effective_max_length(settings, loaded.max_positions),
            prepend_bos=settings.prepend_bos,
        )
        # Texts with nothing to score never reach the model; they are NaN rows.
        empty = np.flatnonzero(encoded.n_scored == 0)
        if empty.size:
            buffer.add(_rows(missing, encoded, empty, np.full((empty.size, len(SCORE_NAMES)), np.nan)))
            tick(int(empty.size), f"{name}: scoring")

        def on_batch(batch) -> None:
            buffer.add(_rows(missing, encoded, batch.indices, batch.scores))
            tick(len(batch.indices), f"{name}: scoring")

        score_encoded(
            loaded.model, encoded, settings=settings, token_budget=token_budget, device=loaded.device, on_batch=on_batch
        )
    finally:
        # Runs on interruption too, so the next run resumes from here.
        buffer.flush()
        del loaded
        loading.free_memory()
    if cache is not None:
        cache.compact()
    fresh = buffer.result()
    rows = fresh if cached is None or cached.empty else pd.concat([cached, fresh])
    return _ModelRows(rows, str(dev), dtype_name, n_from_cache=n_hit, n_scored=len(missing))


def run_scoring(
    texts: pd.DataFrame,
    models: Mapping[str, str | Path | ModelSource],
    score: str = DEFAULT_SCORE,
    *,
    settings: ScoreSettings | None = None,
    token_budget: int = DEFAULT_TOKEN_BUDGET,
    device: str | None = None,
    dtype: str | None = None,
    cache_dir: str | Path | None = DEFAULT_CACHE_DIR,
    progress: ProgressFn | None = None,
) -> ScoringOutput:
    """Score every text under every model; return the wide and long tables.

    Parameters
    ----------
    texts : pandas.DataFrame
        ``item_id, split, text`` and optional carried columns (e.g.
        ``member_<model>``); see :func:`scoring.texts.validate_texts`.
    models : mapping of str to path
        Model name -> Hugging Face directory, or ``.../file.gguf``. Names
        become the ``score_<name>`` columns.
    score : {"ppl", "mink", "minkpp", "mentr"}
        The score written to the wide table (all four are in ``long``).
    settings : ScoreSettings, optional
        k ratios, ``max_length`` and ``prepend_bos``.
    token_budget : int
        Padded tokens per batch; lower it when memory runs out.
    device, dtype : str, optional
        Overrides (default: CUDA if available else CPU; bf16 on GPUs that
        support it else float32).
    cache_dir : path or None
        Score cache (see :mod:`scoring.cache`); ``None`` disables caching.
    progress : callable, optional
        ``progress(done, total, message)`` after each batch, in (model,
        distinct text) units.

    Returns
    -------
    ScoringOutput

    Raises
    ------
    ValueError
        Bad texts table, model path or setting. A text with nothing to score
        is not an error: its scores are NaN and listed in the report.
    """
    check_score_name(score)
    settings = ScoreSettings() if settings is None else settings
    token_budget = check_token_budget(token_budget)
    sources = check_models(dict(models))
    table = validate_texts(texts)
    clash = [f"score_{n}" for n in sources if f"score_{n}" in table.columns]
    if clash:
        raise ValueError(f"texts table already has column(s) {', '.join(clash)}; rename them or the models")

    digests = [text_digest(t) for t in table["text"]]
    texts_by_digest = dict(zip(digests, table["text"]))
    total = len(texts_by_digest) * len(sources)
    done = 0

    def tick(n: int, message: str) -> None:
        nonlocal done
        done += n
        if progress is not None:
            progress(done, total, message)

    per_model: dict[str, np.ndarray] = {}
    reports = []
    for name, source in sources.items():
        start = time.perf_counter()
        result = _score_model(
            name,
            source,
            texts_by_digest,
            settings=settings,
            token_budget=token_budget,
            device=device,
            dtype=dtype,
            cache_dir=None if cache_dir is None else Path(cache_dir),
            tick=tick,
        )
        aligned = result.rows.loc[digests]
        per_model[name] = aligned[list(SCORE_NAMES)].to_numpy(dtype=float)
        nan = np.isnan(per_model[name]).any(axis=1)
        reports.append(
            ModelReport(
                name=name,
                source=source.display,
                device=result.device,
                dtype=result.dtype,
                max_length=int(aligned["max_length"].max()),
                n_texts=len(table),
                n_from_cache=result.n_from_cache,
                n_scored=result.n_scored,
                n_truncated=int(aligned["truncated"].astype(bool).sum()),
                n_tokens=int(aligned["n_scored"].sum()),
                nan_item_ids=tuple(table["item_id"][nan]),
                seconds=time.perf_counter() - start,
            )
        )
    return assemble_output(table, per_model, score, ScoringReport(settings, token_budget, tuple(reports)))


def all_scores(texts: pd.DataFrame, models: Mapping[str, str | Path | ModelSource], **kwargs) -> pd.DataFrame:
    """All four scores of every model as a long table ``item_id, model, score_name, value``.

    Same keyword arguments as :func:`run_scoring`; shares its cache.
    """
    return run_scoring(texts, models, **kwargs).long
