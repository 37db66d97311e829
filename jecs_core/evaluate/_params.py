"""Argument checks of the evaluator and the sweeps; each error names its argument."""

from __future__ import annotations

import numbers
import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validation import check_alpha, check_knn, check_lam, check_lambda_grid, check_positive_int, check_seed  # noqa: F401  (re-exported for callers)
from ..data import ScoreTable, table_from_frame
from ..envelope import DEFAULT_LAMBDA_GRID
from ..rules import METHODS, REGISTRY


def check_alphas(alphas, name: str = "alphas") -> tuple[float, ...]:
    """A non-empty tuple of levels, each in the open interval (0, 1)."""
    values = (alphas,) if isinstance(alphas, numbers.Real) else tuple(alphas)
    if not values:
        raise ValueError(f"{name} must hold at least one level in (0, 1)")
    return tuple(check_alpha(a, name) for a in values)


def check_reps(reps) -> int:
    return check_positive_int(reps, "reps")


def check_methods(methods) -> tuple[str, ...]:
    """Registered method names, de-duplicated, in registry order; ``None`` is every registered rule."""
    chosen = METHODS if methods is None else (methods,) if isinstance(methods, str) else tuple(methods)
    unknown = [m for m in chosen if m not in METHODS]
    if unknown or not chosen:
        raise ValueError(f"methods must be a non-empty subset of {list(METHODS)}, got {list(chosen)}")
    return tuple(m for m in METHODS if m in chosen)


def check_workers(workers) -> int:
    """``None`` means every core (this machine's ``os.cpu_count()``)."""
    if workers is None:
        return max(1, os.cpu_count() or 1)
    return check_positive_int(workers, "workers")


def check_progress(progress):
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be a callable progress(done, total) or None, got {type(progress).__name__}")
    return progress


def labelled_table(table) -> ScoreTable:
    """A :class:`ScoreTable` with member labels (a wide/long DataFrame is validated first)."""
    if isinstance(table, pd.DataFrame):
        table = table_from_frame(table)
    if not isinstance(table, ScoreTable):
        raise ValueError(f"table must be a ScoreTable or a pandas.DataFrame, got {type(table).__name__}")
    if not table.has_labels:
        raise ValueError(
            f"table: {table.source} has no member_<model> labels; GCP and power need the true membership of every test item"
        )
    if not np.all(np.isfinite(table.test)) or not np.all(np.isfinite(table.calibration)):
        raise ValueError("table: scores must be finite")
    return table


@dataclass(frozen=True)
class RuleOptions:
    """One setting of the shared rule options (each rule takes the ones it accepts).

    Attributes
    ----------
    lam : "auto" or float
        Data-driven lambda over ``lambda_grid`` or a fixed one.
    knn : int or None
        kNN size; ``None`` is the rule's default (``ceil(sqrt(m_R))`` for the paper's JECS).
    lambda_grid : tuple of float
        Candidates for ``lam="auto"``.
    """

    lam: str | float = "auto"
    knn: int | None = None
    lambda_grid: tuple[float, ...] = DEFAULT_LAMBDA_GRID

    def as_dict(self) -> dict:
        """The options in the shared vocabulary, for :meth:`jecs_core.Rule.accepted`."""
        return {"lam": self.lam, "knn": self.knn, "lambda_grid": self.lambda_grid}

    def for_rule(self, method: str) -> tuple:
        """The options ``method`` takes, as a hashable key (rules that ignore a swept option share a run)."""
        accepted = REGISTRY[method].accepted(self.as_dict())
        return tuple(sorted(accepted.items()))


def rule_options(*, lam="auto", knn: int | None = None, lambda_grid=DEFAULT_LAMBDA_GRID) -> RuleOptions:
    """Validated :class:`RuleOptions`."""
    return RuleOptions(check_lam(lam), check_knn(knn), check_lambda_grid(lambda_grid))


def methods_taking(option: str) -> tuple[str, ...]:
    """Rules that take ``option``, plus every finite-sample rule as a reference line (registry order)."""
    return tuple(name for name, rule in REGISTRY.items() if option in rule.option_names or rule.valid)
