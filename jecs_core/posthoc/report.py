"""The post-hoc bound as one sentence and as a sidecar record, shared by the CLI, export and dashboard."""

from __future__ import annotations

from decimal import Decimal

import numpy as np

from .._validation import check_positive_int
from .fit import check_delta, one_set_bound


def confidence_percent(delta: float) -> str:
    """``1 - delta`` as a percentage, in decimal arithmetic so that it never rounds to 100.

    Examples
    --------
    >>> confidence_percent(0.1), confidence_percent(1e-12), confidence_percent(0.9999999)
    ('90%', '99.9999999999%', '0.00001%')
    """
    # repr gives the shortest decimal that is delta; 1 - it is then exact, and below 100 for delta > 0.
    exact = (1 - Decimal(repr(float(check_delta(delta))))) * 100
    return f"{exact.normalize():f}%"


def post_hoc_line(max_contaminated: int, n_selected: int, *, delta: float = 0.1) -> str:
    """The post-hoc sentence printed beside a rule's fixed-alpha guarantee.

    Parameters
    ----------
    max_contaminated : int
        The bound (:func:`jecs_core.post_hoc_bound`).
    n_selected : int
        Size of the set.
    delta : float, optional
        Error level in (0, 1) of the bound.

    Returns
    -------
    str

    Examples
    --------
    >>> post_hoc_line(12, 400, delta=0.1)
    'picked after looking: with 90% confidence at most 12 of these 400 items are contaminated (≤ 3.0%)'
    """
    delta = check_delta(delta)
    n_selected = check_positive_int(n_selected, "n_selected", minimum=0)
    max_contaminated = check_positive_int(max_contaminated, "max_contaminated", minimum=0)
    if max_contaminated > n_selected:
        raise ValueError(f"max_contaminated must be at most n_selected ({n_selected}), got {max_contaminated}")
    confidence = confidence_percent(delta)
    if n_selected == 0:
        return f"picked after looking: nothing selected (bound at {confidence} confidence not needed)"
    share = 100 * max_contaminated / n_selected
    return (f"picked after looking: with {confidence} confidence at most {max_contaminated} of these "
            f"{n_selected} items are contaminated (≤ {share:.1f}%)")


def post_hoc_record(pvalues, selected, *, delta: float = 0.1, calibration_size: int | None = None,
                    post_hoc: dict | None = None) -> dict:
    """The sidecar's ``post_hoc`` entry: ``delta``, ``max_contaminated``, ``max_fdp``, ``method``, ``n_selected``.

    Parameters
    ----------
    pvalues : array_like, shape (n, K) or (n,)
    selected : array_like of bool, shape (n,)
    delta : float, optional
    calibration_size : int, optional
        Calibration rows ``m`` behind the p-values (see :func:`jecs_core.fit_post_hoc`).
    post_hoc : dict, optional
        This record computed earlier (in another thread, say): returned after a check that its
        ``delta`` and ``n_selected`` are these, instead of fitting again.

    Returns
    -------
    dict

    Examples
    --------
    >>> import numpy as np
    >>> post_hoc_record(np.array([0.001, 0.002, 0.9]), np.array([True, True, False]))["max_contaminated"]
    0
    """
    if post_hoc is not None:
        delta = check_delta(delta)
        size = int(np.count_nonzero(selected))
        if not isinstance(post_hoc, dict) or post_hoc.get("delta") != delta or post_hoc.get("n_selected") != size:
            raise ValueError(f"post_hoc must be the post-hoc record of this selection ({size} items) at delta = "
                             f"{delta:g}, got {post_hoc!r:.200}")
        return dict(post_hoc)
    bound, method, delta = one_set_bound(pvalues, selected, delta=delta, calibration_size=calibration_size)
    size = int(np.count_nonzero(selected))
    return {"delta": delta, "max_contaminated": bound, "max_fdp": bound / size if size else 0.0,
            "method": method, "n_selected": size}
