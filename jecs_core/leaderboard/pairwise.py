"""Which differences between two models on the clean items are significant, paired on their shared items.

* 0/1 results: the exact McNemar test (a two-sided binomial test on the discordant pairs).
* Other metrics: the sign-flip test of the mean paired difference (Monte Carlo with seeded draws
  for up to :data:`SIGNFLIP_EXACT_MAX` nonzero differences, the normal approximation of the same
  sign-flip distribution above that). The number of draws grows with the family
  (:func:`signflip_draws`), so Holm's smallest threshold stays within reach.

Holm's step-down adjustment over the K(K-1)/2 pairs controls the family-wise error rate.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
import pandas as pd

from .._validation import check_alpha, check_positive_int, check_rng, real_array
from .intervals import finite_vector
from .results import is_binary

SIGNFLIP_DRAWS = 1999
SIGNFLIP_EXACT_MAX = 1000
PAIRWISE_COLUMNS = ("model_a", "model_b", "n_shared", "mean_a", "mean_b", "difference",
                    "p_value", "p_holm", "significant", "test")


def holm(pvalues) -> np.ndarray:
    """Holm's step-down adjusted p-values (same order as given).

    A NaN p-value (a pair with no test) stays NaN and is not counted in the family.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03]).round(3)
    array([0.03, 0.06, 0.06])
    >>> holm([0.01, float("nan"), 0.03]).round(3)
    array([0.02,  nan, 0.03])
    """
    p = real_array(pvalues, "pvalues")
    if p.ndim != 1:
        raise ValueError(f"pvalues must be one-dimensional (one p-value per test), got shape {p.shape}")
    outside = np.flatnonzero(~np.isnan(p) & ~((p >= 0) & (p <= 1)))
    if outside.size:
        raise ValueError(f"pvalues must be in [0, 1] (NaN: no test), got {float(p[outside[0]])!r} at position {int(outside[0])}")
    out = np.full(p.shape[0], np.nan)
    tested = np.flatnonzero(~np.isnan(p))
    m = tested.shape[0]
    order = tested[np.argsort(p[tested], kind="stable")]
    out[order] = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    return out


def _count(value, name: str) -> int:
    """A count as an int: integers, and whole floats as a sum of 0/1 values in a float column gives them."""
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        value = int(value)
    return check_positive_int(value, name, minimum=0)


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts (1.0 when there are none)."""
    a_only, b_only = _count(a_only, "a_only"), _count(b_only, "b_only")
    n = a_only + b_only
    if n == 0:
        return 1.0
    from scipy import stats  # imported on use: scipy.stats takes most of a second to load

    return float(min(1.0, 2 * stats.binom.cdf(min(a_only, b_only), n, 0.5)))


def signflip_draws(m_tested: int, level: float) -> int:
    """Monte Carlo draws per sign-flip test in a Holm family of ``m_tested`` tests at FWER ``level``.

    ``max(SIGNFLIP_DRAWS, ceil(10 m / level) - 1)``: the smallest attainable p-value, ``1 / (draws + 1)``,
    is then at most a tenth of Holm's first threshold ``level / m``, so a large difference can be
    significant in any family. It depends on the family size alone, never on the data, which keeps
    each Monte Carlo p-value valid.

    Examples
    --------
    >>> signflip_draws(1, 0.05), signflip_draws(120, 0.05)
    (1999, 23999)
    """
    m_tested = check_positive_int(m_tested, "m_tested", minimum=0)
    level = check_alpha(level, "level")
    return max(SIGNFLIP_DRAWS, math.ceil(10 * m_tested / level - 1e-9) - 1)


def _flip_hits(d: np.ndarray, rng: np.random.Generator, draws: int) -> int:
    """How many of ``draws`` random sign vectors give ``|sum(s d)| >= |sum(d)|`` (near ties counted).

    Each random byte flips eight differences at once: ``table[g, b]`` is the sum of the differences
    of group ``g`` whose bit is set in byte ``b``, so a draw is one table look-up per group.
    """
    groups = -(-d.shape[0] // 8)
    padded = np.zeros(groups * 8)
    padded[:d.shape[0]] = d
    bits = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).astype(float)  # (256, 8)
    flat = (padded.reshape(groups, 8) @ bits.T).ravel()  # [g * 256 + b]
    offsets = 256 * np.arange(groups)
    total = float(d.sum())
    # The look-up sums add in another order than sum(d): an exact tie may land a rounding error below.
    threshold = abs(total) - 1e-9 * float(np.abs(d).sum())
    hits = 0
    for start in range(0, draws, 4096):
        block = rng.integers(0, 256, size=(min(draws, start + 4096) - start, groups), dtype=np.uint8)
        flipped = flat[block + offsets].sum(axis=1)
        hits += int((np.abs(total - 2 * flipped) >= threshold).sum())
    return hits


