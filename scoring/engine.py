"""The batched scoring loop: one forward pass per batch gives all four scores."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
import torch

from .batching import Encoded, collate, encode_texts, plan_batches
from .settings import SCORE_NAMES, ScoreSettings, check_token_budget
from .token_scores import text_scores, token_statistics


@dataclass(frozen=True)
class BatchScores:
    """Scores of one batch: ``scores[j]`` belongs to text ``indices[j]``."""

    indices: np.ndarray
    scores: np.ndarray


@dataclass(frozen=True)
class TextScores:
    """Scores of a list of texts under one model.

    Attributes
    ----------
    scores : numpy.ndarray, shape (n, 4)
        Columns in :data:`scoring.settings.SCORE_NAMES` order, larger = member;
        NaN rows for texts with no scored token.
    n_scored : numpy.ndarray of int
        Scored tokens per text (after truncation).
    truncated : numpy.ndarray of bool
        Whether each text was cut to ``max_length``.
    max_length : int
        The token limit applied.
    """

    scores: np.ndarray
    n_scored: np.ndarray
    truncated: np.ndarray
    max_length: int


def _accepts_logits_to_keep(model) -> bool:
    try:
        return "logits_to_keep" in inspect.signature(model.forward).parameters
    except (TypeError, ValueError):
        return False


def scored_logits(model, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Run the model once; return logits and targets at the scored positions.

    Position ``t`` predicts token ``t + 1``, so a position is scored when its
    successor is a real (unmasked) token. Where the model accepts a boolean
    ``logits_to_keep`` (transformers 5 causal LMs), only those rows go through
    the LM head, so neither padding nor the last position costs a
    vocabulary-sized projection.

    Returns
    -------
    logits : torch.Tensor, shape (N, V)
    targets : torch.Tensor, shape (N,)
        Rows in (text, position) order.
    """
    keep = torch.zeros_like(attention_mask, dtype=torch.bool)
    keep[:, :-1] = attention_mask[:, 1:].bool()
    targets = input_ids[:, 1:][keep[:, :-1]]
    kwargs = {"input_ids": input_ids, "attention_mask": attention_mask, "use_cache": False}
    if _accepts_logits_to_keep(model):
        kwargs["logits_to_keep"] = keep
    logits = model(**kwargs).logits
    if logits.dim() == 3:  # the model ignored logits_to_keep, or does not take it
        logits = logits[keep]
    return logits, targets


def iter_batch_scores(
    model,
    encoded: Encoded,
    *,
    settings: ScoreSettings,
    token_budget: int,
    device: torch.device,
) -> Iterator[BatchScores]:
    """Score the texts of ``encoded`` batch by batch (length-sorted, token budget).

    Only the three per-token vectors of :func:`token_statistics` leave the
    device. Texts with fewer than two tokens are not batched (see
    :func:`score_encoded`).
    """
    check_token_budget(token_budget)
    for batch in plan_batches(encoded.lengths, token_budget):
        ids = [encoded.ids[i] for i in batch]
        input_ids, mask = collate(ids, pad_id=0)
        # inference_mode is scoped to the batch, not held across the yield,
        # where it would leak into the consumer's code.
        with torch.inference_mode():
            logits, targets = scored_logits(model, input_ids.to(device), mask.to(device))
            stats = token_statistics(logits, targets).cpu().numpy()
            del logits
        ends = np.cumsum([len(x) - 1 for x in ids])
        scores = np.stack(
            [
                text_scores(chunk, k_mink=settings.k_mink, k_minkpp=settings.k_minkpp)
                for chunk in np.split(stats, ends[:-1], axis=1)
            ]
        )
        yield BatchScores(indices=batch, scores=scores)


def effective_max_length(settings: ScoreSettings, max_positions: int | None) -> int:
    """``settings.max_length``, lowered to the model's context length if smaller."""
    return settings.max_length if max_positions is None else min(settings.max_length, max_positions)


def score_encoded(
    model,
    encoded: Encoded,
    *,
    settings: ScoreSettings,
    token_budget: int,
    device: torch.device,
    on_batch: Callable[[BatchScores], None] | None = None,
) -> np.ndarray:
    """All four scores for every text of ``encoded``; NaN rows where nothing is scored.

    ``on_batch(batch)`` is called with each :class:`BatchScores` as it is
    done (progress, incremental caching).
    """
    out = np.full((len(encoded.ids), len(SCORE_NAMES)), np.nan)
    for batch in iter_batch_scores(model, encoded, settings=settings, token_budget=token_budget, device=device):
        out[batch.indices] = batch.scores
        if on_batch is not None:
            on_batch(batch)
    return out


def score_texts(
    loaded,
    texts,
    *,
    settings: ScoreSettings = ScoreSettings(),
    token_budget: int = 4096,
    on_batch: Callable[[BatchScores], None] | None = None,
) -> TextScores:
    """Tokenise and score ``texts`` with a :class:`scoring.loading.LoadedModel`.

    NaN policy: a text with fewer than one scored token (an empty text, or a
    one-token text when no BOS is added) gets NaN for all four scores; it is
    never an error.
    """
    max_length = effective_max_length(settings, loaded.max_positions)
    encoded = encode_texts(loaded.tokenizer, texts, max_length=max_length, prepend_bos=settings.prepend_bos)
    scores = score_encoded(
        loaded.model, encoded, settings=settings, token_budget=token_budget, device=loaded.device, on_batch=on_batch
    )
    return TextScores(scores=scores, n_scored=encoded.n_scored, truncated=encoded.truncated, max_length=max_length)
