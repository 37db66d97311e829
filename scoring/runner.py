"""Score a texts table under K models: one model in memory at a time, cached, resumable.

:func:`run_scoring` is the entry point for the CLI and the dashboard. It
returns a :class:`~scoring.results.ScoringOutput` holding the wide score table
of the data contract (``item_id, split, text, score_<model>...`` plus carried
columns such as ``member_<model>``), the long table of every computed score,
and a report. ``engine="ray"`` runs the per-model work on Ray actors
(:mod:`scoring.ray_engine`) against the same cache, so both engines give the
same tables.

Torch is imported when a run starts (every model's weight files are checked first).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from jecs_core.validation import check_positive_int

from .cache import ScoreCache, cache_columns, text_digest
from .cache_parts import concatenated
from .jobs import ModelJob, ModelRows
from .registry import REGISTRY, active_scores
from .results import ModelReport, ScoringOutput, ScoringReport, assemble_output
from .settings import (
    DEFAULT_CACHE_DIR,
    DEFAULT_SCORE,
    DEFAULT_TOKEN_BUDGET,
    SHARD_SIZE,
    ScoreSettings,
    check_head_memory,
    check_score_name,
    check_token_budget,
)
from .sources import ModelSource, check_models, model_source
from .texts import validate_texts

#: ``progress(done, total, message)``; units are (model, distinct text) pairs.
ProgressFn = Callable[[int, int, str], None]

#: An interrupted run loses at most this much scoring work.
FLUSH_SECONDS = 30.0

ENGINES = ("local", "ray")


class _RowBuffer:
    """Collects one model's fresh rows; writes them to the cache every so often."""

    def __init__(self, cache: ScoreCache | None):
        self.cache = cache
        self.pending: list[dict[str, np.ndarray]] = []
        self.last_flush = time.monotonic()

    def add(self, rows: dict[str, np.ndarray]) -> None:
        self.pending.append(rows)
        if time.monotonic() - self.last_flush >= FLUSH_SECONDS:
            self.flush()

    def flush(self) -> None:
        if self.cache is not None and self.pending:
            self.cache.write_columns(concatenated(self.pending, self.cache.names))
        self.pending = []
        self.last_flush = time.monotonic()


def score_model_local(job: ModelJob, texts_by_digest: dict[str, str], tick: Callable[[int, str], None]) -> ModelRows:
    """Score one model's missing texts in this process."""
    from . import loading
    from .work import score_columns, shards_of

    device, dtype = job.resolved()
    cache = job.open_cache()
    cached = cache.load() if cache is not None else None
    missing = [d for d in texts_by_digest if cached is None or d not in cached.index]
    n_hit = len(texts_by_digest) - len(missing)
    if n_hit:
        tick(n_hit, f"{job.name}: {n_hit} texts from cache")
    if not missing:
        return ModelRows(cached, device, dtype, n_from_cache=n_hit, n_scored=0)

    tick(0, f"{job.name}: loading the model")
    buffer = _RowBuffer(cache)
    loaded = loading.load_model(job.source, device=device, dtype=dtype, allow_pickle=job.allow_pickle)

    def on_rows(rows: dict[str, np.ndarray]) -> None:
        buffer.add(rows)
        tick(len(rows["text_sha"]), f"{job.name}: scoring")

    parts = []
    try:
        # The same digest-sorted shards as the Ray engine, so both run the same batches.
        for shard in shards_of(missing, job.shard_size):
            parts.append(score_columns(
                loaded, [texts_by_digest[d] for d in shard], shard, settings=job.settings,
                token_budget=job.token_budget, names=job.names, reference_loss=job.reference_for(shard),
                on_rows=on_rows, head_memory_mib=job.head_memory_mib,
            ))
            buffer.flush()
    finally:
        # Runs on interruption too, so the next run resumes from here.
        buffer.flush()
        del loaded
        loading.free_memory()
    fresh = pd.DataFrame(concatenated(parts, job.names)).set_index("text_sha")
    if cache is not None:
        cache.compact()
    rows = fresh if cached is None or cached.empty else pd.concat([cached, fresh])
    return ModelRows(rows, device, dtype, n_from_cache=n_hit, n_scored=len(missing))


def _report(name, source, table, rows: ModelRows, aligned, values, started) -> ModelReport:
    nan = np.isnan(values).any(axis=1)
    return ModelReport(
        name=name, source=source.display, device=rows.device, dtype=rows.dtype,
        max_length=int(aligned["max_length"].max()), n_texts=len(table), n_from_cache=rows.n_from_cache,
        n_scored=rows.n_scored, n_truncated=int(aligned["truncated"].astype(bool).sum()),
        n_tokens=int(aligned["n_scored"].sum()), nan_item_ids=tuple(table["item_id"][nan]),
        seconds=time.perf_counter() - started,
    )


