"""Union and intersection of per-model BH selections: invalid baselines."""

from __future__ import annotations

from ..selection import intersection_selection, union_selection
from .registry import Guarantee, Rule

RULES = (
    Rule(
        name="union",
        label="Union (invalid baseline)",
        guarantee=Guarantee.INVALID,
        summary="Items that any model's BH selection keeps; shown because it fails to control the GCR.",
        run=union_selection,
    ),
    Rule(
        name="intersection",
        label="Intersection (invalid baseline)",
        guarantee=Guarantee.INVALID,
        summary="Items that every model's BH selection keeps; shown because it fails to control the GCR.",
        run=intersection_selection,
    ),
)
