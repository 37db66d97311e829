"""Parquet columns that are neither numbers nor text, made plain before pandas sees them.

A carried column of lists, structs or maps (a multiple-choice item's ``choices``, say) becomes one
JSON text per cell, which the export writes as the cell's value; binary cells have no text form a
spreadsheet could show, so a binary column is refused with its name. Columns with a role (scores,
labels, covariates, ids, the split) are left as they are: the data contract refuses them itself,
naming what it expected.
"""

from __future__ import annotations

import json

from ._roles import COVARIATE_PREFIX, MEMBER_PREFIX, SCORE_PREFIX

ROLE_NAMES = ("item_id", "split", "model", "score", "member")
ROLE_PREFIXES = (SCORE_PREFIX, MEMBER_PREFIX, COVARIATE_PREFIX)


def plain_cells(arrow, source: str, error=ValueError):
    """``arrow`` (a pyarrow Table) with nested carried columns as JSON text; ``error`` for a binary column."""
    import pyarrow as pa
    import pyarrow.types as kinds

    for index, field in enumerate(arrow.schema):
        kind = field.type
        if kinds.is_dictionary(kind):
            kind = kind.value_type
        if kinds.is_binary(kind) or kinds.is_large_binary(kind) or kinds.is_fixed_size_binary(kind):
            raise error(f"{source}: column {field.name!r} holds binary cells ({field.type}); a score table carries "
                        "numbers or text: cast the column to text or leave it out")
        nested = (kinds.is_list(kind) or kinds.is_large_list(kind) or kinds.is_fixed_size_list(kind)
                  or kinds.is_struct(kind) or kinds.is_map(kind))
        if not nested or field.name in ROLE_NAMES or str(field.name).startswith(ROLE_PREFIXES):
            continue
        texts = [None if cell is None else json.dumps(cell, ensure_ascii=False, default=str)
                 for cell in arrow.column(index).to_pylist()]
        arrow = arrow.set_column(index, pa.field(field.name, pa.string()), pa.array(texts, pa.string()))
    return arrow


def to_frame(arrow):
    """``arrow`` as a pandas DataFrame, an integer column with gaps kept integer (pandas' nullable type).

    pandas would make such a column float: a carried ``1`` would be exported as ``1.0``. A stored
    pandas type (a frame written by pandas with ``Int64`` columns) is kept as it was.
    """
    import pandas as pd
    import pyarrow.types as kinds

    frame = arrow.to_pandas()
    for name, column in zip(arrow.column_names, arrow.columns):
        if kinds.is_integer(column.type) and column.null_count and name in frame.columns and frame[name].dtype.kind == "f":
            nullable = pd.api.types.pandas_dtype(str(column.type).replace("uint", "UInt").replace("int", "Int"))
            frame[name] = column.to_pandas(types_mapper={column.type: nullable}.get)
    return frame
