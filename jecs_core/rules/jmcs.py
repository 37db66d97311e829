"""JMCS: Benjamini-Hochberg on the max-p values (finite-sample valid)."""

from __future__ import annotations

from ..selection import jmcs
from .registry import Guarantee, Rule

RULE = Rule(
    name="jmcs",
    label="JMCS",
    guarantee=Guarantee.FINITE_SAMPLE,
    summary="BH on the per-item maximum of the model-wise conformal p-values; valid for any dependence "
    "across models, conservative because max-p is super-uniform.",
    run=jmcs,
)
