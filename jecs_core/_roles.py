"""Column-name prefixes that give a wide table's column its role (docs/DATA-CONTRACT.md).

Their own module, with no imports, so the readers below the data contract (Parquet cells, the long
layout) name them too without importing the contract.
"""

SCORE_PREFIX = "score_"
MEMBER_PREFIX = "member_"
COVARIATE_PREFIX = "x_"
# The long layout's own columns (``item_id, split, model, score[, member]``).
LONG_SCORE, LONG_MEMBER = "score", "member"


def is_long_header(names) -> bool:
    """A long table: ``model`` and ``score`` columns and no ``score_<model>`` column (layout ``"auto"``)."""
    names = [str(name) for name in names]
    return "model" in names and LONG_SCORE in names and not any(name.startswith(SCORE_PREFIX) for name in names)


def read_as_written(names, layout: str = "auto") -> tuple:
    """The columns of a score-table CSV whose cells are kept as written: the ids, the long layout's model
    names and every carried column (``007`` stays ``007``, ``NA`` stays ``NA``, an empty cell is "").

    The split, the scores, the labels and the ``x_`` covariates are typed by the reader and checked."""
    long = layout == "long" or (layout == "auto" and is_long_header(names))
    typed = {"split", LONG_SCORE, LONG_MEMBER} if long else {"split"}
    prefixes = (COVARIATE_PREFIX,) if long else (SCORE_PREFIX, MEMBER_PREFIX, COVARIATE_PREFIX)
    return tuple(name for name in names if name not in typed and not str(name).startswith(prefixes))
