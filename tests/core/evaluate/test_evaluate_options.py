"""The evaluator takes the declared rule options: each reaches only the rules declaring it, every
declared option is recorded, and an undeclared one is refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from jecs_core import load_scores
from jecs_core.evaluate import evaluate, format_evaluation, rule_options
from jecs_core.rules import declared_options

TABLE = Path(__file__).resolve().parents[3] / "sample_data" / "synthetic_k4.csv"


@pytest.fixture(scope="module")
def table():
    return load_scores(TABLE)


def test_rule_options_hold_every_declared_option_with_defaults():
    options = rule_options(knn=3)
    assert [name for name, _ in options.values] == list(declared_options())
    assert options["knn"] == 3 and options["storey_lam"] == 0.5 and options["lam"] == "auto"
    assert dict(options.for_rule("storey-maxp")) == {"storey_lam": 0.5}
    with pytest.raises(ValueError, match=r"unknown rule option\(s\) \['shrink'\]"):
        rule_options(shrink=0.3)
    with pytest.raises(ValueError, match="storey_lam"):
        rule_options(storey_lam="0.6")


def test_storey_lam_moves_storey_maxp_only(table):
    common = dict(alphas=(0.1, 0.3), reps=4, seed=1, methods=("storey-maxp", "jecs"), workers=1)
    plain, moved = evaluate(table, **common), evaluate(table, storey_lam=0.7, **common)
    assert np.array_equal(plain.n_selected[1], moved.n_selected[1])  # the paper's JECS: untouched
    assert moved.options["storey_lam"] == 0.7 and np.all(moved.fit_lambda[0] == 0.7)
    assert "storey_lam = 0.7" in format_evaluation(moved)
