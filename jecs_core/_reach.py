"""What a calibration set of m items can reach: the smallest conformal p-value is 1/(m+1).

The sidecar records it (:func:`calibration_reach`) and every table's warnings say when it decides
the selection (:func:`calibration_warnings`).
"""

from __future__ import annotations

import numpy as np

from ._validation import check_alpha, check_positive_int


def calibration_reach(m: int, n: int, alpha: float) -> dict:
    """What a calibration set of ``m`` items can reach at level ``alpha`` with ``n`` test items (sidecar record).

    ``fewest_selectable`` is the smallest number of items a BH-type step-up can select at once when every
    p-value is at least ``1/(m+1)`` (it needs ``1/(m+1) <= alpha*r/n``); ``None`` when no ``r <= n`` works.
    The first cut ``alpha/n`` is usually below ``1/(m+1)`` in real audits, so this is recorded, not warned.
    """
    m, n, alpha = check_positive_int(m, "m", minimum=0), check_positive_int(n, "n", minimum=0), check_alpha(alpha)
    smallest = 1.0 / (m + 1)
    fewest = int(np.ceil(n * smallest / alpha - 1e-12)) if n else None
    return {"m": int(m), "smallest_pvalue": smallest, "bh_first_cut": alpha / n if n else None,
            "fewest_selectable": fewest if fewest is not None and fewest <= n else None}


def calibration_warnings(m: int, n: int, alpha: float) -> list[str]:
    """Warnings about a calibration set too small for ``alpha``.

    A conformal p-value from ``m`` calibration items is at least ``1/(m+1)``. A step-up rule
    selects ``r`` items only if ``r`` p-values are at most its cut ``alpha*r/n`` <= ``alpha``, so
    when ``1/(m+1) > alpha`` no finite-sample rule can select any item, and rules that transform
    the p-values (the paper's JECS) select on a scale the calibration set cannot support.

    Parameters
    ----------
    m : int
        Number of calibration items.
    n : int
        Number of test items.
    alpha : float
        Target level.

    When ``1/(m+1) <= alpha`` but a BH step-up could still only select at least half of the test
    items at once (``calibration_reach``'s ``fewest_selectable``), that is said too: the rules will
    select nothing or a large block at once because of the calibration set's size, not because of the data.

    Returns
    -------
    list of str
        Empty when the calibration set is large enough for ``alpha``, else one warning line.

    Examples
    --------
    >>> calibration_warnings(99, 500, 0.1)
    []
    >>> len(calibration_warnings(5, 500, 0.1)), len(calibration_warnings(9, 500, 0.1))
    (1, 1)
    """
    m, n, alpha = check_positive_int(m, "m", minimum=0), check_positive_int(n, "n", minimum=0), check_alpha(alpha)
    smallest = 1.0 / (m + 1)
    if smallest <= alpha:
        fewest = calibration_reach(m, n, alpha)["fewest_selectable"]
        if n < 2 or fewest is None or fewest < n / 2:  # half of them or more at once: said
            return []
        return [f"warning: calibration set of m = {m}: every conformal p-value is at least 1/(m+1) = {smallest:.4g}, "
                f"so a BH step-up at alpha = {alpha:g} (JMCS) selects either nothing or at least {fewest:,} of the "
                f"n = {n:,} test items at once (the default rule: about its pi0 estimate times as many): the calibration "
                "set's size, not the data, sets that step, so expect nothing or a large block; more calibration items "
                "make smaller p-values possible"]
    needed = 1 / alpha - 1  # beyond a million the float's last digits are noise: print three significant ones
    fewest = f"{int(np.ceil(needed - 1e-9)):,}" if needed < 1e6 else f"about {needed:.3g}"
    return [
        f"warning: calibration set of m = {m}: the smallest reachable conformal p-value is 1/(m+1) = {smallest:.4g}, "
        f"above the BH cut alpha*r/n <= alpha = {alpha:g} for every r (alpha/n = {alpha / max(n, 1):.3g}); "
        f"finite-sample rules cannot select any item and transformed rules are unsupported; use at least {fewest} "
        "calibration items"
    ]
