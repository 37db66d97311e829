"""Score-table entry points: pick covariates from a :class:`~jecs_core.ScoreTable` and run the shift tools.

The table carries ``covariate_names`` (the ``<name>`` of each ``x_<name>`` column),
``covariates`` (n, d) and ``calibration_covariates`` (m, d); a ``text`` column, when
both splits have it, sits in ``test_extra`` / ``calibration_extra``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .check import ShiftCheck, shift_check
from .choose import ShiftPValues, shift_pvalues

_PREFIX = "x_"


def parse_covariates(text: str):
    """``--covariates`` value: ``"all"``, or a comma-separated list of names (``x_len,src``) as a tuple.

    Raises
    ------
    ValueError
        For an empty list or an empty name.
    """
    text = str(text).strip()
    if text == "all":
        return "all"
    names = tuple(part.strip() for part in text.split(","))
    if not text or any(not n or n == _PREFIX for n in names):
        raise ValueError(f"covariates must be 'all' or comma-separated names like x_len,x_src, got {text!r}")
    return names


def covariate_columns(table, covariates) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    """``(names, test_X, cal_X)`` for ``covariates``: ``"all"``, or names with or without ``x_``.

    Raises
    ------
    ValueError
        Naming the unknown covariate(s) and the ones the table has.
    """
    have = table.covariate_names
    if isinstance(covariates, str) and covariates == "all":
        wanted = have
    elif isinstance(covariates, str) or not isinstance(covariates, Sequence):
        raise ValueError(f"covariates must be 'all' or a sequence of names, got {covariates!r}")
    else:
        wanted = tuple(c[len(_PREFIX):] if c.startswith(_PREFIX) else c for c in map(str, covariates))
    if not wanted:
        raise ValueError("covariates: the table has no x_<name> covariate columns" if not have
                         else "covariates must name at least one covariate")
    unknown = [c for c in wanted if c not in have]
    if unknown:
        raise ValueError(f"covariates: {[_PREFIX + c for c in unknown]} not in the table "
                         f"(it has {[_PREFIX + c for c in have] or 'no covariates'})")
    idx = [have.index(c) for c in wanted]
    return wanted, np.asarray(table.covariates)[:, idx], np.asarray(table.calibration_covariates)[:, idx]


def table_texts(table):
    """``(test_text, cal_text)`` when both splits carry a ``text`` column, else ``(None, None)``."""
    test_extra, cal_extra = table.test_extra, table.calibration_extra
    if "text" not in test_extra or "text" not in cal_extra:
        return None, None
    return list(test_extra["text"]), list(cal_extra["text"])


def table_shift_pvalues(table, *, covariates="all", method: str = "auto", rng: np.random.Generator | None = None,
                        **options) -> ShiftPValues:
    """:func:`~jecs_core.shift.shift_pvalues` on a score table's scores and chosen covariates.

    Parameters
    ----------
    table : ScoreTable
    covariates : "all" or sequence of str
        Covariate names (``len`` or ``x_len``).  Ignored when ``method="none"``.
    method : {"auto", "weighted", "residual", "none"}
    rng : numpy.random.Generator, optional
        Randomised tie-breaking of the p-values.
    **options
        Passed on (``n_folds``, ``clip``, ``scale``, ``min_ess_fraction``, ``min_r2``).
    """
    if method == "none":
        return shift_pvalues(table.test, table.calibration, method="none", rng=rng)
    _, test_X, cal_X = covariate_columns(table, covariates)
    return shift_pvalues(table.test, table.calibration, test_X, cal_X, method=method, rng=rng, **options)


def table_shift_check(table, *, covariates="all", use_text: bool = True, n_permutations: int = 199,
                      level: float = 0.05, seed: int | None = 0, **options) -> ShiftCheck:
    """:func:`~jecs_core.shift.shift_check` on a score table (covariates, and text features when present).

    Parameters
    ----------
    table : ScoreTable
    covariates : "all", sequence of str, or None
        ``None`` uses the text features only (needs a ``text`` column in both splits).
        ``"all"`` on a table without covariates also falls back to the text features.
    use_text : bool
        Add simple text features when both splits carry a ``text`` column.
    n_permutations, level
        See :func:`~jecs_core.shift.shift_check`.
    seed : int or None
        Seed of the folds and permutations (the check is reproducible by default).
    """
    test_text, cal_text = table_texts(table) if use_text else (None, None)
    no_covariates = covariates is None or (isinstance(covariates, str) and covariates == "all" and not table.covariate_names)
    if no_covariates and (test_text is None or cal_text is None):
        raise ValueError("the table has no x_<name> covariate columns and no 'text' column in both splits; the "
                         "calibration-shift check compares the splits on those")
    if no_covariates:
        names, test_X, cal_X = None, None, None
    else:
        names, test_X, cal_X = covariate_columns(table, covariates)
    return shift_check(test_X, cal_X, names=names, test_text=test_text, cal_text=cal_text,
                       n_permutations=n_permutations, level=level, rng=np.random.default_rng(seed), **options)
