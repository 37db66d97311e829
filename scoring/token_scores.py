"""Per-token statistics on the device: the fused kernel behind every registered score.

Everything that touches a full vocabulary row runs on the device in float32
(:func:`token_statistics`); only the statistics the active scores need (see
:mod:`scoring.registry`) come back to the host, one number per scored token
each, where :func:`scoring.registry.reduce_text` reduces them in float64.

Formulas (Min-K%++ as in Zhang et al. 2025, Modified Entropy as in Song & Mittal 2021), for a scored token with true next
token ``y`` and next-token distribution ``p`` over the vocabulary:

- ``logprob = log p_y``;
- ``minkpp_z = (lp - mu) / sigma`` with ``mu = sum_v p_v log p_v``
  and ``sigma^2 = sum_v p_v (log p_v - mu)^2``;
- ``mentr = -(1 - p_y) log p_y - sum_{v != y} p_v log(1 - p_v)``,
  probabilities clamped to ``[1e-10, 1 - 1e-10]``.
"""

from __future__ import annotations

import math

import torch

from . import cpu_rows
from .cpu_rows import run_row_parts
from .registry import STATISTICS

#: Probability clamp of Modified Entropy.
PROB_EPS = 1e-10
_LOG_EPS = math.log(PROB_EPS)
# log(1 - 1e-10), the upper clamp of log p_y; float32 cannot hold 1 - 1e-10
# itself, so the clamps are applied in log space where they are exact.
_LOG_ONE_MINUS_EPS = math.log1p(-PROB_EPS)

#: Floor on Min-K%++'s sigma. sigma_t = 0 means a flat (or one-hot) next-token
#: distribution, where lp - mu is float32 rounding noise (~1e-7 |mu|); dividing
#: by this floor keeps such tokens near 0 (and a missed one-hot target strongly
#: negative) instead of 0/0. No real distribution is affected: sigma < 1e-3
#: needs a top probability within about 1e-8 of 1, which float32 rounds to 1.
SIGMA_FLOOR = 1e-3

#: Vocabulary rows are processed at most this many float32 elements at a time
#: (on any device), so the temporaries stay bounded whatever the vocabulary or batch.
CHUNK_ELEMENTS = 1 << 22

#: Vocabulary values per block of the statistics on a CPU. The passes over a block
#: (log-softmax, softmax, log(1 - p), products, centring) touch three block-sized float32
#: arrays (3 MiB at this size), so they run from the last-level cache instead of streaming
#: every pass through main memory, and a block's rows are still wide enough for the
#: intra-op threads. Chosen by measurement (``benchmarks/bench_scoring.py --blocks``).
BLOCK_ELEMENTS = 1 << 18

_LOG_HALF = math.log(0.5)
_LOG1P_MINUS_HALF = math.log1p(-0.5)


