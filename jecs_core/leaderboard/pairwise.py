"""Which differences between two models on the clean items are significant, paired on their shared items.

* 0/1 results: the exact McNemar test (a two-sided binomial test on the discordant pairs).
* Other metrics: the sign-flip test of the mean paired difference (Monte Carlo with seeded draws
  for up to :data:`SIGNFLIP_EXACT_MAX` nonzero differences, the normal approximation of the same
  sign-flip distribution above that).

Holm's step-down adjustment over the K(K-1)/2 pairs controls the family-wise error rate.
"""

from __future__ import annotations

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


def sign_flip(differences, *, rng: np.random.Generator, draws: int = SIGNFLIP_DRAWS) -> float:
    """Two-sided sign-flip p-value for a zero mean of paired ``differences``."""
    d = finite_vector(differences, "differences")  # a NaN would pass d != 0 and make every flip a miss
    rng, draws = check_rng(rng, allow_none=False), check_positive_int(draws, "draws")
    d = d[d != 0]
    if d.shape[0] == 0:
        return 1.0
    observed = abs(d.sum())
    if d.shape[0] > SIGNFLIP_EXACT_MAX:
        from scipy import stats

        return float(2 * stats.norm.sf(observed / np.sqrt(np.square(d).sum())))
    hits = 0
    for start in range(0, draws, 500):
        # A flipped sum is sum(d) - 2 * (the flipped part): one matrix product over 0/1 draws.
        bits = rng.integers(0, 2, size=(min(draws, start + 500) - start, d.shape[0])).astype(float)
        hits += int((np.abs(d.sum() - 2 * (bits @ d)) >= observed - 1e-12 * observed).sum())
    return (1 + hits) / (draws + 1)


def _rows(order: list[int], models, values: np.ndarray, present: np.ndarray, binary: bool, rng) -> list[dict]:
    x = np.where(present, values, 0.0)
    p = present.astype(float)
    shared = p.T @ p
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
                pvalue, test = sign_flip(values[keep, a] - values[keep, b], rng=rng), "sign-flip"
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
        For the sign-flip draws.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`PAIRWISE_COLUMNS`, one row per pair; a pair sharing no item has NaN
        p-values (no test) and is not significant.
    """
    values, models, order = _checked(values, models, order, binary)
    level, rng = check_alpha(level, "level"), check_rng(rng, allow_none=False)
    present = ~np.isnan(values)
    rows = _rows(order, models, values, present, binary, rng)
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
