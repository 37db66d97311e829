"""The selection-rule registry: one entry per rule, read by every caller.

``compare_methods``, the CLI's ``--method``, the export, the evaluator and the
dashboard's cards, colours and labels all iterate over :data:`REGISTRY`, so a new
rule is one module defining ``RULE`` (or ``RULES``) plus one line in
:data:`_RULE_MODULES` and its tests.  See ``ARCHITECTURE.md``.
"""

from __future__ import annotations

import enum
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from .._validation import check_alpha, check_at_most_n
from .options import Option


class Guarantee(str, enum.Enum):
    """What a rule promises about the global contamination rate (GCR).

    Attributes
    ----------
    FINITE_SAMPLE
        GCR <= alpha for every sample size (under the rule's stated assumptions).
    ASYMPTOTIC
        GCR <= alpha only in the limit; can exceed alpha in finite samples.
    INVALID
        No control of the GCR: a baseline shown for contrast.
    """

    FINITE_SAMPLE = "finite-sample"
    ASYMPTOTIC = "asymptotic"
    INVALID = "invalid"

    @property
    def description(self) -> str:
        return _GUARANTEE_TEXT[self]


_GUARANTEE_TEXT = {
    Guarantee.FINITE_SAMPLE: "controls the GCR at alpha in finite samples",
    Guarantee.ASYMPTOTIC: "controls the GCR only asymptotically; can exceed alpha in finite samples",
    Guarantee.INVALID: "does not control the GCR (a baseline shown for contrast)",
}


@dataclass(frozen=True)
class Rule:
    """One selection rule.

    Attributes
    ----------
    name : str
        Registry key (``--method`` value, export name).
    label : str
        Display label.
    guarantee : Guarantee
    summary : str
        One sentence: what the rule does and what its guarantee needs.
    run : callable
        ``run(pvalues, *, alpha, **options)`` -> result with ``selected`` (bool, (n,)),
        ``n_selected`` and ``alpha``.
    fit : callable, optional
        ``fit(pvalues, **options)`` -> an alpha-free object with ``select(alpha)``;
        rules without one are re-run per alpha.
    options : tuple of Option
        The options the rule takes, declared once (:mod:`jecs_core.rules.options`): the CLI
        flags, dashboard widgets, URL keys and sidecar entries are generated from them.
    """

    name: str
    label: str
    guarantee: Guarantee
    summary: str
    run: Callable
    fit: Callable | None = None
    options: tuple[Option, ...] = ()

    @property
    def option_names(self) -> tuple[str, ...]:
        """The names of the options the rule takes."""
        return tuple(option.name for option in self.options)

    @property
    def valid(self) -> bool:
        """True only for a finite-sample guarantee (the only one shown as "controls the GCR")."""
        return self.guarantee is Guarantee.FINITE_SAMPLE

    def accepted(self, options: Mapping) -> dict:
        """The subset of ``options`` this rule takes (``None`` values dropped); another rule's options never reach it."""
        return {key: value for key, value in options.items() if key in self.option_names and value is not None}

    def prepare(self, pvalues, **options):
        """An alpha-free object with ``select(alpha)`` (the rule's own fit, or a re-run wrapper).

        Parameters
        ----------
        pvalues : array_like, shape (n, K)
            Per-model conformal p-values (:func:`jecs_core.conformal_pvalues`).
        **options
            Options this rule declares (:attr:`option_names`), checked by :meth:`check_options`.

        Returns
        -------
        object
            Its ``select(alpha)`` gives the rule's result at ``alpha``; one fit serves every alpha.

        Raises
        ------
        ValueError
            For an option the rule does not declare, or a value its validator refuses.

        Examples
        --------
        >>> import jecs_core as jc
        >>> fit = jc.get_rule("jecs").prepare([[0.01, 0.02], [0.6, 0.9], [0.03, 0.01], [0.7, 0.8]], lam=0.5)
        >>> fit.select(0.2).selected.tolist(), fit.select(0.05).selected.tolist()
        ([True, False, True, False], [False, False, False, False])
        """
        options = self.check_options(options)
        if self.fit is not None:
            return self.fit(pvalues, **options)
        return _Rerun(self, pvalues, options)

    def check_options(self, options: Mapping) -> dict:
        """``options`` validated by each declared option's validator; an undeclared name is an error.

        Parameters
        ----------
        options : mapping of str to object
            Option name to value.

        Returns
        -------
        dict
            The same names, each value as its validator returns it (``None`` becomes the option's default).

        Raises
        ------
        ValueError
            Naming the options the rule does not take (and the ones it does), or the value a validator refuses.

        Examples
        --------
        >>> import jecs_core as jc
        >>> jc.get_rule("jecs").check_options({"lam": 0.5, "knn": None})
        {'lam': 0.5, 'knn': None}
        >>> jc.get_rule("jecs").check_options({"storey_lam": 0.5})
        Traceback (most recent call last):
        ...
        ValueError: method 'jecs' does not take option(s) ['storey_lam']; it takes lam, knn, lambda_grid
        """
        unknown = sorted(set(options) - set(self.option_names))
        if unknown:
            takes = ", ".join(self.option_names) or "no options"
            raise ValueError(f"method {self.name!r} does not take option(s) {unknown}; it takes {takes}")
        declared = {option.name: option for option in self.options}
        return {key: declared[key].validate(value) for key, value in options.items()}


