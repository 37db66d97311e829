"""A matched twin of an audit: a generator of synthetic labelled tables that look like it.

Conformal p-values depend on each model's scores only through ranks, so a twin is
drawn on the normal-score scale (any monotone map back to the audit's scale gives
the same p-values).  What it keeps from the audit, with no labels needed:

* the cross-model dependence: a Gaussian copula whose correlation is the Pearson
  correlation of the calibration items' normal scores ``Phi^-1(rank / (m + 1))``;
* the member / non-member separation of each model: test normal scores are a
  two-part mixture, members ``N(0, 1)`` (like calibration) and non-members
  ``N(-delta_k, 1)``; ``delta_k`` and the member share are fitted by EM, with the
  items below every calibration score (or above) treated as censored;
* the contaminated share, per exposure pattern: a Storey-type estimate on max-p,
  ``(s - q0) / (q1 - q0)`` with ``s`` the audit's share of max-p values above 0.5
  and ``q1`` / ``q0`` the chance of that for a contaminated / clean item under the
  twin (plain Storey divides by ``1 - 0.5``, which assumes a uniform max-p and
  overstates the share when items sit in several models), so each twin
  reproduces the audit's max-p tail count;
* the sizes m and n.

Where the contamination sits is not identifiable without labels, so a twin is
drawn under an exposure pattern (:data:`PATTERNS`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd
from scipy.special import ndtr, ndtri

from ..conformal import conformal_pvalues
from ..data import ScoreTable
from ._common import as_table, check_count, fmt, json_matrix, json_number
from .tail import storey_pi0

# Exposure patterns of a twin's contaminated items.
PATTERNS: dict[str, str] = {
    "one_model": "every contaminated item is a member of one model (the most exposed one)",
    "spread": "every contaminated item is a member of one model drawn uniformly (exposure spread over all models)",
    "mixed": "each contaminated item is a member of each model with probability 1/2 (at least one)",
}
# Largest shift fitted: beyond it nearly every non-member sits below all calibration scores.
MAX_SHIFT = 8.0
_EM_STEPS = 300
# Largest twin test set (see twin_size): the largest pool of the validity study's grid is 3,000 items.
MAX_TWIN_TEST = 3_000
_NO_COLUMNS = pd.DataFrame()


def _correlate(normals: np.ndarray, chol: np.ndarray) -> np.ndarray:
    """``normals @ chol.T`` without BLAS: for these thin matrices a threaded BLAS call
    costs several times the arithmetic on a busy machine (measured 28 ms against 6 ms)."""
    return np.einsum("ij,kj->ik", normals, chol)


@lru_cache(maxsize=8)
def _item_ids(count: int) -> np.ndarray:
    """"0" .. str(count - 1), built once per size (converting to str costs more than a twin's scores)."""
    ids = np.arange(count).astype(str)
    ids.flags.writeable = False
    return ids


@dataclass(frozen=True)
class TwinModel:
    """Parameters of an audit's twin.

    Attributes
    ----------
    models : tuple of str
    m, n : int
        Calibration and test sizes.
    correlation : numpy.ndarray, shape (K, K)
        Gaussian-copula correlation (positive definite).
    shift : numpy.ndarray, shape (K,)
        Non-member shift ``delta_k`` on the normal-score scale.
    member_share : numpy.ndarray, shape (K,)
        Fitted share of test items that are members of model k.
    contaminated_share : dict of str to float
        Per exposure pattern: share of test items contaminated in some model, matched
        to the audit's max-p tail count.
    storey_share : float
        Plain Storey on max-p, ``min(1, (1 + #{p* > 0.5}) / (n / 2))`` (for reference).
    """

    models: tuple[str, ...]
    m: int
    n: int
    correlation: np.ndarray
    shift: np.ndarray
    member_share: np.ndarray
    contaminated_share: dict
    storey_share: float

    @property
    def K(self) -> int:
        return len(self.models)

    def memberships(self, rng: np.random.Generator, pattern: str, *, n: int | None = None,
                    share: float | None = None) -> np.ndarray:
        """(n, K) int8 member labels of a fresh test set under ``pattern``."""
        if pattern not in PATTERNS:
            raise ValueError(f"pattern must be one of {list(PATTERNS)}, got {pattern!r}")
        n = self.n if n is None else n
        share = self.contaminated_share[pattern] if share is None else share
        contaminated = rng.random(n) < share
        members = np.zeros((n, self.K), dtype=np.int8)
        rows = np.flatnonzero(contaminated)
        if pattern == "one_model":
            members[rows, int(np.argmax(self.member_share))] = 1
        elif pattern == "spread":
            members[rows, rng.integers(0, self.K, rows.size)] = 1
        else:
            members[rows] = rng.random((rows.size, self.K)) < 0.5
            empty = rows[members[rows].sum(axis=1) == 0]
            members[empty, rng.integers(0, self.K, empty.size)] = 1
        return members

    def sample(self, rng: np.random.Generator, pattern: str) -> ScoreTable:
        """A fresh labelled twin table (scores on the normal-score scale)."""
        chol = np.linalg.cholesky(self.correlation)
        members = self.memberships(rng, pattern)
        calibration = _correlate(rng.standard_normal((self.m, self.K)), chol)
        test = _correlate(rng.standard_normal((self.n, self.K)), chol) - self.shift * (1 - members)
        # One shared empty frame for the carried columns: building two per twin costs more than the twin.
        return ScoreTable(self.models, calibration, test, _item_ids(self.m), _item_ids(self.n), members,
                          test_extra=_NO_COLUMNS,
                          calibration_extra=_NO_COLUMNS, source="twin")

    def to_dict(self) -> dict:
        off = self.correlation[~np.eye(self.K, dtype=bool)]
        return {"m": self.m, "n": self.n, "models": list(self.models),
                "copula_correlation_mean": json_number(off.mean()) if off.size else None,
                "copula_correlation": json_matrix(self.correlation),
                "shift": [json_number(v) for v in self.shift],
                "member_share": [json_number(v) for v in self.member_share],
                "contaminated_share": {k: json_number(v) for k, v in self.contaminated_share.items()},
                "storey_share": json_number(self.storey_share)}

    def lines(self) -> list[str]:
        off = self.correlation[~np.eye(self.K, dtype=bool)]
        shares = ", ".join(f"{k} {fmt(v)}" for k, v in self.contaminated_share.items())
        return [f"twin: copula correlation mean {fmt(off.mean()) if off.size else 'n/a'}, non-member shift "
                f"{fmt(self.shift.min(), 2)} .. {fmt(self.shift.max(), 2)} SD, contaminated share {shares} "
                f"(plain Storey on max-p {fmt(self.storey_share)})"]


def normal_scores(counts: np.ndarray, m: int) -> np.ndarray:
    """``Phi^-1((c + 1/2) / (m + 1))`` of calibration counts ``c`` (mid-rank normal scores)."""
    return ndtri((counts + 0.5) / (m + 1))


def copula_correlation(calibration: np.ndarray) -> np.ndarray:
    """Pearson correlation of the calibration normal scores, made positive definite."""
    m, k = calibration.shape
    if k == 1 or m < 3:
        return np.eye(k)
    ranks = np.argsort(np.argsort(calibration, axis=0, kind="stable"), axis=0)
    corr = np.corrcoef(ndtri((ranks + 1) / (m + 1)), rowvar=False)
    corr = np.nan_to_num(corr, nan=0.0)
    values, vectors = np.linalg.eigh((corr + corr.T) / 2)
    fixed = (vectors * np.clip(values, 1e-6, None)) @ vectors.T
    scale = np.sqrt(np.diag(fixed))
    out = fixed / np.outer(scale, scale)
    np.fill_diagonal(out, 1.0)
    return out


def _normal_pdf(x):
    # With scipy.special's normal CDF and quantile, this density spares the select path scipy.stats' import.
    return np.exp(-np.square(x) / 2.0) / np.sqrt(2.0 * np.pi)


def _censored_mean(mu: float, low: float, high: float, kind: np.ndarray, u: np.ndarray) -> np.ndarray:
    """E[X | observation] for X ~ N(mu, 1): u where seen, truncated means where censored."""
    out = u.copy()
    a, b = low - mu, high - mu
    out[kind < 0] = mu - _normal_pdf(a) / max(ndtr(a), 1e-300)
    out[kind > 0] = mu + _normal_pdf(b) / max(ndtr(-b), 1e-300)
    return out


def fit_shift(counts: np.ndarray, m: int) -> tuple[float, float]:
    """EM fit of (non-member shift delta, member share w) from one model's test counts.

    ``counts`` are ``#{calibration <= test score}`` (0..m).  Count 0 is censored below
    ``Phi^-1(1/(m+1))`` and count m above ``Phi^-1(m/(m+1))``.
    """
    low, high = ndtri(1 / (m + 1)), ndtri(m / (m + 1))
    kind = np.where(counts <= 0, -1, np.where(counts >= m, 1, 0))
    u = np.where(kind == 0, normal_scores(np.clip(counts, 0, m), m), 0.0)
    mu, w = min(0.0, float(np.median(normal_scores(counts, m)))), 0.1

    def likelihood(mean: float) -> np.ndarray:
        seen = _normal_pdf(u - mean)
        return np.where(kind < 0, ndtr(low - mean), np.where(kind > 0, ndtr(mean - high), seen))

    for _ in range(_EM_STEPS):
        member, other = w * likelihood(0.0), (1 - w) * likelihood(mu)
        r = member / np.maximum(member + other, 1e-300)
        new_w = float(np.clip(r.mean(), 0.0, 1.0))
        weight = 1 - r
        new_mu = float(np.sum(weight * _censored_mean(mu, low, high, kind, u)) / max(weight.sum(), 1e-12))
        new_mu = float(np.clip(new_mu, -MAX_SHIFT, 0.0))
        done = abs(new_mu - mu) < 1e-6 and abs(new_w - w) < 1e-6
        mu, w = new_mu, new_w
        if done:
            break
    return -mu, w


def matched_shares(model: TwinModel, tail_share: float, *, lam: float = 0.5, size: int = 20_000) -> dict:
    """Per pattern, the contaminated share whose twin puts ``tail_share`` of max-p values above ``lam``.

    ``q1`` / ``q0`` (the chance that a contaminated / clean item has max-p above ``lam``)
    are computed on ``size`` simulated items with the limiting p-values ``Phi(score)``
    (a fixed seed, so the fit is deterministic).
    """
    rng = np.random.default_rng(20_251_122)
    chol = np.linalg.cholesky(model.correlation)
    latent = _correlate(rng.standard_normal((size, model.K)), chol)
    q0 = float(np.mean(ndtr(latent - model.shift).max(axis=1) > lam))
    out = {}
    for pattern in PATTERNS:
        members = model.memberships(rng, pattern, n=size, share=1.0)
        q1 = float(np.mean(ndtr(latent - model.shift * (1 - members)).max(axis=1) > lam))
        out[pattern] = float(np.clip((tail_share - q0) / max(q1 - q0, 1e-9), 0.0, 1.0))
    return out


def twin_size(m: int, n: int, max_test: int) -> tuple[int, int]:
    """Twin calibration and test sizes: the audit's, scaled down together when ``n > max_test``.

    The validity study (docs/VALIDITY.md) found the paper's JECS overshooting about as often at 3,000 items as at
    300, and a smaller table is, if anything, the harder case for a tail estimate.
    """
    if n <= max_test:
        return m, n
    return max(2, round(m * max_test / n)), max_test


def fit_twin(table, *, max_test: int = MAX_TWIN_TEST) -> TwinModel:
    """Fit the twin parameters of an audit (no labels used).

    Parameters
    ----------
    table : ScoreTable or pandas.DataFrame
    max_test : int
        Largest twin test set; a larger audit is fitted on (and twinned at) a fixed-seed
        subsample of this many test items, with the calibration size scaled alike.

    Returns
    -------
    TwinModel
    """
    table = as_table(table)
    max_test = check_count(max_test, "max_test", 2)
    if table.m < 2 or table.n < 2:
        raise ValueError(f"table: a twin needs at least 2 calibration and 2 test items, got m={table.m}, n={table.n}")
    test = table.test
    if table.n > max_test:  # the EM and the tail share do not need every item of a huge audit
        test = test[np.sort(np.random.default_rng(0).choice(table.n, max_test, replace=False))]
    cal_sorted = np.sort(table.calibration, axis=0)
    shifts, shares = np.empty(table.K), np.empty(table.K)
    for k in range(table.K):
        counts = np.searchsorted(cal_sorted[:, k], test[:, k], side="right")
        shifts[k], shares[k] = fit_shift(counts, table.m)
    p_max = conformal_pvalues(test, table.calibration).max(axis=1)
    m, n = twin_size(table.m, table.n, max_test)
    model = TwinModel(table.models, m, n, copula_correlation(table.calibration), shifts, shares, {}, storey_pi0(p_max))
    matched = matched_shares(model, float(np.mean(p_max > 0.5)))
    return TwinModel(model.models, m, n, model.correlation, shifts, shares, matched, model.storey_share)
