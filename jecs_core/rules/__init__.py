"""Selection rules behind one registry (see :mod:`jecs_core.rules.registry`)."""

from .registry import DEFAULT_METHOD, METHODS, REGISTRY, Guarantee, Rule, get_rule, select

__all__ = ["DEFAULT_METHOD", "METHODS", "REGISTRY", "Guarantee", "Rule", "get_rule", "select"]
