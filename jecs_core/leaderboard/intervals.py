"""Intervals of the leaderboard: a model's mean result, its inflation, and the range on the truly clean items.

* 0/1 results: the Wilson score interval for a proportion; the inflation
  ``accuracy_all - accuracy_clean = w (p_rest - p_clean)`` (``w`` the share of unselected items, a
  constant given the selection) gets Newcombe's hybrid score interval for ``p_rest - p_clean``,
  scaled by ``w``.
* Other metrics: a percentile bootstrap (seeded, reproducible) for up to :data:`BOOTSTRAP_MAX_N`
  items, the normal (central limit) interval above that, where the two agree to well under the
  interval's width; the inflation resamples the two disjoint groups independently. A percentile
  bootstrap is too narrow on a few items (about half coverage at two), so below
  :data:`SMALL_N` items the interval is widened to cover Student's t interval too (Welch's for the
  inflation; a group of one item borrows the spread of all the values). One item gives no interval.

Every interval is conditional on the selection (which is computed from detection scores, never
from these results): it treats the items of each group as a sample of exchangeable items.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_alpha, check_positive_int, check_rng, real_array

BOOTSTRAP_DRAWS = 2000
BOOTSTRAP_MAX_N = 50_000
SMALL_N = 30


def _z(confidence: float) -> float:
    from scipy import stats  # imported on use: scipy.stats takes most of a second to load

    return float(stats.norm.ppf(0.5 + confidence / 2))


def _t(confidence: float, df: float) -> float:
    from scipy import stats

    return float(stats.t.ppf(0.5 + confidence / 2, df))


def finite_vector(values, name: str) -> np.ndarray:
    """``values`` as a one-dimensional array of finite numbers (one per item or pair)."""
    arr = real_array(values, name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional (one value per item), got shape {arr.shape}")
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        raise ValueError(f"{name} must be finite numbers, got {float(arr[bad[0]])!r} at position {int(bad[0])}")
    return arr


def _widest(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    return min(a[0], b[0]), max(a[1], b[1])


def wilson_interval(successes, n, *, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for ``successes / n`` (NaN where ``n == 0``).

    Examples
    --------
    >>> low, high = wilson_interval(8, 10)
    >>> round(float(low), 4), round(float(high), 4)
    (0.4902, 0.9433)
    """
    s, n = real_array(successes, "successes"), real_array(n, "n")
    z = _z(check_alpha(confidence, "confidence"))
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(s) | ~np.isfinite(n) | (s < 0) | (s > n)
    if bad.any():
        first = tuple(np.argwhere(bad)[0])
        raise ValueError(f"successes and n must be counts with 0 <= successes <= n, got successes="
                         f"{float(np.broadcast_to(s, bad.shape)[first])!r}, n={float(np.broadcast_to(n, bad.shape)[first])!r}")
    with np.errstate(invalid="ignore", divide="ignore"):
        p = s / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z / (1 + z * z / n) * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        low, high = np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)
    # The score interval's end is the proportion itself at 0 and at n successes (no rounding drift).
    low = np.where((s == 0) & (n > 0), 0.0, low)
    high = np.where((s == n) & (n > 0), 1.0, high)
    return low, high


def newcombe_difference(s1, n1, s2, n2, *, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe's hybrid score interval for ``s1/n1 - s2/n2`` (two independent proportions)."""
    p1, p2 = np.asarray(s1, float) / np.asarray(n1, float), np.asarray(s2, float) / np.asarray(n2, float)
    l1, u1 = wilson_interval(s1, n1, confidence=confidence)
    l2, u2 = wilson_interval(s2, n2, confidence=confidence)
    d = p1 - p2
    return d - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)


