"""A discreteness-aware reference family for conformal p-values: the calibration urn.

With ``m`` calibration rows, a conformal p-value lies on the grid ``j / (m + 1)``.  For a null item
whose scores are exchangeable with the calibration rows, the count ``N_j`` of null test items at or
below ``j / (m + 1)`` has a law that depends on nothing but ``n`` and ``m``: given the calibration
rows, the items fall below the ``j``-th calibration order statistic independently with probability
``W_j ~ Beta(j, m + 1 - j)`` (one shared draw for all items, which is what makes them dependent), so
``N_j ~ BetaBinomial(n, j, m + 1 - j)`` jointly over ``j`` (the urn law of transductive conformal
inference; Gazin, Blanchard & Roquain 2024).  Simulating that joint law gives thresholds ``c_j``
with ``P(exists j : N_j >= c_j) <= delta`` (a joint error rate in the sense of Blanchard, Neuvial &
Roquain 2020), and then, for every set ``S`` at once,

    contaminated(S) <= min over j of  #{i in S : p_i > j / (m + 1)} + c_j - 1.

Simes' thresholds ``delta k / n`` ignore the grid and spend their error on counts the grid makes
impossible; the urn thresholds sit a few standard deviations above the urn's mean count instead.
Calibrating with all ``n`` items null is conservative for any smaller null set (adding null items
only raises every ``N_j``).  The simulation uses a fixed seed, so the bound is a deterministic
function of the p-values, and its target is ``delta`` minus two Monte Carlo standard errors.

Example
-------
>>> levels, thresholds = urn_template(1000, 200, 0.1)
>>> levels[:3].tolist(), thresholds[:3].tolist()
([1, 2, 3], [20, 31, 41])
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .._blocks import row_blocks

# Monte Carlo draws of the urn per (n, m, delta); the error target is delta - 2 SE of that many.
DRAWS = 4000
# Grid levels used: every j up to DENSE, then geometrically spaced up to (m + 1) / 2, TOTAL in all.
DENSE, TOTAL = 48, 96
_SEED = 20261123


def grid_levels(m: int) -> np.ndarray:
    """The grid indices ``j`` (p-value ``j / (m + 1)``) the template uses."""
    top = max(1, (m + 1) // 2)
    levels = np.arange(1, min(DENSE, top) + 1)
    if top > DENSE:
        extra = np.round(np.geomspace(DENSE + 1, top, TOTAL - DENSE)).astype(np.int64)
        levels = np.unique(np.concatenate([levels, extra]))
    return levels


def draw_counts(n: int, m: int, levels: np.ndarray, draws: int, rng: np.random.Generator) -> np.ndarray:
    """Joint draws of ``N_j`` (``j`` in ``levels``) for ``n`` null conformal p-values, shape (draws, levels).

    The calibration order statistics come from gamma spacings (``W_j = G_j / G_{m+1}``) and the
    counts from successive binomial splits, so a draw costs O(levels), not O(n + m).
    """
    spacing = np.diff(np.concatenate([[0], levels, [m + 1]])).astype(float)
    cumulative = np.cumsum(rng.standard_gamma(spacing, size=(draws, spacing.size)), axis=1)
    w = cumulative[:, :-1] / cumulative[:, -1:]
    counts = np.empty((draws, levels.size), dtype=np.int64)
    below, w_prev = np.zeros(draws, dtype=np.int64), np.zeros(draws)
    for t in range(levels.size):
        share = np.clip((w[:, t] - w_prev) / np.maximum(1.0 - w_prev, 1e-300), 0.0, 1.0)
        below = below + rng.binomial(n - below, share)
        counts[:, t] = below
        w_prev = w[:, t]
    return counts


def _allowed_draws(delta: float) -> int:
    """How many of the ``DRAWS`` simulated urns may cross a threshold: ``delta`` less two Monte Carlo SEs."""
    return int(np.floor((delta - 2 * np.sqrt(delta * (1 - delta) / DRAWS)) * DRAWS))


def urn_resolves(delta: float) -> bool:
    """Whether ``DRAWS`` draws can certify the error rate ``delta`` (about 0.001 and above)."""
    return _allowed_draws(float(delta)) >= 0


@lru_cache(maxsize=64)
def _template(n: int, m: int, delta: float) -> tuple[np.ndarray, np.ndarray]:
    levels = grid_levels(m)
    counts = draw_counts(n, m, levels, DRAWS, np.random.default_rng(_SEED))
    w = levels / (m + 1)
    mean = n * w
    sd = np.sqrt(n * w * (1 - w) * (n + m + 1) / (m + 2))  # the beta-binomial standard deviation
    allowed = _allowed_draws(delta)
    if allowed < 0:
        raise ValueError(f"delta: {delta:g} is below what {DRAWS:,} urn draws can certify; check urn_resolves(delta)")
    z_max = np.sort(((counts - mean) / sd).max(axis=1))
    lam = z_max[DRAWS - 1 - allowed] if allowed < DRAWS else -np.inf
    thresholds = np.maximum(np.floor(mean + lam * sd).astype(np.int64) + 1, 1)
    # Float ties at the cut: raise every threshold until at most `allowed` draws reach one.
    while np.count_nonzero((counts >= thresholds).any(axis=1)) > allowed:
        thresholds += 1
    levels.setflags(write=False)
    thresholds.setflags(write=False)
    return levels, thresholds


def urn_template(n: int, m: int, delta: float) -> tuple[np.ndarray, np.ndarray]:
    """Grid levels ``j`` and thresholds ``c_j`` with ``P(exists j : N_j >= c_j) <= delta`` for ``n`` nulls.

    Parameters
    ----------
    n : int
        Number of test items.
    m : int
        Number of calibration rows.
    delta : float
        Joint error rate in (0, 1).

    Returns
    -------
    levels, thresholds : ndarray of int64
        Read-only; cached per ``(n, m, delta)``.
    """
    return _template(int(n), int(m), float(delta))


def grid_index(p: np.ndarray, m: int) -> np.ndarray | None:
    """``j`` with ``p = j / (m + 1)`` for every p-value, or ``None`` when some p-value is off the grid.

    The tolerance is absolute on the ``j`` scale (a millionth of a grid step, plus the rounding of
    ``(1 + count) / (m + 1)`` in float64), so a coarser grid never passes as a fine one: p-values
    ``j' / 100`` are off the grid of ``m = 10**6`` unless they are on it exactly.
    """
    out = np.empty(p.shape[0], dtype=np.int64)
    for rows in row_blocks(p.shape[0]):  # small buffers beside the export this runs next to
        scaled = p[rows] * (m + 1)
        index = np.rint(scaled)
        if not np.all(np.abs(scaled - index) <= 1e-6 + 8 * np.finfo(float).eps * scaled):
            return None
        out[rows] = index
    return out


def urn_max_null(grid: np.ndarray, mask: np.ndarray, levels: np.ndarray, thresholds: np.ndarray) -> int:
    """``min(|S|, min_j #{i in S : j_i > j} + c_j - 1)`` for ``S = mask``."""
    size = int(np.count_nonzero(mask))
    if size == 0:
        return 0
    # A sort of the set's grid indices, not a count per grid level: (m + 1) / 2 levels can outnumber the items.
    at_or_below = np.searchsorted(np.sort(grid[mask]), levels, side="right")
    return int(min(size, np.min(size - at_or_below + thresholds - 1)))


def urn_top_sets(sorted_grid: np.ndarray, levels: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """The urn bound of every nested top set (entry ``r``: the ``r`` smallest p-values), shape (n + 1,).

    For the top ``r`` items ``#{j_i <= j} = min(r, A_j)`` with ``A_j`` counted over all items, so the
    bound is ``min(r, min_j max(0, r - A_j) + c_j - 1)``: levels with ``A_j >= r`` contribute
    ``c_j - 1`` (smallest at the first such level, as ``c`` grows with ``j``), the others
    ``r + (c_j - 1 - A_j)``, a prefix minimum over levels.
    """
    n = sorted_grid.shape[0]
    counts = np.searchsorted(sorted_grid, levels, side="right")  # A_j, nondecreasing in j
    prefix = np.minimum.accumulate(thresholds - 1 - counts)
    out = np.empty(n + 1, dtype=np.int64)
    for rows in row_blocks(n + 1):  # each r on its own: blocks keep the buffers small
        r = np.arange(rows.start, rows.stop)
        first_covering = np.searchsorted(counts, r, side="left")  # first level with A_j >= r
        covered = np.where(first_covering < levels.size,
                           thresholds[np.minimum(first_covering, levels.size - 1)] - 1, n)
        uncovered = np.where(first_covering > 0, r + prefix[np.maximum(first_covering - 1, 0)], n)
        out[rows] = np.minimum(r, np.minimum(covered, uncovered))
    return out
