"""The batched scoring loop: one forward pass per batch gives every registered score."""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from .batching import Encoded, collate, encode_texts, plan_batches, plan_pieces
from .fused import should_compile
from .head import scored_positions, scored_statistics
from .registry import ReduceContext, active_scores, needed_statistics, reduce_text
from .settings import ScoreSettings, check_head_memory, check_token_budget
from .transfer import HostCopy, to_device, to_host


@dataclass(frozen=True)
class BatchScores:
    """Scores of the texts finished by one batch: ``scores[j]`` belongs to text ``indices[j]``."""

    indices: np.ndarray
    scores: np.ndarray


@dataclass(frozen=True)
class TextScores:
    """Scores of a list of texts under one model.

    Attributes
    ----------
    names : tuple of str
        The score columns (registry order; reference-based scores only with a reference).
    scores : numpy.ndarray, shape (n, len(names))
        Larger = member; NaN rows for texts with no scored token.
    n_scored : numpy.ndarray of int
        Scored tokens per text (after truncation).
    truncated : numpy.ndarray of bool
        Whether each text was cut to ``max_length``.
    max_length : int
        The token limit (or window length) applied.
    """

    names: tuple[str, ...]
    scores: np.ndarray
    n_scored: np.ndarray
    truncated: np.ndarray
    max_length: int


def effective_max_length(settings: ScoreSettings, max_positions: int | None) -> int:
    """``settings.max_length``, lowered to the model's context length if smaller."""
    return settings.max_length if max_positions is None else min(settings.max_length, max_positions)


def _contexts(settings, texts, reference_loss, n) -> list[ReduceContext]:
    texts = [""] * n if texts is None else list(texts)
    ref = np.full(n, math.nan) if reference_loss is None else np.asarray(reference_loss, dtype=float)
    return [ReduceContext(settings=settings, text=texts[i], reference_loss=float(ref[i])) for i in range(n)]


def runs_ahead(device) -> bool:
    """Whether the engine keeps one batch in flight on ``device``: on a CUDA device, whose work is queued."""
    return torch.device(device).type == "cuda"


class _TextReducer:
    """Collects the pieces' statistics batch by batch and reduces each text once its last piece is in."""

    def __init__(self, pieces, rows: tuple[str, ...], names: tuple[str, ...], contexts: list[ReduceContext]):
        self.pieces, self.rows, self.names, self.contexts = pieces, rows, names, contexts
        self.remaining = np.bincount(pieces.owner[pieces.lengths >= 2], minlength=len(contexts))
        self.collected: dict[int, list[tuple[int, np.ndarray]]] = {}

    def finish(self, batch: np.ndarray, stats: np.ndarray) -> BatchScores | None:
        """Take one batch's statistics (pieces in ``batch`` order); the texts it completes, reduced."""
        ends = np.cumsum(self.pieces.n_scored[batch])
        done = []
        for piece, chunk in zip(batch, np.split(stats, ends[:-1], axis=1)):
            owner = int(self.pieces.owner[piece])
            self.collected.setdefault(owner, []).append((int(piece), chunk))
            self.remaining[owner] -= 1
            if self.remaining[owner] == 0:
                done.append(owner)
        if not done:
            return None
        scores = []
        for owner in done:
            parts = [c for _, c in sorted(self.collected.pop(owner), key=lambda x: x[0])]
            scores.append(reduce_text(np.concatenate(parts, axis=1), self.rows, self.names, self.contexts[owner]))
        return BatchScores(indices=np.asarray(done, dtype=np.int64), scores=np.stack(scores))


