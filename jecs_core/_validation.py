"""Small argument checks shared by the statistical functions: each error names the argument and says what was
expected."""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Set

import numpy as np

from ._few_values import equals_any


def check_alpha(alpha: float, name: str = "alpha") -> float:
    """Return ``alpha`` as a float, or raise if it is not in the open interval (0, 1)."""
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
        raise ValueError(f"{name} must be a number in (0, 1), got {alpha!r}")
    value = float(alpha)
    if not 0.0 < value < 1.0:
        percent = f" (a percentage: {value:g}% is {value / 100:g})" if 1.0 < value < 100.0 else ""
        raise ValueError(f"{name} must be in the open interval (0, 1), got {alpha!r}{percent}")
    return value


_REFUSED_KINDS = {"b": "booleans", "c": "complex numbers", "U": "text", "S": "text", "M": "dates", "m": "time spans",
                  "V": "raw bytes"}


def _refused_element(values: np.ndarray) -> str | None:
    """What an object array holds that is no number (text, booleans), or ``None``."""
    for value in values.ravel():
        for kinds, what in (((str, bytes), "text"), ((bool, np.bool_), "booleans"), (complex, "complex numbers")):
            if isinstance(value, kinds):
                return f"{what} ({value!r})"
    return None


def real_array(values, name: str, dtype=float, *, booleans: bool = False) -> np.ndarray:
    """``values`` as an array of ``dtype``: numbers only; booleans, complex numbers, text and dates are refused
    (``True`` is no p-value, ``"0.5"`` no score), and pandas' missing values become NaN for the caller to refuse.
    With ``booleans``, a boolean array reads as 1/0 (a 0/1 result such as ``correct``)."""
    if booleans and getattr(getattr(values, "dtype", None), "kind", "") == "b":
        return np.asarray(values, dtype=dtype)
    if np.ma.isMaskedArray(values) and np.ma.getmaskarray(values).any():  # asarray would keep the hidden values
        raise ValueError(f"{name} has masked values; fill or drop the masked values first")
    if isinstance(values, (str, bytes, dict, set)):
        raise ValueError(f"{name} must be an array of numbers, got {type(values).__name__}")
    if hasattr(values, "to_numpy") and hasattr(values, "dtypes"):  # a DataFrame or Series
        kinds = [getattr(d, "kind", "O") for d in (values.dtypes if getattr(values, "ndim", 1) == 2 else [values.dtype])]
        refused = next((_REFUSED_KINDS[k] for k in kinds if k in _REFUSED_KINDS), None)
        refused = refused or (_refused_element(values.to_numpy(dtype=object)) if "O" in kinds else None)
        if refused:
            raise ValueError(f"{name} must hold numbers only, got {refused}")
        try:
            return values.to_numpy(dtype=dtype, na_value=np.nan)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name} must hold numbers only ({' '.join(str(exc).split())})") from None
    try:
        raw = np.asarray(values)
    except (TypeError, ValueError):  # rows of different lengths
        raise ValueError(f"{name} must be a rectangular array of numbers (rows of one length)") from None
    refused = _REFUSED_KINDS.get(raw.dtype.kind) or (_refused_element(raw) if raw.dtype.kind == "O" else None)
    if refused:
        raise ValueError(f"{name} must hold numbers only, got {refused}")
    try:
        return raw.astype(dtype, copy=False)
    except (TypeError, ValueError) as exc:  # None, pd.NA or another object in an object array
        raise ValueError(f"{name} must hold numbers only ({' '.join(str(exc).split())})") from None


