"""A manual lambda or k_n on the dashboard moves only the paper's JECS, never the default card."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

pytest.importorskip("streamlit", reason="the dashboard needs the app extra")

from dashboard import compute, rule_controls  # noqa: E402
from jecs_core import DEFAULT_METHOD, load_scores  # noqa: E402

SAMPLE = "sample_data/real/wiki_smollm2_k8.csv"


def _with(**values) -> rule_controls.RuleSettings:
    settings = rule_controls.defaults()
    return replace(settings, pairs=tuple((name, values.get(name, value)) for name, value in settings.pairs))


def test_a_manual_lambda_leaves_the_default_rule_alone():
    table = load_scores(SAMPLE)
    plain = compute.comparison("rule-options-test", 0.2, rule_controls.defaults(), table)
    manual = compute.comparison("rule-options-test", 0.2, _with(lam=0.7, knn=3), table)
    assert np.array_equal(plain.selected(DEFAULT_METHOD), manual.selected(DEFAULT_METHOD))
    assert int(plain.selected(DEFAULT_METHOD).sum()) == 384
    assert manual.result("jecs").lam == 0.7 and manual.result("jecs").k_n == 3


def test_settings_are_a_hashable_mapping_that_hands_each_rule_its_own_options():
    settings = _with(lam=0.65, knn=4)
    assert hash(settings) == hash(_with(lam=0.65, knn=4)) and settings != rule_controls.defaults()
    assert dict(settings)["lam"] == 0.65 and settings["knn"] == 4
    assert settings.for_rule("jecs") == {"lam": 0.65, "knn": 4, "lambda_grid": settings["lambda_grid"]}
    assert "lam" not in settings.for_rule(DEFAULT_METHOD) and settings.for_rule("jmcs") == {}
    assert rule_controls.url_values(settings) == {"lam": "0.65", "knn": "4"}
