"""Small argument checks shared by the statistical functions: each error names the argument and says what was
expected."""

from __future__ import annotations

import decimal
import numbers
from collections.abc import Iterator, Mapping, Set, ValuesView

import numpy as np

# The array checks, re-exported: every caller imports its checks from this one module.
from ._array_checks import (  # noqa: F401
    check_mask,
    check_probability_vector,
    check_pvalue_matrix,
    check_score_matrix,
    frozen,
    only_0_1,
    real_array,
    refuse_masked,
)


def check_alpha(alpha: float, name: str = "alpha") -> float:
    """Return ``alpha`` as a float, or raise if it is not in the open interval (0, 1) (a 0-d array and a
    ``Decimal`` are numbers too, as for the counts)."""
    if isinstance(alpha, np.ndarray) and alpha.ndim == 0:
        alpha = alpha.item()
    if isinstance(alpha, decimal.Decimal) and alpha.is_finite():
        alpha = float(alpha)
    if isinstance(alpha, (bool, np.bool_)) or not isinstance(alpha, numbers.Real):
        raise ValueError(f"{name} must be a number in (0, 1), got {alpha!r}")
    value = float(alpha)
    if not 0.0 < value < 1.0:
        percent = f" (a percentage: {value:g}% is {value / 100:g})" if 1.0 < value < 100.0 else ""
        raise ValueError(f"{name} must be in the open interval (0, 1), got {alpha!r}{percent}")
    return value


def check_bool(value, name: str) -> bool:
    """``value`` as a bool: True/False (numpy's too) or 1/0; a truthy ``"false"`` or ``2`` is refused, not read as True."""
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, (int, np.integer)) and value in (0, 1)):
        return bool(value)
    raise TypeError(f"{name} must be True or False, got {value!r}")