def sign_flip(differences, *, rng: np.random.Generator, draws: int = SIGNFLIP_DRAWS) -> float:
    """Two-sided sign-flip p-value for a zero mean of paired ``differences``.

    Up to :data:`SIGNFLIP_EXACT_MAX` nonzero differences, ``(1 + hits) / (draws + 1)`` over ``draws``
    random sign vectors (valid at any number of draws; the smallest value is ``1 / (draws + 1)``);
    above that, the normal approximation of the same sign-flip distribution.

    Examples
    --------
    >>> import numpy as np
    >>> sign_flip([0.5, -0.5, 0.0], rng=np.random.default_rng(0))
    1.0
    """
    d = finite_vector(differences, "differences")  # a NaN would pass d != 0 and make every flip a miss
    rng, draws = check_rng(rng, allow_none=False), check_positive_int(draws, "draws")
    d = d[d != 0]
    if d.shape[0] == 0:
        return 1.0
    if d.shape[0] > SIGNFLIP_EXACT_MAX:
        from scipy import stats

        return float(2 * stats.norm.sf(abs(d.sum()) / np.sqrt(np.square(d).sum())))
    return (1 + _flip_hits(d, rng, draws)) / (draws + 1)


def _rows(order: list[int], models, values: np.ndarray, present: np.ndarray, binary: bool, level: float,
          rng) -> list[dict]:
    x = np.where(present, values, 0.0)
    p = present.astype(float)
    shared = p.T @ p
    tested = sum(int(shared[a, b] > 0) for pos, a in enumerate(order) for b in order[pos + 1:])
    draws = signflip_draws(tested, level)
    right_shared = x.T @ p  # [a, b]: a's total over the items b has too
    both = x.T @ x
    rows = []
    for pos, a in enumerate(order):
        for b in order[pos + 1:]:
            n = int(shared[a, b])
            mean_a = right_shared[a, b] / n if n else np.nan
            mean_b = right_shared[b, a] / n if n else np.nan
            if n == 0:  # nothing to pair on: no test, and no place in Holm's family
                pvalue, test = np.nan, "exact McNemar" if binary else "sign-flip"
            elif binary:
                a_only, b_only = right_shared[a, b] - both[a, b], right_shared[b, a] - both[a, b]
                pvalue, test = mcnemar_exact(int(round(a_only)), int(round(b_only))), "exact McNemar"
            else:
                keep = present[:, a] & present[:, b]
                pvalue, test = sign_flip(values[keep, a] - values[keep, b], rng=rng, draws=draws), "sign-flip"
            rows.append({"model_a": models[a], "model_b": models[b], "n_shared": n, "mean_a": mean_a,
                         "mean_b": mean_b, "difference": mean_a - mean_b, "p_value": pvalue, "test": test})
    return rows


def pairwise_table(values, models, order, *, binary: bool, level: float = 0.05,
                   rng: np.random.Generator) -> pd.DataFrame:
    """Every pair of models, the better-ranked first, tested on the items both have a result for.

    Parameters
    ----------
    values : numpy.ndarray, shape (n, K)
        Results on the clean items (NaN: no result).
    models : sequence of str
    order : sequence of int
        Model indices, best rank first (``model_a`` of each row is ranked above ``model_b``).
    binary : bool
        0/1 results (exact McNemar) or not (sign-flip).
    level : float
        Family-wise error rate for ``significant`` (Holm-adjusted p-value at most ``level``).
    rng : numpy.random.Generator
        For the sign-flip draws: :func:`signflip_draws` of the pairs tested (those sharing an
        item) at ``level``, so the smallest attainable p-value is a tenth of Holm's first threshold.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`PAIRWISE_COLUMNS`, one row per pair; a pair sharing no item has NaN
        p-values (no test) and is not significant.
    """
    values, models, order = _checked(values, models, order, binary)
    level, rng = check_alpha(level, "level"), check_rng(rng, allow_none=False)
    present = ~np.isnan(values)
    rows = _rows(order, models, values, present, binary, level, rng)
    frame = pd.DataFrame(rows, columns=[c for c in PAIRWISE_COLUMNS if c not in ("p_holm", "significant")])
    frame["p_holm"] = holm(frame["p_value"].to_numpy(dtype=float))
    frame["significant"] = frame["p_holm"] <= level
    return frame[list(PAIRWISE_COLUMNS)]


def _checked(values, models, order, binary: bool) -> tuple[np.ndarray, list[str], list[int]]:
    """:func:`pairwise_table`'s inputs checked: an (n, K) matrix, K model names, distinct indices in [0, K)."""
    values = real_array(values, "values")
    if values.ndim != 2:
        raise ValueError(f"values must be two-dimensional (items, models), got shape {values.shape}")
    models = [str(m) for m in models]
    if len(models) != values.shape[1]:
        raise ValueError(f"models must name the {values.shape[1]} columns of values, got {len(models)} name(s)")
    if np.isinf(values).any():
        raise ValueError("values must be finite numbers (NaN: no result)")
    if binary and not is_binary(values):
        raise ValueError("values must be 0/1 with binary=True (exact McNemar); give binary=False for a graded metric")
    order = list(order)
    if any(isinstance(i, bool) or not isinstance(i, numbers.Integral) or not 0 <= i < len(models) for i in order) \
            or len(set(order)) != len(order):
        raise ValueError(f"order must be distinct model indices in [0, {len(models)}), got {order}")
    return values, models, [int(i) for i in order]
