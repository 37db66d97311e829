"""Argument checks of the evaluator and the sweeps; each error names its argument."""

from __future__ import annotations

import numbers
import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._validation import check_alpha, check_at_most_n, check_knn, check_lam, check_positive_int, check_seed  # noqa: F401  (re-exported for callers)
from ..data import ScoreTable, table_from_frame
from ..rules import METHODS, REGISTRY, declared_options


def check_alphas(alphas, name: str = "alphas") -> tuple[float, ...]:
    """A non-empty tuple of distinct levels, each in the open interval (0, 1)."""
    if isinstance(alphas, (str, bytes)):  # a string would be read one character at a time
        raise ValueError(f"{name} must be a number or a sequence of numbers in (0, 1), got {alphas!r}")
    values = (alphas,) if isinstance(alphas, numbers.Real) else tuple(alphas)
    if not values:
        raise ValueError(f"{name} must hold at least one level in (0, 1)")
    levels = tuple(check_alpha(a, name) for a in values)
    repeated = [a for i, a in enumerate(levels) if a in levels[:i]]
    if repeated:  # each level is one block of the summary: a repeat would print twice
        raise ValueError(f"{name} must hold each level once, got {repeated[0]:g} more than once")
    return levels


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


def _declared_defaults() -> tuple[tuple[str, object], ...]:
    return tuple((name, option.default) for name, (option, _) in declared_options().items())


@dataclass(frozen=True)
class RuleOptions:
    """One setting of the declared rule options (:func:`jecs_core.rules.declared_options`).

    Each rule takes only the options it declares (:meth:`jecs_core.Rule.accepted`).

    Attributes
    ----------
    values : tuple of (str, object)
        Every declared option's value, in declaration order (defaults where none was given).
    """

    values: tuple[tuple[str, object], ...] = field(default_factory=_declared_defaults)

    def __getitem__(self, name: str):
        return dict(self.values)[name]

    def as_dict(self) -> dict:
        """The options by name, for :meth:`jecs_core.Rule.accepted`."""
        return dict(self.values)

    def for_rule(self, method: str) -> tuple:
        """The options ``method`` takes, as a hashable key (rules that ignore a swept option share a run)."""
        accepted = REGISTRY[method].accepted(self.as_dict())
        return tuple(sorted(accepted.items()))


def rule_options(**options) -> RuleOptions:
    """Validated :class:`RuleOptions`: each value checked by its declared option, defaults for the rest.

    An option no registered rule declares is refused with one line naming the declared ones.
    """
    declared = declared_options()
    unknown = sorted(set(options) - set(declared))
    if unknown:
        raise ValueError(f"unknown rule option(s) {unknown}; declared: {sorted(declared)}")
    return RuleOptions(tuple((name, option.validate(options.get(name))) for name, (option, _) in declared.items()))


def check_within_table(options: RuleOptions, n: int) -> RuleOptions:
    """``options`` unchanged; one bounded by the test items (``knn``) and above ``n`` is an error naming it."""
    declared = declared_options()
    for name, value in options.values:
        if declared[name][0].at_most_n and isinstance(value, int):
            check_at_most_n(value, n, name)
    return options