def check_names(names, name: str) -> tuple:
    """``names`` as a tuple of distinct names; one string is refused (it is not split into characters)."""
    if isinstance(names, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of names (pass a list of names), got the string {names!r}")
    try:
        values = tuple(names)
        distinct = len(set(values)) == len(values)
    except TypeError:  # not iterable, or names that are no names (lists)
        raise TypeError(f"{name} must be a sequence of names, got {names!r}") from None
    if not distinct:
        repeated = sorted({str(v) for v in values if values.count(v) > 1})
        raise ValueError(f"{name} must be distinct names, got {repeated} more than once")
    return values


def _whole(value) -> int | None:
    """``value`` as an int when an integer or an exactly integral float (``3.0``, a 0-d array, a ``Decimal``);
    ``None`` for 3.5, booleans, text."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, decimal.Decimal) and value.is_finite():
        return int(value) if value == value.to_integral_value() else None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        return None
    if isinstance(value, numbers.Integral):
        return int(value)
    return int(value) if float(value).is_integer() else None


def check_positive_int(value, name: str, *, minimum: int = 1) -> int:
    """Return ``value`` as an int, or raise if it is not an integer (``3.0`` is 3) >= ``minimum``."""
    whole = _whole(value)
    if whole is None or whole < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return whole


def _number(value, name: str, expected: str) -> float:
    """``value`` as a finite float; booleans and text are refused (True is not 1, "0.5" is not 0.5)."""
    try:
        number = None if isinstance(value, (bool, np.bool_, str, bytes)) else float(value)
    except (TypeError, ValueError, OverflowError):
        number = None
    if number is None or not np.isfinite(number):
        raise ValueError(f"{name} must be {expected}, got {value!r}")
    return number


def check_finite(value, name: str) -> float:
    """A finite number (booleans and text refused)."""
    return _number(value, name, "a finite number")


def check_fraction(value, name: str, *, include_zero: bool = True, include_one: bool = True) -> float:
    """A number in [0, 1]; ``include_zero`` / ``include_one`` close or open each end (``(0, 1]`` for a draw fraction)."""
    interval = f"{'[' if include_zero else '('}0, 1{']' if include_one else ')'}"
    number = _number(value, name, f"a number in {interval}")
    if not ((number >= 0.0 if include_zero else number > 0.0) and (number <= 1.0 if include_one else number < 1.0)):
        raise ValueError(f"{name} must be in {interval}, got {value!r}")
    return number


def check_positive_number(value, name: str) -> float:
    """A finite number > 0."""
    number = _number(value, name, "a positive number")
    if not number > 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return number


def check_lambda(lam, name: str = "lam") -> float:
    """A right-tail threshold lambda in the open interval (0, 1)."""
    number = _number(lam, name, "a number in the open interval (0, 1)")
    if not 0.0 < number < 1.0:
        raise ValueError(f"{name} must be in the open interval (0, 1), got {lam!r}")
    return number


def check_lam(lam, name: str = "lam"):
    """The ``lam`` option: ``"auto"`` (data-driven) or a lambda in (0, 1)."""
    if isinstance(lam, str) and lam != "auto":
        raise ValueError(f"{name} must be 'auto' or a number in (0, 1), got {lam!r}")
    return lam if isinstance(lam, str) else check_lambda(lam, name)


def check_fixed_lam(lam, default: float, name: str = "lam") -> float:
    """``lam`` where the guarantee needs lambda fixed in advance (data-driven would void it): ``"auto"`` -> ``default``."""
    chosen = check_lam(lam, name)
    return float(default) if chosen == "auto" else chosen


def check_lambda_grid(grid, name: str = "lambda_grid") -> tuple[float, ...]:
    """A non-empty sequence of distinct lambdas in (0, 1); a set or a dict is refused (its order breaks ties)."""
    if isinstance(grid, (str, bytes, Set, Mapping)) or not hasattr(grid, "__iter__"):
        raise ValueError(f"{name} must be a sequence of numbers in (0, 1), got {grid!r}")
    values = tuple(check_lambda(g, f"{name} value") for g in grid)
    if not values:
        raise ValueError(f"{name} must hold at least one value")
    twice = next((v for i, v in enumerate(values) if v in values[:i]), None)
    if twice is not None:  # a grid point given twice is a slip, not a weight
        raise ValueError(f"{name}: {twice:g} given more than once; give each value once")
    return values


def check_alphas(alphas, name: str = "alphas") -> tuple[float, ...]:
    """A non-empty tuple of distinct levels, each in (0, 1); one number (a 0-d array too) is one level."""
    if isinstance(alphas, (Iterator, ValuesView)):  # a generator or a dict's values(): read once, in its order
        alphas = tuple(alphas)
    try:  # text would be read one character at a time, a set or a dict in an order of its own
        unordered = isinstance(alphas, (str, bytes, Set, Mapping))
        values = None if unordered else (alphas,) if alphas is None or np.ndim(alphas) == 0 else tuple(alphas)
    except (TypeError, ValueError):
        values = None
    if values is not None and np.ndim(alphas) > 1:
        raise ValueError(f"{name} must be a 1-D sequence of numbers in (0, 1), got shape {np.shape(alphas)}")
    if values is None:
        raise ValueError(f"{name} must be a number or a sequence of numbers in (0, 1), got {alphas!r}")
    if not values:
        raise ValueError(f"{name} must hold at least one level in (0, 1)")
    levels = tuple(check_alpha(a.item() if isinstance(a, np.ndarray) else a, name) for a in values)
    twice = next((a for i, a in enumerate(levels) if a in levels[:i]), None)
    if twice is not None:  # each level is one row of a summary: a repeat would print twice
        raise ValueError(f"{name} must hold each level once, got {twice:g} more than once")
    return levels


def check_knn(knn, name: str = "knn") -> int | None:
    """The kNN size: a positive integer (``3.0`` is 3), or ``None`` / ``"auto"`` for ``ceil(sqrt(m_R))``."""
    whole = _whole(knn)
    if not (knn is None or (isinstance(knn, str) and knn == "auto") or (whole is not None and whole >= 1)):
        raise ValueError(f"{name} must be a positive integer or 'auto' (automatic), got {knn!r}")
    return whole


def check_at_most_n(value: int, n: int, name: str, *, of: str | None = None) -> int:
    """``value`` if at most ``n`` test items: a larger count (``knn``, bounded by the tail) would be clipped silently."""
    if value > n:
        raise ValueError(f"{name}: {value} is more than the n = {n:,} test items" + (f" of {of}" if of else ""))
    return value


def check_seed(seed, name: str = "seed") -> int | None:
    """The one seed convention: a non-negative integer, or ``None`` for fresh entropy."""
    whole = _whole(seed)
    if seed is not None and (whole is None or whole < 0):
        raise ValueError(f"{name} must be a non-negative integer or None, got {seed!r}")
    return whole


def check_rng(rng, name: str = "rng", *, allow_none: bool = True) -> np.random.Generator:
    """A ``numpy.random.Generator`` (``None`` -> a fresh one when ``allow_none``)."""
    if rng is None and allow_none:
        return np.random.default_rng()
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"{name} must be a numpy.random.Generator{' or None' if allow_none else ''}, "
                         f"got {type(rng).__name__}")
    return rng
