"""Argument checks of the evaluator and the sweeps; each error names its argument."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._validation import (  # noqa: F401  (re-exported for callers)
    check_alpha,
    check_alphas,
    check_at_most_n,
    check_knn,
    check_lam,
    check_positive_int,
    check_seed,
)
from .._warn import warn_at_caller
from ..data import ScoreTable, table_from_frame
from ..rules import METHODS, REGISTRY, check_declared_options, declared_options


def check_reps(reps) -> int:
    return check_positive_int(reps, "reps")


def check_methods(methods) -> tuple[str, ...]:
    """Registered method names, de-duplicated, in registry order; ``None`` is every registered rule."""
    try:
        chosen = METHODS if methods is None else (methods,) if isinstance(methods, str) else tuple(methods)
    except TypeError:  # one number, not a sequence of names
        raise ValueError(f"methods must be a name or a sequence of names in {list(METHODS)}, got {methods!r}") from None
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
    given = check_declared_options(options)
    return RuleOptions(tuple((name, given[name] if name in given else option.validate(None))
                             for name, (option, _) in declared_options().items()))


def check_within_table(options: RuleOptions, n: int) -> RuleOptions:
    """``options`` unchanged; one bounded by the test items (``knn``) and above ``n`` is an error naming it."""
    declared = declared_options()
    for name, value in options.values:
        if declared[name][0].at_most_n and isinstance(value, int):
            check_at_most_n(value, n, name)
    return options


def bounded_counts(options: RuleOptions) -> dict[str, int]:
    """The options that count test items (``knn``), by name, where a count is given."""
    declared = declared_options()
    return {name: value for name, value in options.values if declared[name][0].at_most_n and isinstance(value, int)}


def warn_above_drawn(counts, n_drawn: int, draw_fraction: float, name: str) -> None:
    """One warning for the counts above the ``n_drawn`` test items of a repetition: each repetition cuts ``k_n`` to
    its tail, itself within those items, so such a count gives the result of ``n_drawn`` (both paths cut it so)."""
    above = [int(value) for value in counts if value > n_drawn]
    if above:
        warn_at_caller(f"{name}: {', '.join(map(str, above))} above the {n_drawn:,} test items drawn per repetition "
                       f"(draw_fraction {draw_fraction:g}): k_n is cut to the tail above lambda, at most that many, "
                       "so these settings agree with one another and with that count")
