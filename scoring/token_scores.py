"""Per-token statistics on the device, and their reduction to the four text scores.

The split is deliberate: everything that touches a full vocabulary row runs on
the device in float32 (:func:`token_statistics`), and only three numbers per
scored token come back to the host, where :func:`text_scores` reduces each
text's tokens to its four scores in float64.

Formulas (METHOD-NOTES, "Detection scores"), for a scored token with true next
token ``y`` and next-token distribution ``p`` over the vocabulary:

- ``lp = log p_y``;
- Min-K%++ token score ``z = (lp - mu) / sigma`` with ``mu = sum_v p_v log p_v``
  and ``sigma^2 = sum_v p_v (log p_v - mu)^2``;
- Modified Entropy ``-(1 - p_y) log p_y - sum_{v != y} p_v log(1 - p_v)``,
  probabilities clamped to ``[1e-10, 1 - 1e-10]``.
"""

from __future__ import annotations

import math

import numpy as np
import torch

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

#: Rows of the array returned by :func:`token_statistics`.
STAT_ROWS = ("logprob", "minkpp_z", "mentr")


def _rowdot(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Row-wise dot product without an (N, V) temporary."""
    return torch.linalg.vecdot(a, b, dim=-1)


def token_statistics(
    logits: torch.Tensor, targets: torch.Tensor, *, chunk_elements: int = CHUNK_ELEMENTS
) -> torch.Tensor:
    """Per-token log-prob, Min-K%++ z-score and Modified Entropy.

    Parameters
    ----------
    logits : torch.Tensor, shape (N, V)
        Next-token logits at N scored positions, any float dtype, on any device.
    targets : torch.Tensor, shape (N,)
        The true next token at each position.
    chunk_elements : int
        Rows are processed ``chunk_elements // V`` at a time (at least one).

    Returns
    -------
    torch.Tensor, shape (3, N), float32, on the logits' device
        Rows in the order of :data:`STAT_ROWS`: ``log p_y``, the Min-K%++
        token score and the (un-negated) Modified Entropy.
    """
    n, vocab = logits.shape
    out = torch.empty((3, n), dtype=torch.float32, device=logits.device)
    step = max(1, chunk_elements // max(1, vocab))
    for start in range(0, n, step):
        stop = min(n, start + step)
        y = targets[start:stop, None]
        # The log-softmax is taken once, in float32 even for bf16 models.
        work = torch.log_softmax(logits[start:stop].float(), dim=-1)
        lp = work.gather(1, y).squeeze(1)
        p = work.exp()
        mu = _rowdot(p, work)
        # Centred second moment: E[X^2] - mu^2 cancels catastrophically in
        # float32 when the distribution is close to flat.
        work.sub_(mu[:, None]).square_()
        sigma = _rowdot(p, work).clamp_min_(0.0).sqrt_()
        out[0, start:stop] = lp
        out[1, start:stop] = (lp - mu) / sigma.clamp_min(SIGMA_FLOOR)

        # Modified Entropy, reusing the two (rows, V) buffers in place.
        p.clamp_(PROB_EPS, 1.0 - PROB_EPS)
        torch.neg(p, out=work)
        work.log1p_().clamp_min_(_LOG_EPS)  # log(1 - p_v), with 1 - p_v >= 1e-10
        p_y = p.gather(1, y).squeeze(1)
        sum_other = _rowdot(p, work) - p_y * work.gather(1, y).squeeze(1)
        log_p_y = lp.clamp(_LOG_EPS, _LOG_ONE_MINUS_EPS)
        out[2, start:stop] = -(1.0 - p_y) * log_p_y - sum_other
        del work, p
    return out


def n_lowest(n_tokens: int, k: float) -> int:
    """How many of ``n_tokens`` values Min-K% averages: ``max(1, floor(k n))``."""
    return max(1, int(math.floor(k * n_tokens)))


def _mean_lowest(values: np.ndarray, k: float) -> float:
    m = n_lowest(values.size, k)
    return float(np.partition(values, m - 1)[:m].mean()) if m < values.size else float(values.mean())


def text_scores(stats: np.ndarray, *, k_mink: float, k_minkpp: float) -> np.ndarray:
    """Reduce one text's per-token statistics to its four scores.

    Parameters
    ----------
    stats : numpy.ndarray, shape (3, L')
        The text's columns of :func:`token_statistics`.
    k_mink, k_minkpp : float
        Min-K% and Min-K%++ ratios.

    Returns
    -------
    numpy.ndarray, shape (4,), float64
        ``ppl, mink, minkpp, mentr`` (:data:`scoring.settings.SCORE_NAMES`),
        each oriented larger = member: ``mean lp`` (= -log PPL), the mean of
        the lowest lp, the mean of the lowest z, and minus the mean Modified
        Entropy. All NaN when ``L' = 0`` (nothing to score).
    """
    if stats.shape[1] == 0:
        return np.full(4, np.nan)
    stats = stats.astype(np.float64, copy=False)
    lp, z, me = stats
    return np.array([lp.mean(), _mean_lowest(lp, k_mink), _mean_lowest(z, k_minkpp), -me.mean()])
