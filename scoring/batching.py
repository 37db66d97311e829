"""Tokenisation, truncation and length-sorted batches under a token budget."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch


@dataclass(frozen=True)
class Encoded:
    """Token ids of a list of texts, ready to batch.

    Attributes
    ----------
    ids : tuple of list of int
        Token ids per text, after BOS handling and truncation.
    truncated : numpy.ndarray of bool
        Whether each text was cut to ``max_length``.
    max_length : int
        The length limit that was applied.
    """

    ids: tuple[list[int], ...]
    truncated: np.ndarray
    max_length: int

    @property
    def lengths(self) -> np.ndarray:
        return np.fromiter((len(x) for x in self.ids), dtype=np.int64, count=len(self.ids))

    @property
    def n_scored(self) -> np.ndarray:
        """Scored tokens per text: every token but the first."""
        return np.maximum(self.lengths - 1, 0)


def encode_texts(tokenizer, texts, *, max_length: int, prepend_bos: bool = False, truncate: bool = True) -> Encoded:
    """Tokenise ``texts`` with the tokenizer's own special tokens, then truncate.

    The tokenizer adds whatever it adds by default (e.g. BOS for Llama
    tokenizers). With ``prepend_bos`` the BOS id is put in front of every text
    that does not already start with it. Texts are cut on the right to
    ``max_length`` tokens unless ``truncate`` is False (sliding windows, see
    :func:`plan_pieces`).

    Raises
    ------
    ValueError
        If ``prepend_bos`` is asked for and the tokenizer has no BOS token.
    """
    texts = list(texts)
    bos = getattr(tokenizer, "bos_token_id", None)
    if prepend_bos and bos is None:
        raise ValueError("prepend_bos was asked for, but the tokenizer has no BOS token")
    # verbose=False: the 'sequence longer than model_max_length' warning is
    # moot, truncation happens below and is reported.
    all_ids = tokenizer(texts, add_special_tokens=True, verbose=False)["input_ids"] if texts else []
    out, truncated = [], np.zeros(len(texts), dtype=bool)
    for i, ids in enumerate(all_ids):
        ids = list(ids)
        if prepend_bos and (not ids or ids[0] != bos):
            ids.insert(0, bos)
        if truncate and len(ids) > max_length:
            ids = ids[:max_length]
            truncated[i] = True
        out.append(ids)
    return Encoded(ids=tuple(out), truncated=truncated, max_length=max_length)


@dataclass(frozen=True)
class Pieces:
    """Token windows to run through the model, each belonging to one text.

    Attributes
    ----------
    ids : list of list of int
        Token ids of each piece.
    owner : numpy.ndarray of int
        The text each piece belongs to.
    score_from : numpy.ndarray of int
        Index of the first scored token in each piece (1 = all but the first;
        later windows skip the tokens an earlier window already scored).
    """

    ids: list[list[int]]
    owner: np.ndarray
    score_from: np.ndarray

    @property
    def lengths(self) -> np.ndarray:
        return np.fromiter((len(x) for x in self.ids), dtype=np.int64, count=len(self.ids))

    @property
    def n_scored(self) -> np.ndarray:
        """Scored tokens per piece."""
        return np.maximum(self.lengths - self.score_from, 0)


def windows(length: int, window: int, stride: int) -> list[tuple[int, int, int]]:
    """Sliding windows over ``length`` tokens: ``(start, stop, score_from)`` each.

    Every token but the first is scored exactly once: the first window scores
    tokens 1..window-1, window ``k`` starts at ``k * stride`` and scores only
    the tokens past the previous window's end, so each of them sees at least
    ``window - stride`` tokens of context.
    """
    if length <= window:
        return [(0, length, 1)]
    out, start, scored_to = [], 0, 0
    while scored_to < length:
        stop = min(start + window, length)
        out.append((start, stop, max(1, scored_to - start)))
        scored_to = stop
        start += stride
    return out


def plan_pieces(encoded: Encoded, *, window: int | None = None, stride: int = 1) -> Pieces:
    """One piece per text, or sliding windows for texts longer than ``window`` tokens."""
    ids, owner, score_from = [], [], []
    for i, text_ids in enumerate(encoded.ids):
        spans = [(0, len(text_ids), 1)] if window is None else windows(len(text_ids), window, stride)
        for start, stop, first in spans:
            ids.append(text_ids[start:stop])
            owner.append(i)
            score_from.append(first)
    return Pieces(ids=ids, owner=np.asarray(owner, dtype=np.int64), score_from=np.asarray(score_from, dtype=np.int64))


def plan_batches(lengths: np.ndarray, token_budget: int) -> list[np.ndarray]:
    """Group texts into batches of at most ``token_budget`` padded tokens.

    Texts are sorted by length, longest first (so an out-of-memory error shows
    on the first batch, not after an hour), and each batch takes as many as fit
    ``count * longest <= token_budget``; a text longer than the budget forms a
    batch of its own. Texts shorter than two tokens (nothing to score) are
    left out.

    Returns
    -------
    list of numpy.ndarray
        Indices into ``lengths``, one array per batch.
    """
    lengths = np.asarray(lengths)
    order = np.argsort(-lengths, kind="stable")
    order = order[lengths[order] >= 2]
    batches, start = [], 0
    while start < order.size:
        longest = int(lengths[order[start]])
        size = max(1, token_budget // longest)
        batches.append(order[start : start + size])
        start += size
    return batches


def collate(ids: list[list[int]], pad_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-pad token id lists into ``(input_ids, attention_mask)``.

    Padding is always on the right whatever the tokenizer's ``padding_side``,
    and padded positions are excluded through the mask, never by comparing
    with ``pad_id`` (which may equal a real token such as EOS).
    """
    width = max(len(x) for x in ids)
    input_ids = torch.full((len(ids), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(ids), width), dtype=torch.long)
    for row, x in enumerate(ids):
        input_ids[row, : len(x)] = torch.as_tensor(x, dtype=torch.long)
        mask[row, : len(x)] = 1
    return input_ids, mask
