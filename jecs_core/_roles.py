"""Column roles by name (docs/DATA-CONTRACT.md): the prefixes that give a wide table's column its role,
the test for the long layout, and the columns a CSV reader keeps as written.

Their own module, with no imports, so the readers below the data contract (Parquet cells, the long
layout, the CSV readers) use them too without importing the contract.
"""

SCORE_PREFIX = "score_"
MEMBER_PREFIX = "member_"
COVARIATE_PREFIX = "x_"


def is_long_header(names) -> bool:
    """A long table: ``model`` and ``score`` columns and no ``score_<model>`` column (layout ``"auto"``)."""
    names = [str(name) for name in names]
    return "model" in names and "score" in names and not any(name.startswith(SCORE_PREFIX) for name in names)


def read_as_written(names, layout: str = "auto") -> tuple:
    """The columns of a score-table CSV whose cells are kept as written: the ids, the long layout's model
    names and every carried column (``007`` stays ``007``, ``NA`` stays ``NA``, an empty cell is "").

    The split, the scores, the labels and the ``x_`` covariates are typed by the reader and checked."""
    long = layout == "long" or (layout == "auto" and is_long_header(names))
    typed = {"split", "score", "member"} if long else {"split"}  # the long layout's own typed columns
    prefixes = (COVARIATE_PREFIX,) if long else (SCORE_PREFIX, MEMBER_PREFIX, COVARIATE_PREFIX)
    return tuple(name for name in names if name not in typed and not str(name).startswith(prefixes))
