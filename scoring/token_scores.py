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

#: Vocabulary rows are processed in chunks of about this many float32 elements,
#: so the temporaries stay a few tens of MiB whatever the vocabulary or batch.
CHUNK_ELEMENTS = 1 << 22


def _rowdot(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Row-wise dot product without an (N, V) temporary."""
    return torch.linalg.vecdot(a, b, dim=-1)


def rows_per_chunk(vocab: int, chunk_elements: int = CHUNK_ELEMENTS) -> int:
    """How many positions one chunk of ``chunk_elements`` vocabulary values holds (at least one)."""
    return max(1, chunk_elements // max(1, vocab))


def _chunk_statistics(logits: torch.Tensor, y: torch.Tensor, needed: tuple[str, ...]) -> dict[str, torch.Tensor]:
    # The log-softmax is taken once, in float32 even for bf16 models.
    work = torch.log_softmax(logits.float(), dim=-1)
    lp = work.gather(1, y).squeeze(1)
    out = {"logprob": lp}
    if "minkpp_z" not in needed and "mentr" not in needed:
        return out
    p = work.exp()
    if "mentr" in needed:
        # log(1 - p_v) as log(-expm1(log p_v)): exact where p_v is near 1, where 1 - p_v
        # in float32 would lose most of its digits; the floor is the 1 - 1e-10 clamp.
        log1m = torch.expm1(work).neg_().clamp_min_(PROB_EPS).log_()
        p_y = p.gather(1, y).squeeze(1)
        # Unclamped weights: below 1e-10 a term p_v log(1 - p_v) ~ -p_v^2 is nil either way.
        sum_other = _rowdot(p, log1m) - p_y * log1m.gather(1, y).squeeze(1)
        one_minus_p_y = torch.expm1(lp).neg_().clamp_min_(PROB_EPS)
        log_p_y = lp.clamp(_LOG_EPS, _LOG_ONE_MINUS_EPS)
        out["mentr"] = -one_minus_p_y * log_p_y - sum_other
        del log1m
    if "minkpp_z" in needed:
        mu = _rowdot(p, work)
        # Centred second moment: E[X^2] - mu^2 cancels catastrophically in
        # float32 when the distribution is close to flat.
        centred = work.sub_(mu[:, None]).square_()
        sigma = _rowdot(p, centred).clamp_min_(0.0).sqrt_()
        out["minkpp_z"] = (lp - mu) / sigma.clamp_min(SIGMA_FLOOR)
    return out


def token_statistics(
    logits: torch.Tensor,
    targets: torch.Tensor,
    *,
    needed: tuple[str, ...] = STATISTICS,
    chunk_elements: int = CHUNK_ELEMENTS,
) -> torch.Tensor:
    """Per-token statistics at N scored positions, computed chunk by chunk.

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
        Rows are processed ``chunk_elements // V`` at a time (at least one).

    Returns
    -------
    torch.Tensor, shape (len(needed), N), float32, on the logits' device
    """
    n, vocab = logits.shape
    out = torch.empty((len(needed), n), dtype=torch.float32, device=logits.device)
    step = rows_per_chunk(vocab, chunk_elements)
    for start in range(0, n, step):
        stop = min(n, start + step)
        found = _chunk_statistics(logits[start:stop], targets[start:stop, None], needed)
        for row, name in enumerate(needed):
            out[row, start:stop] = found[name]
    return out
