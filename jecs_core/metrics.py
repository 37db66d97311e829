"""Global contamination proportion (GCP) and power from member labels."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def contaminated_items(members) -> np.ndarray:
    """An item is contaminated if it is a member of at least one model.

    Parameters
    ----------
    members : array_like of 0/1, shape (n, K) or (n,)
    """
    labels = np.asarray(members)
    if labels.ndim == 1:
        labels = labels[:, None]
    if labels.ndim != 2:
        raise ValueError(f"members must be a 1-D or 2-D array, got shape {labels.shape}")
    if labels.size and not np.isin(labels, (0, 1)).all():
        raise ValueError("members must hold only 0 and 1")
    return labels.astype(bool).any(axis=1)


def _check_pair(selected, contaminated) -> tuple[np.ndarray, np.ndarray]:
    sel = np.asarray(selected, dtype=bool)
    con = np.asarray(contaminated, dtype=bool)
    if sel.shape != con.shape or sel.ndim != 1:
        raise ValueError(f"selected and contaminated must be 1-D of the same length, got {sel.shape} and {con.shape}")
    return sel, con


def gcp(selected, contaminated) -> float:
    """Global contamination proportion ``#(S and contaminated) / max(1, |S|)``."""
    sel, con = _check_pair(selected, contaminated)
    return float(np.count_nonzero(sel & con) / max(1, np.count_nonzero(sel)))


def power(selected, contaminated) -> float:
    """Share of jointly pure items selected, ``#(S and pure) / max(1, #pure)``."""
    sel, con = _check_pair(selected, contaminated)
    return float(np.count_nonzero(sel & ~con) / max(1, np.count_nonzero(~con)))


@dataclass(frozen=True)
class SelectionMetrics:
    """GCP and power of one selection, with the counts behind them."""

    n_selected: int
    n_contaminated_selected: int
    n_pure: int
    gcp: float
    power: float


def selection_metrics(selected, contaminated) -> SelectionMetrics:
    sel, con = _check_pair(selected, contaminated)
    return SelectionMetrics(
        n_selected=int(sel.sum()),
        n_contaminated_selected=int((sel & con).sum()),
        n_pure=int((~con).sum()),
        gcp=gcp(sel, con),
        power=power(sel, con),
    )