def check_probability_vector(values, name: str) -> np.ndarray:
    """Return ``values`` as a 1-D float array of numbers in [0, 1]."""
    arr = real_array(values, name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    return _in_unit(arr, name)


def _in_unit(arr: np.ndarray, name: str) -> np.ndarray:
    # min and max alone catch NaN (it propagates and fails both comparisons) and infinities.
    if arr.size and not (arr.min() >= 0.0 and arr.max() <= 1.0):
        raise ValueError(f"{name} must hold finite values in [0, 1]")
    return arr


def only_0_1(arr: np.ndarray) -> bool:
    """Whether every value of a bool or numeric array is 0 or 1 (booleans always are)."""
    if arr.dtype == bool or not arr.size:
        return True
    if arr.dtype.kind in "iu" and arr.dtype.itemsize == 1:
        return bool(arr.view(np.uint8).max() <= 1)  # one byte scan; -1 reads as 255
    return arr.dtype.kind in "iuf" and bool(equals_any(arr, (0, 1)).all())


def check_mask(values, n: int | None, name: str = "selected") -> np.ndarray:
    """``values`` as a 1-D boolean array (of length ``n`` when given): booleans, or numbers that are all
    exactly 0 or 1 (a selection column read back from a file); any other value is refused, not rounded."""
    arr = np.asarray(values)
    expected = f"{name} must be a boolean mask (True/False or 0/1){'' if n is None else f' of length {n}'}"
    if arr.ndim != 1 or (n is not None and arr.shape[0] != n):
        raise ValueError(f"{expected}, got shape {arr.shape}")
    if arr.dtype.kind not in "iufb":
        raise ValueError(f"{expected}, got dtype {arr.dtype}")
    if not only_0_1(arr):
        raise ValueError(f"{expected}, got dtype {arr.dtype} with values other than 0 and 1")
    return arr if arr.dtype == bool else arr.astype(bool)


def frozen(arr: np.ndarray) -> np.ndarray:
    """``arr`` if read-only, else a read-only copy: a fitted object never changes when its caller writes into its input."""
    if not arr.flags.writeable:
        return arr
    out = arr.copy()
    out.setflags(write=False)
    return out


def check_pvalue_matrix(values, name: str = "pvalues") -> np.ndarray:
    """Return an (n, K) float array of p-values; a 1-D input is one model (K = 1)."""
    arr = _columns(real_array(values, name), name)
    if arr.shape[1] == 0:
        raise ValueError(f"{name} must have at least one column (model)")
    return _in_unit(arr, name)


def _columns(arr: np.ndarray, name: str) -> np.ndarray:
    if arr.ndim != 1 and arr.ndim != 2:
        raise ValueError(f"{name} must be a 1-D or 2-D array, got shape {arr.shape}")
    return arr[:, None] if arr.ndim == 1 else arr


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
    """``value`` as an int when an integer or an exactly integral float (``3.0``); ``None`` for 3.5, booleans, text."""
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


def check_score_matrix(values, name: str, *, keep_float32: bool = False) -> np.ndarray:
    """``values`` as a finite (rows, K) float64 array of scores (a 1-D input is one model); with ``keep_float32``
    a float32 array stays float32 (for results that depend only on comparisons, which widening would not change)."""
    kept = keep_float32 and not hasattr(values, "dtypes") and getattr(values, "dtype", None) == np.float32
    arr = _columns(real_array(values, name, np.float32 if kept else float), name)  # pandas' NA as NaN, refused below
    # A finite sum means finite cells, in one pass without a mask; an overflowing sum is checked cell by cell.
    with np.errstate(over="ignore", invalid="ignore"):
        total = arr.sum()
    if not np.isfinite(total) and not np.all(np.isfinite(arr)):
        row, col = np.argwhere(~np.isfinite(arr))[0]
        raise ValueError(f"{name} must be finite; found {float(arr[row, col])!r} at row {row}, column {col}")
    return arr


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
    try:  # text would be read one character at a time, a set or a dict in an order of its own
        unordered = isinstance(alphas, (str, bytes, Set, Mapping))
        values = None if unordered else (alphas,) if alphas is None or np.ndim(alphas) == 0 else tuple(alphas)
    except (TypeError, ValueError):
        values = None
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
