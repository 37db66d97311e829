"""Numbers behind the Learn page's lesson "picking alpha after looking".

Fresh simulated audits (the paper's synthetic setup, :func:`jecs_core.simulate.paper_synthetic`,
drawn as arrays so that a few hundred tables stay within a slider step), the default rule's set at
every alpha of the dashboard's slider, the realized contamination of each set (from the labels the
simulation knows) and the post-hoc bound of each set (:func:`jecs_core.fit_post_hoc`, the library's
bound, fitted once per table).  Pure numpy; :mod:`dashboard.figures.lesson_posthoc` draws it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from jecs_core import conformal_pvalues, fit_post_hoc
from jecs_core.rules import DEFAULT_METHOD, get_rule

# The paper's setup puts 30% of the pool in the calibration set: m = 3 n / 7 for n test items.
CALIBRATION_SHARE = 0.3
# The ways of choosing alpha compared by the lesson, in the order the page lists them.
STRATEGIES = {
    "fixed": "α fixed before looking",
    "most": "the α with the most items",
    "unluckiest": "the unluckiest α on the slider",
}


def calibration_rows(n_items: int) -> int:
    """Calibration rows the lesson's audits use for ``n_items`` test items (the paper's 30% of the pool).

    Parameters
    ----------
    n_items : int
        Test items.

    Returns
    -------
    int
        ``m = round(0.3 / 0.7 * n_items)``, at least 1.
    """
    return max(1, int(round(CALIBRATION_SHARE / (1.0 - CALIBRATION_SHARE) * n_items)))


def per_model_rate(share: float, n_models: int) -> float:
    """Per-model membership rate ``q`` giving a share ``1 - (1 - q)^K`` of contaminated test items.

    Parameters
    ----------
    share : float
        Share of test items in at least one model's training data, in [0, 1).
    n_models : int
        K.

    Returns
    -------
    float
    """
    return 1.0 - (1.0 - share) ** (1.0 / n_models)


def simulate_audit(rng: np.random.Generator, *, n_items: int, n_models: int, share: float, mu: float,
                   calibration_size: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """One fresh audit: per-model conformal p-values and which test items are contaminated.

    Draws exactly what :func:`jecs_core.simulate.paper_synthetic` draws (calibration scores
    ``mu + N(0, 1)``, then memberships, then test scores ``mu M + N(0, 1)``, in that order), without
    building its data frame.

    Parameters
    ----------
    rng : numpy.random.Generator
    n_items, n_models : int
        Test items n and models K.
    share : float
        Share of test items contaminated (in at least one model).
    mu : float
        Member score shift (the signal).
    calibration_size : int, optional
        Calibration rows m (default :func:`calibration_rows`).

    Returns
    -------
    pvalues : ndarray, shape (n, K)
    contaminated : ndarray of bool, shape (n,)
    """
    m = calibration_rows(n_items) if calibration_size is None else int(calibration_size)
    cal = mu + rng.standard_normal((m, n_models))
    members = rng.random((n_items, n_models)) < per_model_rate(share, n_models)
    test = mu * members + rng.standard_normal((n_items, n_models))
    return conformal_pvalues(test, cal), members.any(axis=1)


@dataclass(frozen=True)
class LookingLesson:
    """The default rule's set at every alpha of the slider, over many fresh tables.

    Attributes
    ----------
    alphas : ndarray, shape (a,)
        The slider's alpha grid.
    alpha : float
        The alpha fixed before looking.
    n_selected, contaminated, bound : ndarray of int64, shape (R, a)
        Per table and alpha: the set's size, its contaminated items (labels), its post-hoc bound.
    delta : float
        Error level of the post-hoc bound.
    n_items, n_models, calibration_size : int
    share, mu : float
    rule : str
        The rule whose alpha path is explored (the dashboard's default).
    method : str
        The post-hoc bound's name.
    """

    alphas: np.ndarray
    alpha: float
    n_selected: np.ndarray
    contaminated: np.ndarray
    bound: np.ndarray
    delta: float
    n_items: int
    n_models: int
    calibration_size: int
    share: float
    mu: float
    rule: str
    method: str

    @property
    def reps(self) -> int:
        return int(self.n_selected.shape[0])

    @property
    def fdp(self) -> np.ndarray:
        """Realized contamination of each set (0 for an empty set)."""
        return np.divide(self.contaminated, self.n_selected, out=np.zeros(self.n_selected.shape),
                         where=self.n_selected > 0)

    @property
    def bound_fdp(self) -> np.ndarray:
        """The post-hoc bound as a share of each set (0 for an empty set)."""
        return np.divide(self.bound, self.n_selected, out=np.zeros(self.n_selected.shape), where=self.n_selected > 0)

    @property
    def misses(self) -> np.ndarray:
        """Per table: does any set on the alpha path hold more contaminated items than its bound?"""
        return np.any(self.contaminated > self.bound, axis=1)

    def picked(self, strategy: str) -> np.ndarray:
        """Per table, the index into ``alphas`` that ``strategy`` (a key of :data:`STRATEGIES`) keeps."""
        rows = self.reps
        if strategy == "fixed":
            return np.full(rows, int(np.argmin(np.abs(self.alphas - self.alpha))))
        if strategy == "most":
            return np.argmax(self.n_selected, axis=1)  # the smallest alpha reaching the most items
        if strategy == "unluckiest":
            return np.argmax(self.fdp - self.alphas, axis=1)  # the largest excess over the alpha reported
        raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}, got {strategy!r}")

    def summary(self, strategy: str) -> dict:
        """Mean reported alpha, mean realized contamination, share of tables above the reported alpha,
        and share of tables whose kept set exceeds its post-hoc bound, for one strategy."""
        index = self.picked(strategy)
        rows = np.arange(self.reps)
        reported = self.alphas[index]
        fdp = self.fdp[rows, index]
        return {
            "strategy": STRATEGIES[strategy],
            "mean_alpha": float(reported.mean()),
            "mean_fdp": float(fdp.mean()),
            "share_above": float(np.mean(fdp > reported)),
            "mean_items": float(self.n_selected[rows, index].mean()),
            "share_over_bound": float(np.mean(self.contaminated[rows, index] > self.bound[rows, index])),
        }


def looking_lesson(*, n_items: int = 500, n_models: int = 4, share: float = 0.3, mu: float = 3.0,
                   delta: float = 0.1, alpha: float = 0.1, alphas=None, reps: int = 200,
                   seed: int = 0) -> LookingLesson:
    """Simulate ``reps`` fresh audits and walk the default rule's whole alpha path on each.

    Parameters
    ----------
    n_items, n_models : int
        Test items n (>= 10) and models K (>= 1).
    share : float
        Share of contaminated test items, in [0, 1).
    mu : float
        Signal: member score shift (> 0).
    delta : float
        Error level of the post-hoc bound, in (0, 1).
    alpha : float
        The alpha fixed before looking, in (0, 1).
    alphas : array_like, optional
        The alpha grid an auditor can try (default 0.01, 0.02, ..., 0.5, the dashboard's slider).
    reps : int
        Fresh tables R.
    seed : int

    Returns
    -------
    LookingLesson
    """
    if int(n_items) < 10:
        raise ValueError(f"n_items must be an integer >= 10, got {n_items!r}")
    if int(n_models) < 1:
        raise ValueError(f"n_models must be an integer >= 1, got {n_models!r}")
    if not 0.0 <= share < 1.0:
        raise ValueError(f"share must be in [0, 1), got {share!r}")
    if not (np.isfinite(mu) and mu > 0):
        raise ValueError(f"mu must be a finite number > 0, got {mu!r}")
    if int(reps) < 1:
        raise ValueError(f"reps must be an integer >= 1, got {reps!r}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    grid = np.round(np.arange(0.01, 0.5001, 0.01), 2) if alphas is None else np.asarray(alphas, dtype=float)
    grid = np.union1d(grid, [alpha])  # the fixed alpha is on the path even when off the grid
    rng = np.random.default_rng(seed)
    rule = get_rule(DEFAULT_METHOD)
    m = calibration_rows(int(n_items))
    shape = (int(reps), grid.size)
    sizes, bad, bounds = (np.zeros(shape, dtype=np.int64) for _ in range(3))
    method = ""
    for row in range(int(reps)):
        pvalues, contaminated = simulate_audit(rng, n_items=int(n_items), n_models=int(n_models), share=share, mu=mu,
                                               calibration_size=m)
        fit = fit_post_hoc(pvalues, delta=delta, calibration_size=m)  # checks delta
        method = fit.method
        prepared = rule.prepare(pvalues)
        for col, level in enumerate(grid):
            mask = np.asarray(prepared.select(float(level)).selected, dtype=bool)
            sizes[row, col] = np.count_nonzero(mask)
            if col and sizes[row, col] == sizes[row, col - 1]:
                # The rule's sets are nested in alpha, so the same size is the same set.
                bad[row, col], bounds[row, col] = bad[row, col - 1], bounds[row, col - 1]
                continue
            bad[row, col] = np.count_nonzero(mask & contaminated)
            bounds[row, col] = fit.bound(mask)
    return LookingLesson(grid, float(alpha), sizes, bad, bounds, float(delta), int(n_items), int(n_models), m,
                         float(share), float(mu), DEFAULT_METHOD, method)