def _engine(engine: str, engine_options: dict | None):
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    if engine == "local":
        if engine_options:
            raise ValueError(f"engine_options {sorted(engine_options)} apply to engine='ray' only")
        return score_model_local
    from .ray_engine import RayEngine

    return RayEngine(**(engine_options or {}))


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
    reference: str | Path | ModelSource | None = None,
    allow_pickle: bool = False,
    engine: str = "local",
    engine_options: dict | None = None,
    shard_size: int = SHARD_SIZE,
    head_memory_mib: int | None = None,
) -> ScoringOutput:
    """Score every text under every model; return the wide and long tables.

    Parameters
    ----------
    texts : pandas.DataFrame
        ``item_id, split, text`` and optional carried columns; see
        :func:`scoring.texts.validate_texts`.
    models : mapping of str to path
        Model name -> Hugging Face directory, or ``.../file.gguf``.
    score : str
        The registered score written to the wide table (every computed score
        is in ``long``).
    settings, token_budget, device, dtype
        Score settings, padded tokens per batch, device and dtype overrides.
    cache_dir : path or None
        Score cache (see :mod:`scoring.cache`); ``None`` disables caching
        (the Ray engine needs one: it is where its shards go).
    progress : callable, optional
        ``progress(done, total, message)`` in (model, distinct text) units.
    reference : path, optional
        A reference model; enables the reference-based scores (``refratio``).
    allow_pickle : bool
        Accept pickled ``pytorch_model.bin`` weights (see :func:`scoring.loading.load_model`).
    engine : {"local", "ray"}
        Where the forward passes run; ``engine_options`` go to
        :class:`scoring.ray_engine.RayEngine` (``address``, ``workers``, ...).
    shard_size : int
        Texts per unit of work (a Ray input shard; a cache part locally):
        both engines score the distinct texts sorted by digest in shards of
        this size, so they run the same batches.
    head_memory_mib : int, optional
        MiB of LM-head logits held at once (default 64 on a CPU, 512 on an accelerator,
        :mod:`scoring.head`): the head and the statistics run over chunks of this size, so
        peak memory stays flat in the sequence length; larger chunks launch fewer kernels on
        a GPU. Scores agree across budgets to float32 rounding.

    Raises
    ------
    ValueError
        Bad texts table, model path or setting (``ModelLoadError`` for a model
        that cannot be loaded). A text with nothing to score is not an error:
        its scores are NaN and listed in the report.
    """
    check_score_name(score)
    if REGISTRY[score].needs_reference and reference is None:
        raise ValueError(f"score {score!r} needs a reference model (reference= / --reference)")
    settings = ScoreSettings() if settings is None else settings
    token_budget = check_token_budget(token_budget)
    head_memory_mib = check_head_memory(head_memory_mib)
    sources = check_models(dict(models))
    table = validate_texts(texts)
    runner = _engine(engine, engine_options)
    ref_source = None if reference is None else _as_source(reference)
    notes = _checked_before_work([*sources.values(), *([ref_source] if ref_source else [])], allow_pickle)

    digests = [text_digest(t) for t in table["text"]]
    texts_by_digest = dict(zip(digests, table["text"]))
    total = len(texts_by_digest) * (len(sources) + (ref_source is not None))
    done = 0

    def tick(n: int, message: str) -> None:
        nonlocal done
        done += n
        if progress is not None:
            progress(done, total, message)

    shard_size = check_positive_int(shard_size, "shard_size")
    common = dict(shard_size=shard_size, settings=settings, token_budget=token_budget, device=device, dtype=dtype, allow_pickle=allow_pickle,
                  cache_dir=None if cache_dir is None else Path(cache_dir), head_memory_mib=head_memory_mib)
    ref_loss = None
    if ref_source is not None:
        job = ModelJob("reference", ref_source, active_scores(reference=False), **common)
        ref_loss = -runner(job, texts_by_digest, tick).rows["ppl"].astype(float)
    names = active_scores(reference=ref_source is not None)
    per_model, reports = {}, []
    for name, source in sources.items():
        started = time.perf_counter()
        job = ModelJob(name, source, names, reference=ref_source, reference_loss=ref_loss, **common)
        result = runner(job, texts_by_digest, tick)
        aligned = result.rows.loc[digests]
        per_model[name] = aligned[list(names)].to_numpy(dtype=float)
        reports.append(_report(name, source, table, result, aligned, per_model[name], started))
    return assemble_output(table, per_model, score, ScoringReport(settings, token_budget, tuple(reports), notes), names)


def _checked_before_work(sources: list[ModelSource], allow_pickle: bool) -> tuple[str, ...]:
    """Every model's files, architecture and tokenizer, checked so a bad 16th model fails now, not after hours;
    the notes. A GGUF file's tokenizer is read with its weights (parsing it here would read the file twice)."""
    from .architecture import check_architecture
    from .loading import check_weights, load_tokenizer

    notes = []
    for source in sources:
        check_weights(source, allow_pickle=allow_pickle)
        notes.append(check_architecture(source))
        if not source.gguf_file:
            load_tokenizer(source)  # local files only, no weights: well under a second
    return tuple(note for note in notes if note)


def _as_source(reference) -> ModelSource:
    return reference if isinstance(reference, ModelSource) else model_source(reference, name="reference")


def all_scores(texts: pd.DataFrame, models: Mapping[str, str | Path | ModelSource], **kwargs) -> pd.DataFrame:
    """Every computed score of every model as a long table ``item_id, model, score_name, value``.

    Same keyword arguments as :func:`run_scoring`; shares its cache.
    """
    return run_scoring(texts, models, **kwargs).long


__all__ = ["ENGINES", "ModelJob", "ModelRows", "all_scores", "cache_columns", "run_scoring", "score_model_local"]
