"""The step-up's ``r*`` without sorting a whole column.

``r* = max{r : p_(r) <= alpha r / (pi0 n)}`` needs the ranks only near the crossing. The
values that can pass (at most ``alpha / pi0``) are put in equal-width buckets, about eight values
to a bucket (so that the per-bucket arrays stay small beside the values); one ``bincount`` gives
every bucket's last rank. A value in bucket ``b`` has a
rank at most that bucket's last rank and is at least the bucket's lower edge, so a bucket whose
lower edge lies above ``alpha * last_rank / (pi0 n)`` holds no passing value. Only the values of
the highest buckets that may pass are sorted, and the exact step-up test runs on them with their
true ranks (the bucket of a value is a monotone function of it, so buckets order the values):
``r*`` and the cut-off value are those of a full sort, bit for bit.
"""

from __future__ import annotations

import numpy as np

# Below this many candidate values, sorting them is as cheap as bucketing.
_SORT_BELOW = 4096
# Lower edges are shrunk by this factor: the bucket of ``v`` is floor(v * scale) in floating
# point, which may round up by an ulp, so the true lower edge can sit a hair below b / scale.
_EDGE_SLACK = 1.0 - 1e-9
# Candidate values per bucket, on average.
_PER_BUCKET = 8


def last_pass(ordered: np.ndarray, first_rank: int, alpha: float, pi0: float, n: int) -> tuple[int, float]:
    """The highest rank in a sorted run of values (ranks ``first_rank + 1, ...``) passing the step-up test."""
    ranks = np.arange(first_rank + 1, first_rank + ordered.size + 1)
    passing = np.flatnonzero(ordered <= alpha * ranks / (pi0 * n))
    if not passing.size:
        return 0, 0.0
    return int(ranks[passing[-1]]), float(ordered[passing[-1]])


def step_up_rank(values: np.ndarray, alpha: float, pi0: float) -> tuple[int, float]:
    """``r*`` of the step-up on ``values`` and the ``r*``-th smallest value (0 and 0.0 when none pass).

    ``values`` are already validated p-values (finite, in [0, 1]); ``alpha`` and ``pi0`` already
    validated. Equal to sorting ``values`` and running ``step_up_sorted`` (hypothesis tests in
    ``tests/core/test_step_up_rank.py``).
    """
    n = values.shape[0]
    if n == 0:
        return 0, 0.0
    top = alpha * n / (pi0 * n)  # the r = n threshold, computed as the sorted step-up computes it
    candidates = values[values <= top]
    count = candidates.shape[0]
    if count < _SORT_BELOW or top <= 0.0:
        return last_pass(np.sort(candidates), 0, alpha, pi0, n)
    n_buckets = count // _PER_BUCKET
    scale = n_buckets / top
    buckets = (candidates * scale).astype(np.int64)
    np.minimum(buckets, n_buckets - 1, out=buckets)  # v == top lands in bucket `n_buckets`: fold it into the last
    sizes = np.bincount(buckets, minlength=n_buckets)
    last_rank = np.cumsum(sizes)
    edges = np.arange(n_buckets, dtype=np.float64) / scale * _EDGE_SLACK
    may_pass = np.flatnonzero((sizes > 0) & (edges <= alpha * last_rank / (pi0 * n)))
    rank_before = (last_rank - sizes)[may_pass]
    # Walk down from the highest bucket that may pass, sorting about `budget` values at a time.
    budget = max(_SORT_BELOW, count // 16)
    end = may_pass.size
    while end > 0:
        high = int(may_pass[end - 1])
        start = min(int(np.searchsorted(rank_before[:end], last_rank[high] - budget)), end - 1)
        low = int(may_pass[start])
        block = np.sort(candidates[(buckets >= low) & (buckets <= high)])
        found = last_pass(block, int(rank_before[start]), alpha, pi0, n)
        if found[0]:
            return found
        end = start
    return 0, 0.0
