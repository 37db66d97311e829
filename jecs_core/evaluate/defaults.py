"""The sweeps' default settings and the rules each sweep runs, without the evaluator's imports.

The command line's parsers print them in ``--help``; :mod:`jecs_core.evaluate.sweeps` uses them.
"""

from __future__ import annotations

from ..rules import REGISTRY

DEFAULT_SWEEP_LAMBDAS: tuple[float, ...] = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
DEFAULT_SWEEP_KNNS: tuple[int | None, ...] = (1, 2, 5, 10, 20, None)
DEFAULT_SWEEP_RHOS: tuple[float, ...] = (0.125, 0.25, 0.5, 0.75)
DEFAULT_SWEEP_ALPHAS: tuple[float, ...] = (0.1,)


def methods_taking(option: str) -> tuple[str, ...]:
    """Rules that take ``option``, plus every finite-sample rule as a reference line (registry order)."""
    return tuple(name for name, rule in REGISTRY.items() if option in rule.option_names or rule.valid)
