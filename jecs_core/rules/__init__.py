"""Selection rules behind one registry (see :mod:`jecs_core.rules.registry`)."""

from .options import Option
from .registry import (
    DEFAULT_METHOD,
    METHODS,
    REGISTRY,
    Guarantee,
    Rule,
    check_declared_options,
    declared_options,
    get_rule,
    select,
)

__all__ = ["DEFAULT_METHOD", "METHODS", "REGISTRY", "Guarantee", "Option", "Rule", "check_declared_options",
           "declared_options", "get_rule", "select"]
