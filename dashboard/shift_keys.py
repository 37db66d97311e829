"""Covariate-aware p-values as part of a data set's key.

A data set whose p-values account for a calibration shift is the same score table under a key
that also names the covariates and the method: every cached computation of :mod:`dashboard.compute`
is keyed on ``data_key`` and reads its p-values from :func:`dashboard.compute.pvalues`, so the rules,
the cards, the post-hoc bound, the leaderboard and the exports all follow the choice, and two
choices never share a cache entry.  No Streamlit here: the compute layer and the pages both read it.
"""

from __future__ import annotations

import json

_MARK = "|shift="  # never in a sample's key ("sample:...") nor an upload's (a SHA-256 and load options)
NAME_SUFFIX = " · covariate-aware p-values"


def key_for(plain_key: str, covariates, method: str) -> str:
    """The key of ``plain_key``'s table with covariate-aware p-values.

    Parameters
    ----------
    plain_key : str
        The data set's key (a covariate-aware key is replaced, not extended).
    covariates : "all" or sequence of str
        Covariate names, as :func:`jecs_core.shift.table_shift_pvalues` takes them.
    method : {"auto", "weighted", "residual"}

    Examples
    --------
    >>> key = key_for("sample:paper", ["x_len", "x,src"], "weighted")
    >>> spec(key), base_key(key)
    ((('x_len', 'x,src'), 'weighted'), 'sample:paper')
    >>> spec("sample:paper") is None
    True
    """
    names = covariates if covariates == "all" else list(covariates)
    return base_key(plain_key) + _MARK + json.dumps([names, method], ensure_ascii=True)


def spec(data_key: str):
    """``(covariates, method)`` named by ``data_key`` (covariates ``"all"`` or a tuple), or ``None`` for plain p-values."""
    if _MARK not in data_key:
        return None
    names, method = json.loads(data_key.split(_MARK, 1)[1])
    return (names if names == "all" else tuple(names)), method


def base_key(data_key: str) -> str:
    """The key of the same table with plain p-values."""
    return data_key.split(_MARK, 1)[0]


def base_name(name: str) -> str:
    """A data set's display name without the covariate-aware suffix."""
    return name[: -len(NAME_SUFFIX)] if name.endswith(NAME_SUFFIX) else name
