"""The model's forward pass up to the scored positions' statistics, in bounded memory.

Full logits cost ``positions x vocabulary`` floats per batch (a 152k vocabulary
at 8k tokens is ~4.6 GiB in float32 before the softmax temporaries). Where the
model allows it, the body (``model.base_model``) runs once and the LM head is
applied to the scored positions' hidden states a chunk of rows at a time, so
the vocabulary-sized temporaries stay ``rows_per_chunk x V`` whatever the
sequence length. A model whose logits are not just ``lm_head(last hidden
state)`` (soft-capping, logit scaling, custom heads) is detected by a probe and
falls back to ``logits_to_keep`` / full logits, computed in one piece.
"""

from __future__ import annotations

import contextlib
import inspect
import weakref

import torch

from .fused import chunk_kernel
from .token_scores import rows_per_chunk, token_statistics

_SPLIT_OK: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_MASK_KEEP_OK: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # per model: ask for the kept rows alone

#: Bytes of LM-head output (logits of scored positions) held at once on a CPU: the head runs over
#: all the scored rows of a batch in one matrix product when their logits fit, and over chunks of
#: this size when they would not, which keeps peak memory flat in the sequence length.
MEMORY_BUDGET = 64 << 20
#: The same per device type elsewhere: on an accelerator each chunk costs a dozen kernel
#: launches for the statistics, so small chunks leave it idle. On an H200, a ~1B model in bf16
#: scored 1.9x faster with 512 MiB than with 64 MiB, and 4 GiB more gained 6% (benchmarks/RESULTS.md).
MEMORY_BUDGETS: dict[str, int] = {"cpu": MEMORY_BUDGET}
ACCELERATOR_MEMORY_BUDGET = 512 << 20

# float32 (rows, V) arrays alive at once per chunk: on a CPU only the logits (the statistics run
# in cache-sized blocks of their own, :data:`scoring.token_scores.BLOCK_ELEMENTS`); elsewhere
# also the log-softmax, the softmax and one scratch array of the same size.
_LIVE_ARRAYS = {"cpu": 1}
_LIVE_ARRAYS_ELSEWHERE = 4
# Compiled, the statistics run as a few fused kernels that hold no vocabulary-sized temporary:
# the chunk's logits are all that is live, and larger chunks keep more of the device's cores busy
# (each kernel takes a row per thread block).
_LIVE_ARRAYS_COMPILED = 1


def memory_budget_for(device_type: str) -> int:
    """The head's memory budget in bytes on a device of type ``device_type`` ("cpu", "cuda", "mps")."""
    return MEMORY_BUDGETS.get(device_type, ACCELERATOR_MEMORY_BUDGET)


