"""Declared rule options: a rule's options reach only that rule, and everything else is generated.

The toy rule below is the worked example of ARCHITECTURE.md ("A new selection rule"): one module's
worth of code, one registry entry, and its CLI flag, widget spec, URL key and sidecar entry appear.
"""

from __future__ import annotations

import argparse
import dataclasses
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


def _toy_run(pvalues, *, alpha, toy_share=0.5):
    """Select items whose max-p is at most ``toy_share * alpha`` (a toy: not a valid rule)."""
    return dataclasses.replace(jc.select(jc.max_p(pvalues), alpha=alpha * toy_share, method="jmcs"), alpha=alpha)


# Named apart from the worked example's `shrink`, so that following the example leaves this test passing.
SHARE = Option(name="toy_share", default=0.5, check=lambda v, name: check_fraction(v, name, include_zero=False),
                help="toy rule only: the share of alpha it spends")
TOY = Rule(name="toy", label="Toy rule", guarantee=Guarantee.INVALID, summary="A test-only rule.",
           run=_toy_run, options=(SHARE,))


@pytest.fixture
def toy_registered(monkeypatch):
    patched = MappingProxyType({**REGISTRY, "toy": TOY})
    monkeypatch.setattr(registry_module, "REGISTRY", patched)
    monkeypatch.setattr(rules_pkg, "REGISTRY", patched)
    return patched


def test_a_toy_option_gets_a_flag_a_widget_a_url_key_and_a_sidecar_entry(toy_registered):
    option, owners = declared_options()["toy_share"]
    assert owners == ("toy",)
    parser = argparse.ArgumentParser()
    add_rule_options(parser)
    args = parser.parse_args(["--toy-share", "0.25"])
    assert "--toy-share" in parser.format_help() and "Toy rule" in parser.format_help()
    assert rule_options(args)["toy_share"] == 0.25
    with pytest.raises(SystemExit):  # the flag's type is the option's own validator
        parser.parse_args(["--toy-share", "1.5"])
    spec = option.widget_spec()
    assert spec["kind"] == "number" and spec["url_key"] == "toy_share" and spec["default"] == 0.5
    assert option.from_url(option.to_url(0.25)) == 0.25
    args = parser.parse_args(["--toy-share", "0.25"])
    args.layout, args.raw_cells, args.covariates, args.shift_method, args.cluster = "auto", False, None, "auto", "none"
    assert select_cli._options(args, None, None)["toy_share"] == 0.25  # what the export sidecar writes
    p = np.random.default_rng(0).random((40, 2)) ** 3
    full = TOY.prepare(p).select(0.2).n_selected
    assert TOY.prepare(p, toy_share=0.1).select(0.2).n_selected <= full
    assert TOY.prepare(p).select(0.2).alpha == 0.2  # the level asked for, as the example reports it


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


def _architecture_example():
    """The worked example of ARCHITECTURE.md, its code block run as the module it names."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[3] / "ARCHITECTURE.md").read_text(encoding="utf-8")
    block = text.split("# jecs_core/rules/shrunk.py\n", 1)[1].split("```", 1)[0]
    namespace = {"__name__": "jecs_core.rules.shrunk", "__package__": "jecs_core.rules"}
    exec(compile(block, "ARCHITECTURE.md", "exec"), namespace)  # noqa: S102  (the repository's own text)
    return namespace["RULE"]


def test_the_architecture_example_can_be_added_beside_the_toy_rule(monkeypatch):
    shrunk = _architecture_example()
    patched = MappingProxyType({**REGISTRY, "toy": TOY, "shrunk": shrunk})
    monkeypatch.setattr(registry_module, "REGISTRY", patched)
    monkeypatch.setattr(rules_pkg, "REGISTRY", patched)
    assert declared_options()["shrink"][1] == ("shrunk",)
    p = np.random.default_rng(0).random((40, 2)) ** 3
    result = shrunk.prepare(p, shrink=0.5).select(0.2)
    assert result.alpha == 0.2  # the user's alpha, not the share JMCS ran at
    assert np.array_equal(result.selected, jc.select(jc.max_p(p), alpha=0.1, method="jmcs").selected)
