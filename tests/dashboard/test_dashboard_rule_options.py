"""A manual lambda or k_n on the dashboard moves only the paper's JECS, never the default card."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("streamlit", reason="the dashboard needs the app extra")

from dashboard import compute  # noqa: E402
from jecs_core import DEFAULT_METHOD, load_scores  # noqa: E402

SAMPLE = "sample_data/real/wiki_smollm2_k8.csv"


def test_a_manual_lambda_leaves_the_default_rule_alone():
    table = load_scores(SAMPLE)
    plain = compute.comparison("rule-options-test", 0.2, "auto", None, table)
    manual = compute.comparison("rule-options-test", 0.2, 0.7, 3, table)
    assert np.array_equal(plain.selected(DEFAULT_METHOD), manual.selected(DEFAULT_METHOD))
    assert int(plain.selected(DEFAULT_METHOD).sum()) == 384
    assert manual.result("jecs").lam == 0.7 and manual.result("jecs").k_n == 3
