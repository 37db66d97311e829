"""Hostile inputs against the checks the code actually runs: strings for numbers, impossible k_n, output = input."""

from __future__ import annotations

import numpy as np
import pytest

import jecs_core as jc
from jecs_cli import main

SAMPLE = "sample_data/real/wiki_smollm2_k8.csv"


@pytest.mark.parametrize(("method", "options", "named"), [
    ("jecs", {"knn": "3"}, "knn"), ("jecs", {"lambda_grid": ("0.6",)}, "lambda_grid"), ("jecs", {"lam": "0.7"}, "lam"),
    ("jecs", {"knn": 100_000_000_000}, "knn"), ("storey-maxp", {"storey_lam": "0.5"}, "storey_lam"),
    ("storey-maxp", {"storey_lam": 1.0}, "storey_lam"),
])
def test_library_refuses_strings_and_impossible_values(method, options, named):
    p = np.random.default_rng(0).random((40, 3))
    with pytest.raises(ValueError, match=named) as info:
        jc.select(p, alpha=0.1, method=method, **options)
    assert "\n" not in str(info.value)


def test_cli_refuses_an_impossible_knn(capsys):
    assert main(["select", SAMPLE, "--knn", "100000000000", "--no-diagnostics"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"jecs select: error: --knn: 100000000000 is more than the n = 560 test items of {SAMPLE}"]


def test_cli_lam_moves_only_the_paper_jecs(capsys):
    assert main(["select", SAMPLE, "--alpha", "0.2", "--no-diagnostics"]) == 0
    plain = capsys.readouterr().out
    assert main(["select", SAMPLE, "--alpha", "0.2", "--lam", "0.7", "--knn", "3", "--no-diagnostics"]) == 0
    moved = capsys.readouterr().out

    def storey_row(text):
        return next(line for line in text.splitlines() if line.startswith("Storey-BH on max-p (default)"))

    assert storey_row(plain) == storey_row(moved) and " 384 " in storey_row(plain)


def test_score_refuses_to_overwrite_its_input(tmp_path, capsys):
    texts = tmp_path / "texts.csv"
    texts.write_text("item_id,text\na,hello\n", encoding="utf-8")
    pytest.importorskip("transformers", reason="jecs score needs the scoring extra")
    assert main(["score", "--texts", str(texts), "--model", f"a={tmp_path}", "--out", str(texts)]) == 2
    assert "is the input file" in capsys.readouterr().err
    assert texts.read_text(encoding="utf-8") == "item_id,text\na,hello\n"
