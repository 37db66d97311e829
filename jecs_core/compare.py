"""Run every registered selection rule (or a chosen few) on one score table."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from types import MappingProxyType

import numpy as np

from ._shared_max_p import shared_p_max, sharing_max_p
from ._validation import check_alpha, check_mask, check_names, check_pvalue_matrix, frozen
from .comparison import Comparison
from .conformal import table_pvalues
from .data import ScoreTable
from .envelope import DEFAULT_LAMBDA_GRID
from .rules import DEFAULT_METHOD, METHODS, REGISTRY, get_rule
from .rules.registry import check_declared_options

# Shortcuts read off the registry: each rule's label, and the rules with a finite-sample guarantee.
METHOD_LABELS = MappingProxyType({name: rule.label for name, rule in REGISTRY.items()})  # read-only, as REGISTRY
VALID_METHODS = frozenset(name for name, rule in REGISTRY.items() if rule.valid)
# Its finite-sample claim covers deterministic conformal p-values only (docs/GUARANTEES.md).
RANDOMIZED_OUTSIDE = "storey-maxp"


def _check_methods(methods) -> tuple[str, ...]:
    if methods is None:
        return METHODS
    if isinstance(methods, str):
        methods = (methods,)
    names = tuple(get_rule(m).name for m in methods)
    if not names:
        raise ValueError("methods must name at least one rule")
    return names


def _check_options(options: Mapping, n: int) -> dict:
    """Every given rule option through its declared validator, whichever rules run (as the evaluator checks them)."""
    return check_declared_options(options, n=max(n, 1))


def _fit_method(fit) -> str | None:
    """The registered rule a fit was prepared by: its ``method`` name, or its ``rule`` (a name or a Rule)."""
    for attribute in ("method", "rule"):
        value = getattr(fit, attribute, None)
        value = getattr(value, "name", value)
        if isinstance(value, str):
            return value
    return None


def _check_fits(fits) -> dict:
    """``fits`` as a dict of registered rule name -> that rule's alpha-free fit (``Rule.prepare``).

    A fit that names its rule (a ``method`` or ``rule`` attribute, as the built-in fits do) must
    name this one; a rule's own fit class need not name it (``select(alpha)`` is all a fit owes).
    """
    if fits is None:
        return {}
    if not isinstance(fits, Mapping):
        raise ValueError(f"fits must be a mapping of method name to get_rule(name).prepare(p), got {type(fits).__name__}")
    for name, fit in fits.items():
        if name not in REGISTRY:
            raise ValueError(f"fits: {name!r} is no registered method; methods: {list(METHODS)}")
        made_by = _fit_method(fit)
        if made_by not in (name, None) or not callable(getattr(fit, "select", None)):
            found = type(fit).__name__ + ("" if made_by is None else f" of {made_by!r}")
            raise ValueError(f"fits[{name!r}] must be get_rule({name!r}).prepare(p), got {found}")
    return dict(fits)


def compare_pvalues(pvalues, *, alpha: float, methods: Sequence[str] | None = None, lam="auto", knn: int | None = None,
                    lambda_grid=DEFAULT_LAMBDA_GRID, models=None, contaminated=None,
                    fits: Mapping[str, object] | None = None, **options) -> Comparison:
    """Run registered rules on a p-value matrix.

    Parameters
    ----------
    pvalues : array_like, shape (n, K)
    alpha : float
        Target global contamination rate in (0, 1).
    methods : sequence of str, optional
        Rules to run (default: every registered rule, in registry order).
    lam, knn, lambda_grid
        Shared options; each rule receives the ones it takes.  Every option given is checked by its
        declared validator, whether or not a rule run takes it.
    models : sequence of str, optional
        Distinct names, one per column (a list; one string is refused, not split into characters).
    contaminated : array_like of bool, optional
        Whether each item is a member of some model; the comparison keeps a read-only copy.
    fits : mapping, optional
        Alpha-free fits (``Rule.prepare``) to reuse, keyed by method; the dashboard
        passes them while the user drags alpha.  A key that is no registered method, or a fit
        another rule prepared, is refused.
    **options
        Further declared rule options (:mod:`jecs_core.rules.options`, e.g. ``storey_lam``);
        each reaches only the rules that declare it.

    Returns
    -------
    Comparison
        Every rule's result at ``alpha``: ``.result(name)``, ``.selected(name)``, ``.summary()``.

    Examples
    --------
    >>> import numpy as np, jecs_core as jc
    >>> p = np.array([[0.01, 0.02], [0.9, 0.5], [0.03, 0.01], [0.6, 0.99], [0.002, 0.004]])
    >>> comparison = jc.compare_pvalues(p, alpha=0.2)
    >>> int(comparison.selected("jmcs").sum())
    3
    """
    p = check_pvalue_matrix(pvalues)
    # A read-only copy of a writeable input, so the results stay true to it; inside a sharing_max_p
    # block the caller shares this very matrix (and its max-p) on purpose: it is kept as it is.
    p = p if shared_p_max(p) is not None else frozen(p)
    alpha = check_alpha(alpha)
    names = _check_methods(methods)
    models = check_names(models, "models") if models is not None else tuple(f"m{k}" for k in range(p.shape[1]))
    if len(models) != p.shape[1]:
        raise ValueError(f"models has {len(models)} names but pvalues has {p.shape[1]} columns")
    con = None if contaminated is None else check_mask(contaminated, p.shape[0], "contaminated")
    options = _check_options({"lam": lam, "knn": knn, "lambda_grid": lambda_grid, **options}, p.shape[0])
    fits = _check_fits(fits)
    results = {}
    with sharing_max_p(p):  # the max-p rules read one max-p vector and one sort of it
        for name in names:
            fit = fits.get(name)
            if fit is None:
                rule = REGISTRY[name]
                fit = rule.prepare(p, **rule.accepted(options))
            results[name] = fit.select(alpha)
            if np.shape(results[name].selected) != (p.shape[0],):
                raise ValueError(f"fits[{name!r}] was prepared on {np.shape(results[name].selected)[0]} items, "
                                 f"not on these {p.shape[0]}")
    return Comparison(alpha=alpha, models=models, pvalues=p, results=results, contaminated=con)


def compare_methods(
    table: ScoreTable,
    *,
    alpha: float,
    methods: Sequence[str] | None = None,
    lam="auto",
    knn: int | None = None,
    lambda_grid=DEFAULT_LAMBDA_GRID,
    rng: np.random.Generator | None = None,
    covariates=None,
    shift_method: str = "auto",
    **options,
) -> Comparison:
    """Conformal p-values of ``table`` and the selections of registered rules at ``alpha``.

    Parameters
    ----------
    table : ScoreTable
        A validated score table (see :func:`jecs_core.load_scores`).
    alpha : float
        Target global contamination rate in (0, 1).
    methods : sequence of str, optional
        Rules to run (default: all registered; the default rule is
        :data:`jecs_core.DEFAULT_METHOD`).
    lam : "auto" or float
        Data-driven lambda (default) or a fixed one, for rules that take it.
    knn : int, optional
        kNN size for the boundary density (default ``ceil(sqrt(m_R))``).
    lambda_grid : sequence of float
        Grid for the data-driven lambda.
    rng : numpy.random.Generator, optional
        Randomized tie-breaking of the conformal p-values; outside ``storey-maxp``'s finite-sample
        claim, so a warning says so when that rule runs.
    covariates, shift_method
        Covariate-aware p-values for a calibration set unlike the test items
        (see :func:`jecs_core.table_pvalues` and ``docs/CALIBRATION-SHIFT.md``);
        ``covariates=None`` gives the plain conformal p-values.
    **options
        Further declared rule options (e.g. ``storey_lam``), as in :func:`compare_pvalues`.

    Returns
    -------
    Comparison
        Every rule's result at ``alpha``, with GCP and power in ``.summary()`` when the table is labelled.

    Examples
    --------
    >>> import pandas as pd, jecs_core as jc
    >>> table = jc.table_from_frame(pd.DataFrame({
    ...     "item_id": ["c1", "c2", "c3", "c4", "t1", "t2", "t3"], "split": ["calibration"] * 4 + ["test"] * 3,
    ...     "score_a": [2.0, 3.0, 4.0, 5.0, 0.5, 3.5, 0.2], "score_b": [1.0, 2.5, 3.0, 4.0, 0.1, 2.8, 0.3]}))
    >>> comparison = jc.compare_methods(table, alpha=0.5)
    >>> list(table.test_ids[comparison.selected("jmcs")])
    ['t1', 't3']
    """
    if rng is not None and RANDOMIZED_OUTSIDE in (METHODS if methods is None else methods):
        warnings.warn(f"randomized p-values (rng=): the finite-sample guarantee of {RANDOMIZED_OUTSIDE} is for the "
                      "deterministic p-values, and with a small calibration set it can exceed alpha on randomized "
                      "ones (docs/GUARANTEES.md, 'Deterministic p-values only'); jmcs keeps its guarantee",
                      UserWarning, stacklevel=2)
    pvalues = table_pvalues(table, rng=rng, covariates=covariates, shift_method=shift_method)
    pvalues.setflags(write=False)  # ours alone: the comparison keeps it without a copy
    contaminated = table.contaminated
    if contaminated is not None:
        contaminated.setflags(write=False)  # made here, so kept without a copy too
    return compare_pvalues(pvalues, alpha=alpha, methods=methods, lam=lam, knn=knn, lambda_grid=lambda_grid,
                           models=table.models, contaminated=contaminated, **options)


__all__ = ["DEFAULT_METHOD", "METHODS", "METHOD_LABELS", "VALID_METHODS", "Comparison", "compare_methods", "compare_pvalues"]
