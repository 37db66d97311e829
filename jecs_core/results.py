"""The one shape of a rule's result: :class:`SelectionResult` and its :class:`FitRow` lines.

Every registered rule's result derives from :class:`SelectionResult`, so the CLI, the
dashboard, the export and the report read the same attributes and print the same rows
(``fit_summary()``) without probing for attributes; the step-up figure, the envelope figures
and an item's explanation read ``step_up_line()``, ``envelope_fit()`` and ``model_selections()``.  A consumer that adds its own line (a
post-hoc bound, a leaderboard rank) appends a :class:`FitRow` to the tuple it got.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ._validation import frozen


@dataclass(frozen=True)
class FitRow:
    """One labelled value of a fit, as the CLI, dashboard, export and report show it.

    Attributes
    ----------
    key : str
        Machine key (the export sidecar's field name, e.g. ``"lambda"``).
    label : str
        What a reader sees (e.g. ``"lambda"``, ``"pi0_hat"``).
    value : object
        The value itself (a float, int or str).
    text : str
        The value formatted for display.
    """

    key: str
    label: str
    value: object
    text: str


@dataclass(frozen=True)
class StepUpLine:
    """One step-up as a figure or an item's explanation draws it: the ranked statistic and the line.

    Attributes
    ----------
    statistic : {"p_tilde", "p_max"}
        Which per-item value is ranked: a transformed value, or max-p itself.
    values : numpy.ndarray, shape (n,)
        That value for every test item.
    r_star : int
        How many items the step-up keeps.
    threshold : float
        The cut-off on ``values``.
    pi0 : float
        The null-share factor of the line ``alpha r / (pi0 n)`` (1 for BH).
    """

    statistic: str
    values: np.ndarray
    r_star: int
    threshold: float
    pi0: float = 1.0


def row(key: str, value, fmt: str = "{:.4f}", label: str | None = None) -> FitRow:
    """A :class:`FitRow` with ``value`` formatted by ``fmt``."""
    return FitRow(key, key if label is None else label, value, fmt.format(value))


class SelectionResult:
    """Base of every rule's result at one alpha.

    Subclasses provide ``selected`` (bool array, one per test item) and ``alpha``; they
    override ``threshold``, ``pi0_hat`` and ``fit_summary`` where the rule defines them.

    Attributes
    ----------
    selected : numpy.ndarray of bool, shape (n,)
        The selection (provided by the subclass).
    alpha : float
        The level it was made at (provided by the subclass).
    n_selected : int
        How many items are selected.
    threshold : float or None
        The cut-off on the rule's statistic; ``None`` where there is no single one.
    pi0_hat : float or None
        The estimated null proportion; ``None`` where the rule estimates none.
    fallback_reason : str or None
        Why the rule fell back to a simpler one.
    fits_lambda : bool
        Class-level: the rule fits a tail threshold lambda (its value is the ``"lambda"`` fit row,
        absent where a fit falls back), so evaluations keep a lambda column for it.

    Examples
    --------
    >>> import numpy as np, jecs_core as jc
    >>> result = jc.select(np.array([[0.01, 0.02], [0.9, 0.5], [0.03, 0.01]]), alpha=0.2)
    >>> isinstance(result, jc.SelectionResult), result.n_selected
    (True, 2)
    >>> [r.key for r in result.fit_summary()]
    ['lambda', 'pi0_hat', 'threshold']
    """

    fits_lambda: ClassVar[bool] = False

    def __post_init__(self):
        # A dataclass result's arrays (``selected``, ``p_max``, ...) are made read-only: the summary, the
        # metrics and the export all read the one result, and a caller's write into it would change theirs.
        for name in getattr(self, "__dataclass_fields__", {}):
            value = getattr(self, name)
            if isinstance(value, np.ndarray):
                object.__setattr__(self, name, frozen(value))

    @property
    def n_selected(self) -> int:
        """How many items are selected."""
        return int(np.asarray(self.selected).sum())

    @property
    def threshold(self) -> float | None:
        """The cut-off on the rule's statistic (``None`` where the rule has no single one)."""
        return None

    @property
    def pi0_hat(self) -> float | None:
        """The estimated null proportion (``None`` where the rule estimates none)."""
        return None

    @property
    def fallback_reason(self) -> str | None:
        """Why the rule fell back to a simpler one, or ``None``."""
        return None

    def step_up_line(self) -> StepUpLine | None:
        """The single step-up the rule ran (``None`` where it ran none, e.g. per-model BH)."""
        return None

    def envelope_fit(self):
        """The alpha-free fit with an envelope and a lambda grid to draw (``None`` where the rule fits none)."""
        return None

    def model_selections(self) -> np.ndarray | None:
        """Each model's own selection, shape (n, K), for rules combining per-model selections (else ``None``)."""
        return None

    def item_columns(self) -> dict[str, np.ndarray]:
        """Per-item values the export writes beside the p-values (e.g. ``p_tilde``), each of shape (n,)."""
        return {}

    def fit_notes(self) -> tuple[str, ...]:
        """One-line cautions about the fit (e.g. too few values in an envelope's tail); none by default."""
        return ()

    def fit_summary(self) -> tuple[FitRow, ...]:
        """The fit's rows, in display order (π̂0 and the cut-off where defined)."""
        rows = []
        if self.pi0_hat is not None:
            rows.append(row("pi0_hat", self.pi0_hat))
        if self.threshold is not None:
            rows.append(row("threshold", self.threshold, "{:.4g}", "cut-off"))
        return tuple(rows)


__all__ = ["FitRow", "SelectionResult", "StepUpLine", "row"]
