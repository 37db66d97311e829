"""Vectorised per-repetition computations of the evaluation protocol.

Everything here works on a batch of R repetitions at once and reproduces the
scalar library (``conformal_pvalues``, ``storey_bh``, ``fit_jecs``, ``gcp``,
``power``) to the last bit: the same floating-point operations are applied in
the same order, only over more axes.  The facts that make this possible:

* A conformal p-value is ``(1 + c) / (m + 1)`` with an integer count ``c``; the
  map is strictly increasing, so max-p, sorting and the per-model BH cut can
  all be done on the integer counts.
* A step-up selection at level alpha is exactly the ``r*`` smallest values (no
  tie can straddle position ``r*``: a tied value at ``r* + 1`` would pass its own
  step), so with the values sorted once, GCP and power at every alpha are read
  off a cumulative count of contaminated items.
* The JECS fit (lambda, envelope, pi0) does not depend on alpha, and the
  envelope is non-decreasing, so the sorted max-p order also sorts ``p~``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..data import ScoreTable
from ..envelope import DEFAULT_LAMBDA_GRID


@dataclass(frozen=True)
class Prepared:
    """Per-table quantities computed once and shared by every repetition.

    Attributes
    ----------
    calibration_order : numpy.ndarray of int, shape (m, K)
        ``argsort`` of each calibration column.
    test_position : numpy.ndarray of int, shape (n, K)
        ``#{l : T_l^k <= T_i^k}`` over the full calibration set (a searchsorted
        position in the sorted column).
    contaminated : numpy.ndarray of bool, shape (n,)
    """

    calibration_order: np.ndarray
    test_position: np.ndarray
    contaminated: np.ndarray

    @property
    def m(self) -> int:
        return int(self.calibration_order.shape[0])


def tried_lambdas(lam, lambda_grid) -> np.ndarray:
    """The lambdas a JECS fit tries, sorted as :func:`jecs_core.envelope.fit_lambda_grid` sorts them."""
    values = lambda_grid if isinstance(lam, str) else (lam,)
    return np.array(sorted(float(v) for v in values))


def prepare(table: ScoreTable) -> Prepared:
    """Sort the calibration columns and place every test score among them."""
    order = np.argsort(table.calibration, axis=0, kind="stable")
    ordered = np.take_along_axis(table.calibration, order, axis=0)
    position = np.empty(table.test.shape, dtype=np.intp)
    for k in range(table.K):
        position[:, k] = np.searchsorted(ordered[:, k], table.test[:, k], side="right")
    return Prepared(order, position, table.contaminated.copy())


def count_dtype(m: int) -> type:
    """Smallest integer type that holds counts up to ``m`` (int16 halves the memory traffic)."""
    return np.int16 if m < np.iinfo(np.int16).max else np.int32


def conformal_counts(prep: Prepared, cal_rows: np.ndarray, test_rows: np.ndarray) -> np.ndarray:
    """``c_ik = #{l in drawn calibration : T_l^k <= T_i^k}`` for a batch of repetitions.

    Parameters
    ----------
    cal_rows : (R, m_drawn) int
    test_rows : (R, n_drawn) int

    Returns
    -------
    numpy.ndarray of int, shape (R, K, n_drawn)
        Models on the middle axis, so per-model work runs along contiguous rows.
    """
    reps = cal_rows.shape[0]
    drawn = np.zeros((reps, prep.m), dtype=bool)
    np.put_along_axis(drawn, cal_rows, True, axis=1)
    # Drawn-ness in each column's sorted order; its running sum up to a test
    # item's position counts the drawn calibration scores at or below it.
    in_order = drawn[:, prep.calibration_order.T]  # (R, K, m)
    running = np.zeros(in_order.shape[:2] + (prep.m + 1,), dtype=count_dtype(prep.m))
    np.cumsum(in_order, axis=2, out=running[:, :, 1:])
    position = prep.test_position.T[:, test_rows].transpose(1, 0, 2)  # (R, K, n)
    return np.take_along_axis(running, position, axis=2)


def as_pvalues(counts: np.ndarray, m_drawn: int) -> np.ndarray:
    """``(1 + c) / (m + 1)`` with the operations of :func:`jecs_core.conformal_pvalues`."""
    out = counts.astype(float)
    out += 1.0
    out /= m_drawn + 1
    return out


def step_numerators(alphas: np.ndarray, n: int) -> np.ndarray:
    """``alpha * r`` for every alpha and rank ``r = 1..n``, shape (A, n)."""
    return alphas[:, None] * np.arange(1, n + 1)[None, :]


def step_thresholds(numerators: np.ndarray, denominators) -> np.ndarray:
    """``alpha r / (pi0 n)``, evaluated in the library's order (``(alpha * r) / (pi0 * n)``).

    ``denominators`` is a scalar ``pi0 * n`` (result (A, n)) or an array of them
    (result (..., A, n)).
    """
    den = np.asarray(denominators, dtype=float)
    return numerators / den[..., None, None]


def step_up(sorted_values: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """Step-up ``r* = max{r : v_(r) <= threshold_r}`` of ascending rows, for every alpha.

    Parameters
    ----------
    sorted_values : (..., n) float, ascending along the last axis
    thresholds : (A, n) or (..., A, n) float, from :func:`step_thresholds`

    Returns
    -------
    numpy.ndarray of int, shape (..., A); 0 where nothing passes
    """
    n = sorted_values.shape[-1]
    # Compared from the largest rank down: argmax on a contiguous boolean array
    # stops at the first True, so r* is found without scanning the whole row.
    passing = sorted_values[..., None, ::-1] <= thresholds[..., ::-1]
    from_end = np.argmax(passing, axis=-1)
    found = np.take_along_axis(passing, from_end[..., None], axis=-1)[..., 0]
    return np.where(found, n - from_end, 0)


@dataclass(frozen=True)
class MaxPOrder:
    """The max-p values of a batch, sorted, with what the metrics need."""

    sorted_p: np.ndarray          # (R, n) ascending max-p
    contaminated_before: np.ndarray  # (R, n + 1) contaminated items among the r smallest
    n_pure: np.ndarray            # (R,)


def max_p_order(counts: np.ndarray, contaminated: np.ndarray, m_drawn: int) -> MaxPOrder:
    """Sort each repetition's max-p values and count contaminated items cumulatively."""
    top = counts.max(axis=1)
    order = np.argsort(top, axis=1, kind="stable")
    sorted_p = as_pvalues(np.take_along_axis(top, order, axis=1), m_drawn)
    hit = np.take_along_axis(contaminated, order, axis=1)
    before = np.zeros((hit.shape[0], hit.shape[1] + 1), dtype=np.int64)
    np.cumsum(hit, axis=1, out=before[:, 1:])
    n_pure = hit.shape[1] - before[:, -1]
    return MaxPOrder(sorted_p, before, n_pure)