@dataclass(frozen=True)
class _Rerun:
    rule: Rule
    pvalues: object
    options: Mapping

    def select(self, alpha: float):
        return self.rule.run(self.pvalues, alpha=alpha, **self.options)


# One line per rule module, in display order.  Each module defines RULE or RULES.
_RULE_MODULES = (
    "jecs_core.rules.storey_maxp",
    "jecs_core.rules.paper_jecs",
    "jecs_core.rules.jmcs",
    "jecs_core.rules.per_model",
)


def _collect() -> dict[str, Rule]:
    found: dict[str, Rule] = {}
    for module_name in _RULE_MODULES:
        module = importlib.import_module(module_name)
        rules = getattr(module, "RULES", None) or (module.RULE,)
        for rule in rules:
            if rule.name in found:
                raise RuntimeError(f"rule name {rule.name!r} registered twice")
            found[rule.name] = rule
    return found


def check_declared_options(options: Mapping, *, n: int | None = None) -> dict:
    """``options`` each through its declared validator; an option no registered rule declares is refused in one
    line naming the declared ones, and with ``n`` a count bounded by the test items (``knn``) above it too."""
    declared = declared_options()
    unknown = sorted(set(options) - set(declared))
    if unknown:
        raise ValueError(f"unknown rule option(s) {unknown}; declared: {sorted(declared)}")
    checked = {name: declared[name][0].validate(value) for name, value in options.items()}
    for name, value in checked.items() if n is not None else ():
        if declared[name][0].at_most_n and isinstance(value, int):
            check_at_most_n(value, n, name)
    return checked


REGISTRY: Mapping[str, Rule] = MappingProxyType(_collect())
METHODS: tuple[str, ...] = tuple(REGISTRY)
# The rule used when none is named: by the CLI, compare_methods, the dashboard and the export.
DEFAULT_METHOD = "storey-maxp"


def get_rule(method: str | None = None) -> Rule:
    """The registered rule called ``method``.

    Parameters
    ----------
    method : str, optional
        A name in :data:`METHODS`; ``None`` is :data:`DEFAULT_METHOD`.

    Returns
    -------
    Rule
        Its name, label, guarantee kind, summary, ``run``, ``fit`` and accepted options.

    Examples
    --------
    >>> import jecs_core as jc
    >>> jc.get_rule().name, jc.get_rule("jecs").guarantee.value
    ('storey-maxp', 'asymptotic')
    """
    name = DEFAULT_METHOD if method is None else method
    if not isinstance(name, str) or name not in REGISTRY:
        raise ValueError(f"method must be one of {list(METHODS)}, got {method!r}")
    return REGISTRY[name]


def declared_options() -> dict[str, tuple[Option, tuple[str, ...]]]:
    """Every declared option by name, with the registered rules that take it (registry order).

    Two rules may share an option only by declaring the same :class:`Option` object.
    """
    found: dict[str, tuple[Option, tuple[str, ...]]] = {}
    for rule in REGISTRY.values():
        for option in rule.options:
            known, owners = found.get(option.name, (option, ()))
            if known != option:
                raise RuntimeError(f"option {option.name!r} declared differently by {owners} and {rule.name!r}")
            found[option.name] = (option, owners + (rule.name,))
    return found


def select(pvalues, *, alpha: float, method: str | None = None, **options):
    """Run one registered selection rule on an (n, K) p-value matrix.

    Parameters
    ----------
    pvalues : array_like, shape (n, K) or (n,)
        Per-model conformal p-values (see :func:`jecs_core.table_pvalues`).
    alpha : float
        Target global contamination rate in (0, 1).
    method : str, optional
        A name in :data:`METHODS`; ``None`` runs :data:`DEFAULT_METHOD`.
    **options
        Options of that rule (``lam``, ``knn``, ``lambda_grid``); an option the rule does
        not take is an error.

    Returns
    -------
    The rule's result object (``selected``, ``n_selected``, ``alpha`` and rule-specific fields).

    Examples
    --------
    >>> import numpy as np, jecs_core as jc
    >>> p = np.array([[0.01, 0.02], [0.9, 0.5], [0.03, 0.01], [0.6, 0.99]])
    >>> int(jc.select(p, alpha=0.2, method="jmcs").n_selected)
    2
    """
    rule = get_rule(method)
    alpha = check_alpha(alpha)
    options = rule.check_options(options)
    return rule.run(pvalues, alpha=alpha, **options)
