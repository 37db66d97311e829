"""A cached plan that an earlier run could not have written is refused, naming the file and the fix."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from jecs_cli import main  # noqa: E402
from scoring.testing import random_text, save_tiny_model  # noqa: E402


def _tamper_dropped_member(plan: pd.DataFrame) -> pd.DataFrame:
    return plan.drop(columns=[c for c in plan.columns if c.startswith("member_")][:1])


@pytest.mark.parametrize("tamper, problem", [
    (_tamper_dropped_member, r"missing column\(s\) member_"),
    (lambda plan: pd.concat([plan, plan.iloc[:1]]), "repeated item ids"),
    (lambda plan: plan.assign(split="train"), "a split other than calibration or test"),
    (lambda plan: plan.iloc[:0], "no rows"),
])
def test_a_tampered_cached_plan_is_refused_naming_the_file(tmp_path, capsys, tamper, problem):
    model = save_tiny_model(tmp_path / "base", "llama", seed=5)
    corpus = tmp_path / "corpus.json"
    rng = np.random.default_rng(0)
    corpus.write_text(json.dumps([random_text(rng, 8) for _ in range(20)]))
    cache = tmp_path / "cache"
    argv = ["build-sample", "--corpus", str(corpus), "--base-model", str(model), "--cache-dir", str(cache),
            "--name", "t", "--stop-after", "prepare", "--n-pool", "12", "--min-words", "3", "--no-progress"]
    assert main(argv) == 0
    plan_file = cache / "t" / "plan.csv"
    assert main(argv) == 0  # untouched: reused
    tamper(pd.read_csv(plan_file, keep_default_na=False)).to_csv(plan_file, index=False)
    capsys.readouterr()
    assert main(argv) == 2
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert str(plan_file) in line and "delete it to draw the plan again" in line
    assert re.search(problem, line)