def _bootstrap_means(values: np.ndarray, rng: np.random.Generator, draws: int) -> np.ndarray:
    """``draws`` means of ``n`` values drawn with replacement from ``values``.

    Where the values take few distinct levels (a graded metric on a lattice, an F1 of short answers),
    a resample's mean depends only on how many draws land on each level, and those counts are
    multinomial with the levels' shares as probabilities: the same distribution of means at a cost
    per level, not per item.
    """
    n = values.shape[0]
    levels, counts = np.unique(values, return_counts=True)
    if levels.shape[0] * 16 <= n:  # a multinomial draw costs about 16 index draws per level
        return rng.multinomial(n, counts / n, size=draws) @ levels / n
    out = np.empty(draws)
    step = max(1, 4_000_000 // max(n, 1))  # bounded memory: a block of draws at a time
    index = np.int32 if n < 2**31 else np.int64  # 32-bit draws take half the time of 64-bit ones
    for start in range(0, draws, step):
        stop = min(draws, start + step)
        out[start:stop] = values[rng.integers(0, n, size=(stop - start, n), dtype=index)].mean(axis=1)
    return out


def _mean_draws(values: np.ndarray, rng: np.random.Generator, confidence: float, draws: int):
    """Bootstrap draws of the mean, or ``None`` above :data:`BOOTSTRAP_MAX_N` (the normal interval is used)."""
    if values.shape[0] > BOOTSTRAP_MAX_N:
        return None
    return _bootstrap_means(values, rng, draws)


def mean_interval(values, *, confidence: float = 0.95, rng: np.random.Generator, draws: int = BOOTSTRAP_DRAWS):
    """Interval for the mean of ``values``: percentile bootstrap, or the normal interval for many items.

    Examples
    --------
    >>> import numpy as np
    >>> low, high = mean_interval(np.linspace(0, 1, 101), rng=np.random.default_rng(0))
    >>> bool(0.43 < low < 0.5 < high < 0.57)
    True
    """
    values, confidence = finite_vector(values, "values"), check_alpha(confidence, "confidence")
    rng, draws = check_rng(rng, allow_none=False), check_positive_int(draws, "draws")
    if values.shape[0] == 0:
        return np.nan, np.nan
    n, mean = values.shape[0], float(values.mean())
    if n == 1:
        return np.nan, np.nan  # one value says nothing about its spread
    boot = _mean_draws(values, rng, confidence, draws)
    if boot is None:
        half = _z(confidence) * values.std(ddof=1) / np.sqrt(n)
        return mean - half, mean + half
    tail = (1 - confidence) / 2
    interval = float(np.quantile(boot, tail)), float(np.quantile(boot, 1 - tail))
    if n >= SMALL_N:
        return interval
    half = _t(confidence, n - 1) * values.std(ddof=1) / np.sqrt(n)
    return _widest(interval, (mean - half, mean + half))


def inflation_interval(clean, rest, *, confidence: float = 0.95, rng: np.random.Generator,
                       draws: int = BOOTSTRAP_DRAWS) -> tuple[float, float]:
    """Interval for ``mean(all) - mean(clean)`` with ``all = clean + rest`` (disjoint groups), non-0/1 values."""
    clean, rest = np.asarray(clean, float), np.asarray(rest, float)
    n_c, n_r = clean.shape[0], rest.shape[0]
    if n_c == 0:
        return np.nan, np.nan
    if n_r == 0:
        return 0.0, 0.0
    w = n_r / (n_c + n_r)
    d = float(rest.mean() - clean.mean())
    if max(n_c, n_r) > BOOTSTRAP_MAX_N:
        half = _z(confidence) * np.sqrt(rest.var(ddof=1) / n_r + clean.var(ddof=1) / n_c)
        return w * (d - half), w * (d + half)
    if min(n_c, n_r) >= SMALL_N:
        return _bootstrap_difference(clean, rest, w, confidence, rng, draws)
    return _few_items_difference(clean, rest, w, d, confidence, rng, draws)


def _bootstrap_difference(clean, rest, w, confidence, rng, draws) -> tuple[float, float]:
    """Percentile bootstrap of ``w (mean(rest) - mean(clean))``, the two groups resampled independently."""
    boot = _bootstrap_means(rest, rng, draws) - _bootstrap_means(clean, rng, draws)
    tail = (1 - confidence) / 2
    return w * float(np.quantile(boot, tail)), w * float(np.quantile(boot, 1 - tail))


def _few_items_difference(clean, rest, w, d, confidence, rng, draws) -> tuple[float, float]:
    """Welch's t interval for ``w (mean(rest) - mean(clean))``, widened to the bootstrap's where both groups
    have two items or more; a group of one item takes the spread of all the values."""
    n_c, n_r = clean.shape[0], rest.shape[0]
    pooled = float(np.concatenate([clean, rest]).var(ddof=1))
    v_c = clean.var(ddof=1) / n_c if n_c > 1 else pooled / n_c
    v_r = rest.var(ddof=1) / n_r if n_r > 1 else pooled / n_r
    terms = [v / (n - 1) if n > 1 else 0.0 for v, n in ((v_c * v_c, n_c), (v_r * v_r, n_r))]
    df = (v_c + v_r) ** 2 / sum(terms) if sum(terms) > 0 else max(n_c + n_r - 2, 1)
    half = _t(confidence, max(min(df, n_c + n_r - 2), 1)) * np.sqrt(v_c + v_r)
    interval = w * (d - half), w * (d + half)
    if min(n_c, n_r) < 2:
        return interval
    return _widest(interval, _bootstrap_difference(clean, rest, w, confidence, rng, draws))


def truly_clean_range(values, max_contaminated: int) -> tuple[float, float]:
    """Lowest and highest mean of ``values`` once at most ``max_contaminated`` of them are removed.

    The extremes remove the largest (lowest mean) or the smallest (highest mean) values, as many as
    allowed while one value is left: a removed value above the mean of the rest always lowers it.

    Examples
    --------
    >>> truly_clean_range([1, 1, 1, 0, 0], 1)
    (0.5, 0.75)
    """
    values = finite_vector(values, "values")
    max_contaminated = check_positive_int(max_contaminated, "max_contaminated", minimum=0)
    n = values.shape[0]
    if n == 0:
        return np.nan, np.nan
    j = min(max_contaminated, n - 1)
    total = float(values.sum())
    if j == 0:
        return total / n, total / n
    top = float(np.partition(values, n - j)[n - j:].sum())
    bottom = float(np.partition(values, j - 1)[:j].sum())
    return (total - top) / (n - j), (total - bottom) / (n - j)


def binary_clean_range(successes: int, n: int, max_contaminated: int) -> tuple[float, float]:
    """:func:`truly_clean_range` for 0/1 values given as counts (removed items right, or wrong, first)."""
    if n == 0:
        return np.nan, np.nan
    j = int(min(max(int(max_contaminated), 0), n - 1))
    low = (successes - min(j, successes)) / (n - j)
    high = (successes - max(0, j - (n - successes))) / (n - j)
    return float(low), float(high)
