"""Values that lie exactly on a grid ``k / d``, as float64 division gives them.

Conformal p-values are ``(1 + count) / (m + 1)``; a column of them is recognised, and its grid
indices read off, by rebuilding each value with the same division. The max-p counting sort and
the export's float formatting both check their columns this way.
"""

from __future__ import annotations

import numpy as np


def grid_steps(values: np.ndarray, d: float) -> np.ndarray | None:
    """The whole numbers ``k`` (as float64) with ``values == k / d`` element for element, else ``None``.

    NaN is on no grid; an infinite value gives an infinite ``k``, which callers bound.

    Examples
    --------
    >>> grid_steps(np.array([0.25, 0.75]), 4).tolist()
    [1.0, 3.0]
    >>> grid_steps(np.array([0.25, 0.3]), 4) is None
    True
    """
    with np.errstate(invalid="ignore", over="ignore"):  # NaN, inf and huge values are off the grid
        k = np.rint(values * d)
    return k if np.array_equal(k / d, values) else None