def metrics_from_rstar(r_star: np.ndarray, order: MaxPOrder) -> tuple[np.ndarray, np.ndarray]:
    """GCP and power of "the r* smallest" selections, r_star of shape (R, A)."""
    hits = np.take_along_axis(order.contaminated_before, r_star, axis=1)
    gcp = hits / np.maximum(1, r_star)
    power = (r_star - hits) / np.maximum(1, order.n_pure)[:, None]
    return gcp, power


@dataclass(frozen=True)
class JECSBatchFit:
    """Alpha-free JECS quantities of a batch (NaN lambda / k_n 0 where JECS fell back to JMCS)."""

    sorted_p_tilde: np.ndarray  # (R, n)
    pi0_hat: np.ndarray         # (R,)
    lam: np.ndarray             # (R,)
    k_n: np.ndarray             # (R,)

    @property
    def fallback(self) -> np.ndarray:
        return np.isnan(self.lam)


def _right_ranks(sorted_values: np.ndarray) -> np.ndarray:
    """``#{j : v_j <= v_i}`` for every entry of ascending rows (searchsorted 'right' on itself)."""
    reps, n = sorted_values.shape
    last_of_run = np.ones((reps, n), dtype=bool)
    last_of_run[:, :-1] = sorted_values[:, 1:] != sorted_values[:, :-1]
    ends = np.where(last_of_run, np.arange(1, n + 1), n + 1)
    return np.minimum.accumulate(ends[:, ::-1], axis=1)[:, ::-1]


def _knn_sizes(m_tail: np.ndarray, knn: int | None) -> np.ndarray:
    if knn is None:
        # IEEE sqrt is correctly rounded, so this equals math.ceil(math.sqrt(m)) of envelope.default_knn.
        sizes = np.ceil(np.sqrt(m_tail)).astype(np.int64)
    else:
        sizes = np.full(m_tail.shape, knn, dtype=np.int64)
    return np.clip(sizes, 1, np.maximum(m_tail, 1))


