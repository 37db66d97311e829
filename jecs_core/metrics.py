"""Global contamination proportion (GCP) and power from member labels."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._few_values import equals_any
from ._rows import row_any
from ._validation import check_mask


def contaminated_items(members) -> np.ndarray:
    """An item is contaminated if it is a member of at least one model.

    Parameters
    ----------
    members : array_like of 0/1, shape (n, K) or (n,)
        Member labels: ``members[i, k] = 1`` when item ``i`` is in model ``k``'s training data.

    Returns
    -------
    numpy.ndarray of bool, shape (n,)
        True where the item is a member of any model.

    Examples
    --------
    >>> contaminated_items([[0, 0], [0, 1], [1, 1]])
    array([False,  True,  True])
    """
    labels = np.asarray(members)
    if labels.ndim == 1:
        labels = labels[:, None]
    if labels.ndim != 2:
        raise ValueError(f"members must be a 1-D or 2-D array, got shape {labels.shape}")
    if labels.size and not equals_any(labels, (0, 1)).all():
        raise ValueError("members must hold only 0 and 1")
    return row_any(labels if labels.dtype.kind in "biuf" else labels.astype(bool))


def _check_pair(selected, contaminated) -> tuple[np.ndarray, np.ndarray]:
    sel, con = check_mask(selected, None, "selected"), check_mask(contaminated, None, "contaminated")
    if sel.shape != con.shape:
        raise ValueError(f"selected and contaminated must be 1-D of the same length, got {sel.shape} and {con.shape}")
    return sel, con


def gcp(selected, contaminated) -> float:
    """Global contamination proportion ``#(S and contaminated) / max(1, |S|)``.

    Parameters
    ----------
    selected : array_like of bool, shape (n,)
        The selection ``S``.
    contaminated : array_like of bool, shape (n,)
        Which items are contaminated (see :func:`contaminated_items`).

    Returns
    -------
    float
        The share of selected items that are contaminated (0 for an empty selection).

    Examples
    --------
    >>> gcp([True, True, False, True], [False, True, True, False])
    0.3333333333333333
    """
    sel, con = _check_pair(selected, contaminated)
    return float(np.count_nonzero(sel & con) / max(1, np.count_nonzero(sel)))


def power(selected, contaminated) -> float:
    """Share of jointly pure items selected, ``#(S and pure) / max(1, #pure)``.

    Parameters
    ----------
    selected : array_like of bool, shape (n,)
        The selection ``S``.
    contaminated : array_like of bool, shape (n,)
        Which items are contaminated; the others are jointly pure.

    Returns
    -------
    float
        The share of pure items that are selected (0 when there is no pure item).

    Examples
    --------
    >>> power([True, True, False, True], [False, True, True, False])
    1.0
    """
    sel, con = _check_pair(selected, contaminated)
    return float(np.count_nonzero(sel & ~con) / max(1, np.count_nonzero(~con)))


@dataclass(frozen=True)
class SelectionMetrics:
    """GCP and power of one selection, with the counts behind them.

    Attributes
    ----------
    n_selected : int
        Size of the selection.
    n_contaminated_selected : int
        Selected items that are contaminated.
    n_pure : int
        Jointly pure items in the whole table.
    gcp, power : float
        As :func:`gcp` and :func:`power`.
    """

    n_selected: int
    n_contaminated_selected: int
    n_pure: int
    gcp: float
    power: float


def selection_metrics(selected, contaminated) -> SelectionMetrics:
    """GCP, power and the counts behind them, for one selection.

    Parameters
    ----------
    selected : array_like of bool, shape (n,)
        The selection.
    contaminated : array_like of bool, shape (n,)
        Which items are contaminated.

    Returns
    -------
    SelectionMetrics

    Examples
    --------
    >>> m = selection_metrics([True, True, False, True], [False, True, True, False])
    >>> m.n_selected, m.n_contaminated_selected, m.n_pure
    (3, 1, 2)
    """
    sel, con = _check_pair(selected, contaminated)
    return SelectionMetrics(
        n_selected=int(sel.sum()),
        n_contaminated_selected=int((sel & con).sum()),
        n_pure=int((~con).sum()),
        gcp=gcp(sel, con),
        power=power(sel, con),
    )