def budget_elements(memory_budget: int = MEMORY_BUDGET, device_type: str = "cpu", *, compiled: bool = False) -> int:
    """Vocabulary values per chunk that keep the chunk's arrays within ``memory_budget`` bytes
    (``compiled``: with the statistics compiled, :mod:`scoring.fused`)."""
    live = _LIVE_ARRAYS_COMPILED if compiled else _LIVE_ARRAYS.get(device_type, _LIVE_ARRAYS_ELSEWHERE)
    return max(1, int(memory_budget) // (4 * live))


def _accepts_logits_to_keep(model) -> bool:
    try:
        return "logits_to_keep" in inspect.signature(model.forward).parameters
    except (TypeError, ValueError):
        return False


def _keeps_mask(model) -> bool:
    """Whether to ask ``model`` for the kept rows alone: its forward takes ``logits_to_keep`` and has
    not refused a mask there. Known once per model (a signature is read per call otherwise)."""
    known = _MASK_KEEP_OK.get(model)
    if known is None:
        known = _accepts_logits_to_keep(model)
        _remember(model, known)
    return known


def _remember(model, keeps_mask: bool) -> None:
    with contextlib.suppress(TypeError):  # an object without weak references (a test's stand-in) is asked each time
        _MASK_KEEP_OK[model] = keeps_mask


def _parts(model):
    """``(body, head)`` of a causal LM, or ``None`` when it has no such split."""
    body = getattr(model, "base_model", None)
    get_head = getattr(model, "get_output_embeddings", None)
    head = get_head() if callable(get_head) else None
    if body is None or body is model or not isinstance(head, torch.nn.Module):
        return None
    return body, head


def split_head(model):
    """``(body, head)`` when ``head(body(x).last_hidden_state)`` equals the model's logits, else ``None``.

    Decided once per model by a probe on a three-token input, so a model whose
    forward does more than apply the head is scored through its own forward.
    """
    try:
        return _parts(model) if _SPLIT_OK[model] else None
    except (KeyError, TypeError):
        pass
    parts = _parts(model)
    ok = False
    if parts is not None:
        body, head = parts
        device = next(model.parameters()).device
        vocab = int(getattr(model.config, "vocab_size", 3) or 3)
        ids = (torch.arange(3, device=device) % vocab)[None, :]
        try:
            with torch.inference_mode():
                full = model(input_ids=ids, use_cache=False).logits.float()
                split = head(body(input_ids=ids, use_cache=False).last_hidden_state).float()
            scale = float(full.abs().max()) + 1.0
            ok = full.shape == split.shape and bool((full - split).abs().max() <= 1e-3 * scale)
        except Exception:  # noqa: BLE001 - any failure means "use the model's own forward"
            ok = False
    with contextlib.suppress(TypeError):
        _SPLIT_OK[model] = ok
    return parts if ok else None


def scored_mask(attention_mask: torch.Tensor, score_from: torch.Tensor) -> torch.Tensor:
    """Positions whose next token is scored: real and at or past its piece's ``score_from``.

    Position ``t`` predicts token ``t + 1``; a token ``j`` is scored when it is
    unmasked and ``j >= score_from`` of its row.
    """
    width = attention_mask.shape[1]
    token_index = torch.arange(width, device=attention_mask.device)[None, :]
    scored_token = attention_mask.bool() & (token_index >= score_from[:, None])
    keep = torch.zeros_like(scored_token)
    keep[:, :-1] = scored_token[:, 1:]
    return keep


def scored_positions(attention_mask: torch.Tensor, score_from: torch.Tensor) -> torch.Tensor:
    """Flat indices (``row * width + position``) of the scored positions, in (row, position) order.

    Computed where the inputs live: on the host, before they go to an accelerator, the
    engine knows how many rows a batch scores without waiting for the device.
    """
    return scored_mask(attention_mask, score_from).flatten().nonzero().squeeze(1)


def scored_statistics(
    model,
    input_ids: torch.Tensor,
    attention_mask: torch.Tensor,
    score_from: torch.Tensor,
    *,
    needed: tuple[str, ...],
    chunk_elements: int | None = None,
    chunked: bool = True,
    memory_budget: int | None = None,
    compiled: bool = False,
    positions: torch.Tensor | None = None,
) -> torch.Tensor:
    """Statistics ``needed`` at every scored position of a batch, rows in (row, position) order.

    ``chunk_elements`` (default: from ``memory_budget`` bytes, by default
    :func:`memory_budget_for` the device) bounds the vocabulary values of one chunk of scored rows.
    ``compiled`` runs the statistics under ``torch.compile`` (:mod:`scoring.fused`).
    ``positions`` (on the model's device) are the batch's :func:`scored_positions` where the
    caller has them already: computing them here waits for the device (the row count is
    data-dependent), which idles an accelerator between the body and the head.

    Returns
    -------
    torch.Tensor, shape (len(needed), N), float32, on the model's device
    """
    if chunk_elements is None:
        device_type = input_ids.device.type
        chunk_elements = budget_elements(memory_budget_for(device_type) if memory_budget is None else memory_budget,
                                         device_type, compiled=compiled)
    kernel = chunk_kernel(compiled)
    if positions is None:
        positions = scored_positions(attention_mask, score_from)
    # Position t predicts token t + 1 of its row; the last position of a row is never scored.
    targets = input_ids.flatten().index_select(0, positions + 1)
    parts = split_head(model) if chunked else None
    if parts is not None:
        body, head = parts
        hidden = body(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).last_hidden_state
        hidden = hidden.flatten(0, 1).index_select(0, positions)
        vocab = head.weight.shape[0] if hasattr(head, "weight") else int(model.config.vocab_size)
        step = rows_per_chunk(vocab, chunk_elements)
        out = torch.empty((len(needed), hidden.shape[0]), dtype=torch.float32, device=hidden.device)
        for start in range(0, hidden.shape[0], step):
            stop = min(start + step, hidden.shape[0])
            out[:, start:stop] = token_statistics(
                head(hidden[start:stop]), targets[start:stop], needed=needed, chunk_elements=chunk_elements,
                kernel=kernel,
            )
        return out
    logits = kept_logits(model, input_ids, attention_mask, scored_mask(attention_mask, score_from))
    return token_statistics(logits, targets, needed=needed, chunk_elements=chunk_elements, kernel=kernel)


def kept_logits(model, input_ids: torch.Tensor, attention_mask: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
    """Logits at the positions ``keep`` (a (batch, length) boolean mask), shape (kept positions, V).

    Asks the model for those rows alone (``logits_to_keep=keep``) where its transformers release
    takes a mask there; releases that take only sequence indices raise ``IndexError`` on one, and
    the model then gives full logits, cut here (remembered per model).
    """
    kwargs = {"input_ids": input_ids, "attention_mask": attention_mask, "use_cache": False}
    logits = None
    if _keeps_mask(model):
        try:
            logits = model(**kwargs, logits_to_keep=keep).logits
        except IndexError:
            _remember(model, False)
    if logits is None:
        logits = model(**kwargs).logits
    return logits[keep] if logits.dim() == 3 else logits  # 3-D: the model ignored logits_to_keep