def iter_batch_scores(
    model,
    encoded: Encoded,
    *,
    settings: ScoreSettings,
    token_budget: int,
    device: torch.device,
    names: Sequence[str] | None = None,
    texts: Sequence[str] | None = None,
    reference_loss: np.ndarray | None = None,
    chunked: bool = True,
    head_memory_mib: int | None = None,
) -> Iterator[BatchScores]:
    """Score the texts of ``encoded`` batch by batch (length-sorted pieces, token budget).

    A text scored in several windows is reduced when its last window is done.
    Only the per-token statistics the scores ``names`` need leave the device.
    Texts with fewer than two tokens are never batched (their rows stay NaN).
    ``head_memory_mib`` bounds the LM head's logits held at once (default: the device's,
    :func:`scoring.head.memory_budget_for`).
    """
    check_token_budget(token_budget)
    memory_budget = None if check_head_memory(head_memory_mib) is None else head_memory_mib << 20
    names = tuple(active_scores(reference=reference_loss is not None) if names is None else names)
    rows = needed_statistics(names)
    contexts = _contexts(settings, texts, reference_loss, len(encoded.ids))
    window = encoded.max_length if settings.long_texts == "window" else None
    pieces = plan_pieces(encoded, window=window, stride=settings.window_stride(encoded.max_length))
    reducer = _TextReducer(pieces, rows, names, contexts)
    compiled = should_compile(torch.device(device).type, int(pieces.n_scored.sum()))

    def launch(batch: np.ndarray) -> HostCopy:
        input_ids, mask = collate([pieces.ids[i] for i in batch], pad_id=0)
        score_from = torch.as_tensor(pieces.score_from[batch])
        positions = scored_positions(mask, score_from)  # on the host: no wait for the device
        # inference_mode is scoped to the launch, not held across the yield,
        # where it would leak into the consumer's code.
        with torch.inference_mode():
            stats = scored_statistics(
                model, to_device(input_ids, device), to_device(mask, device), to_device(score_from, device),
                needed=rows, chunked=chunked, compiled=compiled, positions=to_device(positions, device),
                memory_budget=memory_budget,
            )
            return to_host(stats)

    # On a device that queues work, one batch in flight: the next batch is queued before this
    # one's statistics are waited for and reduced, so the device never waits for the host. A CPU
    # computes as it launches, where holding a batch back would only delay its progress and cache rows.
    depth = 1 if runs_ahead(device) else 0
    queued: deque[tuple[np.ndarray, HostCopy]] = deque()

    def reduced(limit: int) -> Iterator[BatchScores]:
        while len(queued) > limit:
            batch, copy = queued.popleft()
            finished = reducer.finish(batch, copy.result())
            if finished is not None:
                yield finished

    for batch in plan_batches(pieces.lengths, token_budget):
        queued.append((batch, launch(batch)))
        yield from reduced(depth)
    yield from reduced(0)


def score_encoded(
    model,
    encoded: Encoded,
    *,
    settings: ScoreSettings,
    token_budget: int,
    device: torch.device,
    on_batch: Callable[[BatchScores], None] | None = None,
    names: Sequence[str] | None = None,
    texts: Sequence[str] | None = None,
    reference_loss: np.ndarray | None = None,
    chunked: bool = True,
    head_memory_mib: int | None = None,
) -> np.ndarray:
    """Every score ``names`` for every text of ``encoded``; NaN rows where nothing is scored.

    ``on_batch(batch)`` is called with each :class:`BatchScores` as it is
    done (progress, incremental caching). ``texts`` are the raw texts (for
    scores that read them, e.g. zlib); ``reference_loss`` the per-text mean
    NLL under a reference model (enables the reference-based scores);
    ``head_memory_mib`` as in :func:`iter_batch_scores`.
    """
    names = tuple(active_scores(reference=reference_loss is not None) if names is None else names)
    out = np.full((len(encoded.ids), len(names)), np.nan)
    for batch in iter_batch_scores(
        model, encoded, settings=settings, token_budget=token_budget, device=device, names=names, texts=texts,
        reference_loss=reference_loss, chunked=chunked, head_memory_mib=head_memory_mib,
    ):
        out[batch.indices] = batch.scores
        if on_batch is not None:
            on_batch(batch)
    return out


def encode_for(loaded, texts, settings: ScoreSettings) -> Encoded:
    """Tokenise ``texts`` for ``loaded`` under ``settings`` (limit lowered to the model's context)."""
    max_length = effective_max_length(settings, loaded.max_positions)
    return encode_texts(
        loaded.tokenizer, texts, max_length=max_length, prepend_bos=settings.prepend_bos,
        truncate=settings.long_texts == "truncate",
    )


def score_texts(
    loaded,
    texts,
    *,
    settings: ScoreSettings | None = None,
    token_budget: int = 4096,
    on_batch: Callable[[BatchScores], None] | None = None,
    reference_loss: np.ndarray | None = None,
    chunked: bool = True,
    head_memory_mib: int | None = None,
) -> TextScores:
    """Tokenise and score ``texts`` with a :class:`scoring.loading.LoadedModel`.

    NaN policy: a text with fewer than one scored token (an empty text, or a
    one-token text when no BOS is added) gets NaN for every score; it is
    never an error.
    """
    settings = ScoreSettings() if settings is None else settings
    texts = list(texts)
    encoded = encode_for(loaded, texts, settings)
    names = active_scores(reference=reference_loss is not None)
    scores = score_encoded(
        loaded.model, encoded, settings=settings, token_budget=token_budget, device=loaded.device, on_batch=on_batch,
        names=names, texts=texts, reference_loss=reference_loss, chunked=chunked, head_memory_mib=head_memory_mib,
    )
    return TextScores(
        names=names, scores=scores, n_scored=encoded.n_scored, truncated=encoded.truncated,
        max_length=encoded.max_length,
    )
