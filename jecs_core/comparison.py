"""The result of running several selection rules at one alpha: :class:`Comparison`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np
import pandas as pd

from ._rows import row_max
from ._shared_max_p import shared_p_max
from ._validation import frozen
from .metrics import SelectionMetrics, selection_metrics
from .rules import REGISTRY, get_rule


@dataclass(frozen=True)
class Comparison:
    """Several selections at one alpha, with everything needed to draw and export them.

    Attributes
    ----------
    alpha : float
    models : tuple of str
    pvalues : numpy.ndarray, shape (n, K)
        Per-model conformal p-values.
    results : mapping of str to result
        One result per method run, in registry order; also reachable as attributes
        (``comparison.jmcs``) and through :meth:`result`.
    contaminated : numpy.ndarray of bool or None
        Test items that are members of some model, when labels are known (a read-only copy).
    """

    alpha: float
    models: tuple[str, ...]
    pvalues: np.ndarray
    results: Mapping[str, object] = field(default_factory=dict)
    contaminated: np.ndarray | None = None

    def __post_init__(self):
        # The results as passed, behind a read-only view: the summary and the export read them.
        object.__setattr__(self, "results", MappingProxyType(dict(self.results)))
        if self.contaminated is not None:  # a read-only copy: the caller's array may change after
            object.__setattr__(self, "contaminated", frozen(np.asarray(self.contaminated)))

    def __getattr__(self, name: str):
        # Only reached when normal lookup fails: expose each method's result by name.
        results = self.__dict__.get("results", {})
        if name in results:
            return results[name]
        raise AttributeError(f"{type(self).__name__!r} has no attribute {name!r}")

    @property
    def methods(self) -> tuple[str, ...]:
        return tuple(self.results)

    @property
    def p_max(self) -> np.ndarray:
        """Each item's largest p-value (read-only inside a :func:`jecs_core._shared_max_p.sharing_max_p` block)."""
        shared = shared_p_max(self.pvalues)
        return row_max(self.pvalues) if shared is None else shared

    def result(self, method: str | None = None):
        """One rule's result.

        Parameters
        ----------
        method : str, optional
            A registered rule's name (``None``: the default rule).

        Returns
        -------
        SelectionResult
            That rule's result at :attr:`alpha`.

        Raises
        ------
        ValueError
            For an unknown rule, or one this comparison did not run.
        """
        name = get_rule(method).name
        if name not in self.results:
            raise ValueError(f"method {name!r} was not run; this comparison has {list(self.results)}")
        return self.results[name]

    def selected(self, method: str | None = None) -> np.ndarray:
        """One rule's selection.

        Parameters
        ----------
        method : str, optional
            As in :meth:`result`.

        Returns
        -------
        numpy.ndarray of bool, shape (n,)
            Read-only; True for each selected test item.
        """
        return self.result(method).selected

    def metrics(self, method: str | None = None) -> SelectionMetrics | None:
        """One rule's realised GCP and power on this table, from its member labels.

        Parameters
        ----------
        method : str, optional
            As in :meth:`result`.

        Returns
        -------
        SelectionMetrics or None
            ``None`` when the table has no member labels (:attr:`contaminated` is ``None``).
        """
        if self.contaminated is None:
            return None
        return selection_metrics(self.selected(method), self.contaminated)

    def summary(self) -> pd.DataFrame:
        """One row per method: label, guarantee, selected count, and GCP/power when labelled.

        ``valid`` is True only for a finite-sample guarantee; ``over_alpha`` (labelled tables)
        says whether the realized GCP on this table exceeds alpha.
        """
        rows = []
        for method in self.results:
            rule = REGISTRY[method]
            row = {"method": method, "label": rule.label, "guarantee": rule.guarantee.value, "valid": rule.valid,
                   "n_selected": int(self.selected(method).sum())}
            found = self.metrics(method)
            if found is not None:
                row["gcp"] = found.gcp
                row["power"] = found.power
                row["over_alpha"] = bool(found.gcp > self.alpha)
            rows.append(row)
        return pd.DataFrame(rows)