def fit_jecs_batch(sorted_p: np.ndarray, *, lam="auto", knn: int | None = None,
                   lambda_grid=DEFAULT_LAMBDA_GRID) -> JECSBatchFit:
    """:func:`jecs_core.fit_jecs` for every row of ``sorted_p`` (ascending max-p values).

    For each lambda on the grid: tail ``Y = {p > lambda}``, ``k_n``,
    ``g_hat = k_n / (m_R (Y_(k_n) - lambda))``, ``F = lambda g / (1 + lambda g)``
    and slope ``F / lambda``; the first smallest slope wins; rows without any
    tail fall back to JMCS (``p~ = p``, ``pi0 = 1``).
    """
    reps, n = sorted_p.shape
    lambdas = tried_lambdas(lam, lambda_grid)
    starts = np.stack([np.count_nonzero(sorted_p <= value, axis=1) for value in lambdas], axis=1)  # (R, L)
    m_tail = n - starts
    usable = m_tail > 0
    k_n = _knn_sizes(m_tail, knn)
    kth = np.take_along_axis(sorted_p, np.minimum(starts + k_n - 1, n - 1), axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        g_hat = k_n / (m_tail * (kth - lambdas))
        F_lam = lambdas * g_hat / (1.0 + lambdas * g_hat)
        slope = np.where(usable, F_lam / lambdas, np.inf)
    chosen = np.argmin(slope, axis=1)[:, None]  # first minimum = smaller lambda, as the library
    fallback = ~np.take_along_axis(usable, chosen, axis=1)[:, 0]

    pick = lambda values: np.take_along_axis(values, chosen, axis=1)[:, 0]  # noqa: E731
    lam_chosen, F, start, m_r, k = pick(np.broadcast_to(lambdas, starts.shape)), pick(F_lam), pick(starts), pick(m_tail), pick(k_n)
    with np.errstate(divide="ignore", invalid="ignore"):
        pi0 = np.minimum(1.0, (m_r / n) / (1.0 - F))
        below = F[:, None] * (sorted_p / lam_chosen[:, None])
        tail_cdf = (_right_ranks(sorted_p) - start[:, None]) / m_r[:, None]
        above = F[:, None] + (1.0 - F[:, None]) * tail_cdf
    p_tilde = np.where(np.arange(n)[None, :] < start[:, None], below, above)
    p_tilde[fallback] = sorted_p[fallback]
    pi0[fallback] = 1.0
    lam_chosen = np.where(fallback, np.nan, lam_chosen)
    k = np.where(fallback, 0, k)
    return JECSBatchFit(p_tilde, pi0, lam_chosen, k)


def per_model_selections(counts: np.ndarray, bh_thresholds: np.ndarray, m_drawn: int) -> tuple[np.ndarray, np.ndarray]:
    """Union and intersection of the per-model BH selections at every alpha.

    Model k selects the ``r*_k`` items with the smallest counts, i.e. the items
    whose count is at most the ``r*_k``-th smallest (ties never straddle it).

    Parameters
    ----------
    counts : (R, K, n) int, from :func:`conformal_counts`
    bh_thresholds : (A, n) float

    Returns
    -------
    union, intersection : numpy.ndarray of bool, shape (R, A, n)
    """
    by_model = np.sort(counts, axis=2)
    r_star = step_up(as_pvalues(by_model, m_drawn), bh_thresholds)  # (R, K, A)
    cut = np.take_along_axis(by_model, np.maximum(r_star - 1, 0), axis=2)
    cut = np.where(r_star > 0, cut, -1)  # (R, K, A)
    union = np.zeros((counts.shape[0], cut.shape[2], counts.shape[2]), dtype=bool)
    intersection = np.ones_like(union)
    # One model at a time: numpy reduces a middle axis (any/all over K) far slower
    # than it ORs / ANDs whole contiguous blocks.
    for k in range(counts.shape[1]):
        chosen = counts[:, None, k, :] <= cut[:, k, :, None]  # (R, A, n)
        union |= chosen
        intersection &= chosen
    return union, intersection


def storey_pi0_batch(sorted_p: np.ndarray, *, lam: float, cap: float, correction: float) -> np.ndarray:
    """Capped "+1" Storey estimate of every repetition, as ``fit_storey_maxp`` computes it.

    ``pi0 = correction * min((1 + #{p* > lam}) / (n (1 - lam)), cap)`` with the scalar
    operations of the rule (an int-over-float division, then ``min``, then the product),
    so a step-up with it matches the rule bit for bit.  Any finite-sample step-up on max-p
    whose pi0 is a function of that tail count can reuse this shape.
    """
    reps, n = sorted_p.shape
    m_tail = n - (sorted_p <= lam).sum(axis=1)  # sorted rows: n - searchsorted(row, lam, "right")
    raw = (1 + m_tail) / (max(n, 1) * (1 - lam))
    return correction * np.minimum(raw, cap)
