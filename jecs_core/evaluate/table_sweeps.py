"""Sweeps that build one table per setting: the number of models K and the training fraction rho.

Both reuse one seed for every setting, so the settings share their subsample draws (common random
numbers: differences between settings are not draw noise).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import pandas as pd

from ..rules import declared_options
from . import _params
from ._params import rule_options
from .defaults import DEFAULT_SWEEP_ALPHAS, DEFAULT_SWEEP_RHOS
from .draws import DEFAULT_DRAW_FRACTION, check_fraction
from .montecarlo import DEFAULT_REPS
from .sweeps import setting_label, sweep_tables

_RUN_OPTIONS = frozenset({"alphas", "reps", "seed", "methods", "draw_fraction", "workers", "progress"})


def _precheck(options: dict) -> None:
    """Validate sweep options before any table is built (building can be slow)."""
    declared = set(declared_options())
    unknown = sorted(set(options) - _RUN_OPTIONS - declared)
    if unknown:
        raise ValueError(f"unknown option(s) {unknown}; expected some of {sorted(_RUN_OPTIONS | declared)}")
    _params.check_alphas(options.get("alphas", DEFAULT_SWEEP_ALPHAS))
    _params.check_reps(options.get("reps", DEFAULT_REPS))
    _params.check_seed(options.get("seed", 0))
    _params.check_methods(options.get("methods"))
    rule_options(**{name: value for name, value in options.items() if name in declared})
    check_fraction(options.get("draw_fraction", DEFAULT_DRAW_FRACTION))
    _params.check_workers(options.get("workers"))
    _params.check_progress(options.get("progress"))


def default_ks(n_models: int) -> tuple[int, ...]:
    """Powers of two from 2 up to K, and K itself (the paper sweeps 2, 4, 8, 16)."""
    if n_models < 2:
        return (n_models,)
    powers = [2 ** i for i in range(1, int(math.log2(n_models)) + 1)]
    return tuple(sorted(set(powers) | {n_models}))


def sweep_k(table, *, ks: Sequence[int] | None = None, **options) -> pd.DataFrame:
    """GCP and power against the number of audited models K (the table's first K models).

    Parameters
    ----------
    table : ScoreTable or pandas.DataFrame
        Labelled score table with at least ``max(ks)`` models.
    ks : sequence of int, optional
        Values of K, each in ``[1, table.K]``; default :func:`default_ks`.
    **options
        ``alphas, reps, seed, methods, draw_fraction, workers, progress`` and the
        declared rule options (``lam, knn, lambda_grid, storey_lam`` ...), as in :func:`sweep_tables`.

    Returns
    -------
    pandas.DataFrame
        One row per setting x method x alpha: ``parameter, setting, value``, then ``gcp, power, ...``.

    Examples
    --------
    >>> import numpy as np
    >>> import jecs_core as jc
    >>> from jecs_core.simulate import make_scenario
    >>> table = make_scenario("paper", np.random.default_rng(0), pool_size=400)
    >>> frame = jc.sweep_k(table, ks=(1, 2), reps=20, seed=0)
    >>> sorted(frame["setting"].unique())
    ['K=1', 'K=2']
    """
    _precheck(options)
    table = _params.labelled_table(table)
    ks = default_ks(table.K) if ks is None else tuple(ks)
    for k in ks:
        if isinstance(k, bool) or int(k) != k or k < 1:
            raise ValueError(f"ks must hold integers >= 1, got {k!r}")
        if k > table.K:
            raise ValueError(f"ks: K={k} is larger than the table's {table.K} models ({', '.join(table.models)})")
    tables = [(f"K={int(k)}", float(k), table.subset_models(table.models[: int(k)])) for k in ks]
    return sweep_tables(tables, "K", **options)


def sweep_rho(make_table: Callable[[float], object], *, rhos: Sequence[float] = DEFAULT_SWEEP_RHOS,
              **options) -> pd.DataFrame:
    """GCP and power against the training fraction rho of the three-block split.

    Parameters
    ----------
    make_table : callable
        ``make_table(rho)`` returning a labelled table (ScoreTable or wide
        DataFrame) built with training fraction ``rho``, e.g.
        ``lambda rho: jecs_core.simulate.scenarios.three_block(np.random.default_rng(0), rho=rho)``
        (a fixed generator seed keeps the pool's scores' noise common across rho).
    rhos : sequence of float
        Training fractions in [0, 1] (the paper sweeps 0.125, 0.25, 0.5, 0.75).
    **options
        As in :func:`sweep_tables`.

    Returns
    -------
    pandas.DataFrame
        One row per setting x method x alpha: ``parameter, setting, value``, then ``gcp, power, ...``.

    Examples
    --------
    >>> import numpy as np
    >>> import jecs_core as jc
    >>> from jecs_core.simulate.scenarios import three_block
    >>> make = lambda rho: three_block(np.random.default_rng(0), rho=rho, pool_size=300, n_models=2)
    >>> frame = jc.sweep_rho(make, rhos=[0.25, 0.5], reps=5, methods=["jmcs"], seed=0)
    >>> frame["setting"].tolist(), frame["power"].round(3).tolist()
    (['0.25', '0.5'], [0.977, 0.984])
    """
    _precheck(options)
    checked = []
    for rho in rhos:
        try:
            value = float(rho)
        except (TypeError, ValueError):
            raise ValueError(f"rhos must hold numbers in [0, 1], got {rho!r}") from None
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"rhos must be in [0, 1], got {rho!r}")
        checked.append(value)
    if not callable(make_table):
        raise ValueError(f"make_table must be a callable make_table(rho), got {type(make_table).__name__}")
    tables = [(setting_label(rho), rho, make_table(rho)) for rho in checked]
    return sweep_tables(tables, "rho", **options)
