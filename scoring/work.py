"""Cache-format rows for a list of texts under one loaded model (shared by the local and Ray engines)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from .cache import cache_columns
from .engine import encode_for, score_encoded
from .settings import ScoreSettings


def shards_of(digests, shard_size: int) -> list[list[str]]:
    """``digests`` sorted, in consecutive shards of ``shard_size`` (the same split on every run and engine)."""
    ordered = sorted(digests)
    return [ordered[i : i + shard_size] for i in range(0, len(ordered), shard_size)]


def _rows(names, digests: Sequence[str], encoded, positions: np.ndarray, scores: np.ndarray) -> pd.DataFrame:
    frame = pd.DataFrame(scores, columns=list(names))
    frame.insert(0, "text_sha", [digests[i] for i in positions])
    frame.insert(1, "n_scored", encoded.n_scored[positions])
    frame.insert(2, "truncated", encoded.truncated[positions])
    frame.insert(3, "max_length", encoded.max_length)
    return frame


def score_rows(
    loaded,
    texts: Sequence[str],
    digests: Sequence[str],
    *,
    settings: ScoreSettings,
    token_budget: int,
    names: Sequence[str],
    reference_loss: np.ndarray | None = None,
    on_rows: Callable[[pd.DataFrame], None] | None = None,
) -> pd.DataFrame:
    """Score ``texts`` (keyed by ``digests``) and return one cache row per text.

    ``on_rows(frame)`` receives the rows of each finished batch (and first the
    NaN rows of texts with nothing to score), for incremental caching and
    progress.
    """
    names = tuple(names)
    texts = list(texts)
    encoded = encode_for(loaded, texts, settings)
    frames: list[pd.DataFrame] = []

    def emit(frame: pd.DataFrame) -> None:
        frames.append(frame)
        if on_rows is not None:
            on_rows(frame)

    # Texts with nothing to score never reach the model; they are NaN rows.
    empty = np.flatnonzero(encoded.n_scored == 0)
    if empty.size:
        emit(_rows(names, digests, encoded, empty, np.full((empty.size, len(names)), np.nan)))
    score_encoded(
        loaded.model, encoded, settings=settings, token_budget=token_budget, device=loaded.device,
        on_batch=lambda b: emit(_rows(names, digests, encoded, b.indices, b.scores)),
        names=names, texts=texts, reference_loss=reference_loss,
    )
    if not frames:
        return pd.DataFrame(columns=list(cache_columns(names)))
    return pd.concat(frames, ignore_index=True)