def rows_per_chunk(vocab: int, chunk_elements: int = CHUNK_ELEMENTS) -> int:
    """How many positions one chunk of ``chunk_elements`` vocabulary values holds (at least one)."""
    return max(1, chunk_elements // max(1, vocab))


def _rowdot(a: torch.Tensor, b: torch.Tensor, scratch: torch.Tensor | None) -> torch.Tensor:
    """Row-wise dot product through a preallocated ``scratch`` (``linalg.vecdot`` allocates one per call)."""
    return (a * b if scratch is None else torch.mul(a, b, out=scratch)).sum(dim=1)


def _sum_other_p_log1m(p: torch.Tensor, top: torch.Tensor, lp: torch.Tensor, scratch: torch.Tensor | None) -> torch.Tensor:
    """``sum_{v != y} p_v log(1 - p_v)`` per row, from each row's largest log-prob ``top`` and ``lp = log p_y``.

    ``log1p(-min(p, 1/2))`` is exact to float32 rounding for every ``p_v <= 1/2``, and
    only a row's most probable token can exceed 1/2. That token's clamped term is taken
    out again and, unless it is the true token, put back from its log-prob,
    ``log(-expm1(log p))``: exact where ``1 - p`` in float32 would lose most of its digits,
    floored at the ``1 - 1e-10`` clamp. Taking the true token's term out before adding it
    avoids a cancellation of two large terms when it is a near-certain top token.
    Unclamped weights: below 1e-10 a term ``p_v log(1 - p_v) ~ -p_v^2`` is nil either way.
    """
    clamped = torch.clamp(p, max=0.5) if scratch is None else torch.clamp(p, max=0.5, out=scratch)
    total = clamped.neg_().log1p_().mul_(p).sum(dim=1)
    big = top > _LOG_HALF
    # Where the top exceeds 1/2 no other token can share its log-prob, so lp == top names it.
    y_is_top = big & (lp == top)
    p_top = top.exp()
    exact_top = torch.expm1(top).neg_().clamp_min_(PROB_EPS).log_()
    top_term = torch.where(y_is_top, 0.0, p_top * exact_top) - p_top * _LOG1P_MINUS_HALF
    own = lp.exp() * torch.expm1(lp).neg_().clamp_min_(PROB_EPS).log_()
    return total + torch.where(big, top_term, 0.0) - torch.where(y_is_top, 0.0, own)


def chunk_statistics(
    logits: torch.Tensor, y: torch.Tensor, needed: tuple[str, ...], scratch: torch.Tensor | None = None
) -> dict[str, torch.Tensor]:
    """The statistics ``needed`` for one chunk of rows: ``logits`` (rows, V), ``y`` (rows, 1) the true
    tokens, ``scratch`` a (rows, V) float32 work array, or ``None`` to allocate temporaries; the kernel
    :mod:`scoring.fused` compiles, without ``scratch`` (written through, it would be one more pass)."""
    # One log-softmax and one softmax, in float32 even for bf16 models; the rest reuses
    # them in place. The softmax is one fused pass, where exp(log-softmax) is a slower
    # standalone exp over the same row.
    work = torch.log_softmax(logits, dim=-1, dtype=torch.float32)
    lp = work.gather(1, y).squeeze(1)
    out = {"logprob": lp}
    if "minkpp_z" not in needed and "mentr" not in needed:
        return out
    p = torch.softmax(logits, dim=-1, dtype=torch.float32)
    if "mentr" in needed:
        sum_other = _sum_other_p_log1m(p, work.amax(dim=1), lp, scratch)
        one_minus_p_y = torch.expm1(lp).neg_().clamp_min_(PROB_EPS)
        log_p_y = lp.clamp(_LOG_EPS, _LOG_ONE_MINUS_EPS)
        out["mentr"] = -one_minus_p_y * log_p_y - sum_other
    if "minkpp_z" in needed:
        mu = _rowdot(p, work, scratch)
        # Centred second moment: E[X^2] - mu^2 cancels catastrophically in
        # float32 when the distribution is close to flat.
        centred = work.sub_(mu[:, None]).square_()
        sigma = _rowdot(p, centred, scratch).clamp_min_(0.0).sqrt_()
        out["minkpp_z"] = (lp - mu) / sigma.clamp_min(SIGMA_FLOOR)
    return out


def token_statistics(
    logits: torch.Tensor,
    targets: torch.Tensor,
    *,
    needed: tuple[str, ...] = STATISTICS,
    chunk_elements: int = CHUNK_ELEMENTS,
    block_elements: int | None = None,
    kernel=None,
) -> torch.Tensor:
    """Per-token statistics at N scored positions, computed block by block.

    Parameters
    ----------
    logits : torch.Tensor, shape (N, V)
        Next-token logits at N scored positions, any float dtype, on any device.
    targets : torch.Tensor, shape (N,)
        The true next token at each position.
    needed : tuple of str
        Which statistics (names from :data:`scoring.registry.STATISTICS`, in
        that order) to compute; the others cost nothing.
    chunk_elements : int
        At most ``chunk_elements // V`` rows (at least one) at a time.
    block_elements : int, optional
        Fewer rows at a time where ``block_elements // V`` is fewer (at least one):
        default :data:`BLOCK_ELEMENTS` on a CPU, where a block's passes then run
        from cache, and no further limit elsewhere (a GPU prefers fewer, larger launches).
    kernel : callable, optional
        The per-chunk function (default the plain one; :func:`scoring.fused.chunk_kernel`
        gives the compiled one).

    Returns
    -------
    torch.Tensor, shape (len(needed), N), float32, on the logits' device
    """
    n, vocab = logits.shape
    kernel = chunk_statistics if kernel is None else kernel
    if block_elements is None:
        block_elements = BLOCK_ELEMENTS if logits.device.type == "cpu" else chunk_elements
    out = torch.empty((len(needed), n), dtype=torch.float32, device=logits.device)
    step = rows_per_chunk(vocab, min(chunk_elements, block_elements))

    def rows(first: int, last: int) -> None:
        scratch = (torch.empty((min(last - first, step), vocab), dtype=torch.float32, device=logits.device)
                   if kernel is chunk_statistics else None)
        for start in range(first, last, step):
            stop = min(last, start + step)
            part = None if scratch is None else scratch[: stop - start]
            found = kernel(logits[start:stop], targets[start:stop, None], needed, part)
            for row, name in enumerate(needed):
                out[row, start:stop] = found[name]

    # On a CPU each intra-op thread takes whole blocks of rows (scoring.cpu_rows); the blocks,
    # and so every row's arithmetic, are the same either way.
    run_row_parts(rows, n, step, cpu_rows.workers() if logits.device.type == "cpu" else 1)
    return out
