"""Declared rule options: a rule's options reach only that rule, and everything else is generated.

The toy rule below is the worked example of ARCHITECTURE.md ("A new selection rule"): one module's
worth of code, one registry entry, and its CLI flag, widget spec, URL key and sidecar entry appear.
"""

from __future__ import annotations

import argparse
from types import MappingProxyType

import numpy as np
import pytest

import jecs_core as jc
import jecs_core.rules as rules_pkg
from jecs_core._validation import check_fraction
from jecs_core.cli import select as select_cli
from jecs_core.cli.options import add_rule_options, rule_options
from jecs_core.rules import REGISTRY, Guarantee, Option, Rule, declared_options
from jecs_core.rules import registry as registry_module


def _toy_run(pvalues, *, alpha, shrink=0.5):
    """Select items whose max-p is at most ``shrink * alpha`` (a toy: not a valid rule)."""
    return jc.select(jc.max_p(pvalues), alpha=alpha * shrink, method="jmcs")


SHRINK = Option(name="shrink", default=0.5, check=lambda v, name: check_fraction(v, name, include_zero=False),
                help="toy rule only: the share of alpha it spends")
TOY = Rule(name="toy", label="Toy rule", guarantee=Guarantee.INVALID, summary="A test-only rule.",
           run=_toy_run, options=(SHRINK,))


@pytest.fixture
def toy_registered(monkeypatch):
    patched = MappingProxyType({**REGISTRY, "toy": TOY})
    monkeypatch.setattr(registry_module, "REGISTRY", patched)
    monkeypatch.setattr(rules_pkg, "REGISTRY", patched)
    return patched


def test_a_toy_option_gets_a_flag_a_widget_a_url_key_and_a_sidecar_entry(toy_registered):
    option, owners = declared_options()["shrink"]
    assert owners == ("toy",)
    parser = argparse.ArgumentParser()
    add_rule_options(parser)
    args = parser.parse_args(["--shrink", "0.25"])
    assert "--shrink" in parser.format_help() and "Toy rule" in parser.format_help()
    assert rule_options(args)["shrink"] == 0.25
    with pytest.raises(SystemExit):  # the flag's type is the option's own validator
        parser.parse_args(["--shrink", "1.5"])
    spec = option.widget_spec()
    assert spec["kind"] == "number" and spec["url_key"] == "shrink" and spec["default"] == 0.5
    assert option.from_url(option.to_url(0.25)) == 0.25
    args = parser.parse_args(["--shrink", "0.25"])
    args.layout, args.raw_cells, args.covariates, args.shift_method, args.cluster = "auto", False, None, "auto", "none"
    assert select_cli._options(args, None, None)["shrink"] == 0.25  # what the export sidecar writes
    p = np.random.default_rng(0).random((40, 2)) ** 3
    full = TOY.prepare(p).select(0.2).n_selected
    assert TOY.prepare(p, shrink=0.1).select(0.2).n_selected <= full


def test_an_option_reaches_only_the_rules_that_declare_it():
    p = np.random.default_rng(1).random((200, 3)) ** 2
    plain = jc.compare_pvalues(p, alpha=0.2)
    moved = jc.compare_pvalues(p, alpha=0.2, lam=0.7, knn=3)
    for name in jc.METHODS:
        if "lam" not in REGISTRY[name].option_names:
            assert np.array_equal(plain.selected(name), moved.selected(name)), name
    storey = jc.compare_pvalues(p, alpha=0.2, storey_lam=0.7).result("storey-maxp")
    assert storey.lam == 0.7 and storey.pi0_hat != plain.result("storey-maxp").pi0_hat


@pytest.mark.parametrize("options", [{"knn": "3"}, {"lambda_grid": ("0.6",)}, {"lam": "0.7"}, {"knn": 2.5},
                                     {"knn": True}, {"lambda_grid": "0.6"}, {"knn": 10**11}])
def test_strings_and_impossible_values_are_refused_with_one_line(options):
    p = np.random.default_rng(2).random((50, 2))
    with pytest.raises(ValueError) as info:
        jc.select(p, alpha=0.1, method="jecs", **options)
    assert "\n" not in str(info.value) and next(iter(options)) in str(info.value)


def test_unknown_options_are_refused():
    p = np.random.default_rng(3).random((20, 2))
    with pytest.raises(ValueError, match="does not take"):
        jc.select(p, alpha=0.1, method="storey-maxp", lam=0.7)
    with pytest.raises(ValueError, match="unknown rule option"):
        jc.compare_pvalues(p, alpha=0.1, shrinkage=0.3)


def test_shared_option_names_must_share_one_declaration(monkeypatch):
    other = Option(name="knn", default=None, check=lambda v, name: v, help="a different knn")
    clash = Rule(name="clash", label="Clash", guarantee=Guarantee.INVALID, summary="x", run=_toy_run, options=(other,))
    monkeypatch.setattr(registry_module, "REGISTRY", MappingProxyType({**REGISTRY, "clash": clash}))
    with pytest.raises(RuntimeError, match="declared differently"):
        declared_options()
