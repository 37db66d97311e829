"""Checks of array arguments (p-value matrices, score matrices, masks): each error names the argument and
says what was expected. Scalar checks are in :mod:`jecs_core._validation`, which re-exports these."""

from __future__ import annotations

import numpy as np

from ._few_values import equals_any

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
    refuse_masked(values, name)
    if booleans and getattr(getattr(values, "dtype", None), "kind", "") == "b":
        return np.asarray(values, dtype=dtype)
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


def refuse_masked(values, name: str) -> None:
    """A masked array with a value masked is refused: ``asarray`` would keep the hidden values."""
    if np.ma.isMaskedArray(values) and np.ma.getmaskarray(values).any():
        raise ValueError(f"{name} has masked values; fill or drop the masked values first")


def check_mask(values, n: int | None, name: str = "selected") -> np.ndarray:
    """``values`` as a 1-D boolean array (of length ``n`` when given): booleans, or numbers that are all
    exactly 0 or 1 (a selection column read back from a file); any other value is refused, not rounded."""
    refuse_masked(values, name)
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
