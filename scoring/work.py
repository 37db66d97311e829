"""Cache-format rows for a list of texts under one loaded model (shared by the local and Ray engines)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .cache_parts import concatenated
from .engine import encode_for, score_encoded
from .settings import ScoreSettings


def shards_of(digests, shard_size: int) -> list[list[str]]:
    """``digests`` sorted, in consecutive shards of ``shard_size`` (the same split on every run and engine)."""
    ordered = sorted(digests)
    return [ordered[i : i + shard_size] for i in range(0, len(ordered), shard_size)]


def _columns(names, digests: Sequence[str], encoded, positions: np.ndarray, scores: np.ndarray) -> dict[str, np.ndarray]:
    columns = {
        "text_sha": np.array([digests[i] for i in positions], dtype=object),
        "n_scored": np.asarray(encoded.n_scored[positions], dtype=np.int64),
        "truncated": np.asarray(encoded.truncated[positions], dtype=bool),
        "max_length": np.full(len(positions), encoded.max_length, dtype=np.int64),
    }
    return {**columns, **{name: np.asarray(scores[:, j], dtype=np.float64) for j, name in enumerate(names)}}


def score_columns(
    loaded,
    texts: Sequence[str],
    digests: Sequence[str],
    *,
    settings: ScoreSettings,
    token_budget: int,
    names: Sequence[str],
    reference_loss: np.ndarray | None = None,
    on_rows: Callable[[dict[str, np.ndarray]], None] | None = None,
    head_memory_mib: int | None = None,
) -> dict[str, np.ndarray]:
    """Score ``texts`` (keyed by ``digests``) into one cache row per text, as columns.

    Returns a mapping of :func:`scoring.cache_parts.cache_columns` to equal-length arrays (plain
    numpy, so that a Ray actor scoring a shard never imports pandas). ``on_rows(columns)``
    receives the rows of each finished batch (and first the NaN rows of texts with nothing to
    score), for incremental caching and progress.
    """
    names = tuple(names)
    texts = list(texts)
    encoded = encode_for(loaded, texts, settings)
    parts: list[dict[str, np.ndarray]] = []

    def emit(columns: dict[str, np.ndarray]) -> None:
        parts.append(columns)
        if on_rows is not None:
            on_rows(columns)

    # Texts with nothing to score never reach the model; they are NaN rows.
    empty = np.flatnonzero(encoded.n_scored == 0)
    if empty.size:
        emit(_columns(names, digests, encoded, empty, np.full((empty.size, len(names)), np.nan)))
    score_encoded(
        loaded.model, encoded, settings=settings, token_budget=token_budget, device=loaded.device,
        on_batch=lambda b: emit(_columns(names, digests, encoded, b.indices, b.scores)),
        names=names, texts=texts, reference_loss=reference_loss, head_memory_mib=head_memory_mib,
    )
    return concatenated(parts, names)
