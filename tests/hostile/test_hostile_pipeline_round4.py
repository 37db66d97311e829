"""The audit pipeline end to end on an auditor's real mistakes: a model saved without its tokenizer, ids a
spreadsheet would quote, sweeps asked for a setting twice, lm-eval's own output layout, the default rule's option
on the leaderboard."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import jecs_core as jc
from jecs_cli import main

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "synthetic_k4.csv"


def _texts(path: Path, rng) -> Path:
    from scoring.testing import random_text

    rows = [dict(item_id=f"c{i}", split="calibration", text=random_text(rng, 8)) for i in range(12)]
    rows += [dict(item_id=("-q" if i < 3 else "q") + str(i), split="test", text=random_text(rng, 8)) for i in range(12)]
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


@pytest.fixture
def tiny_model(tmp_path, monkeypatch) -> Path:
    """A tiny local GPT-2 (safetensors and its tokenizer), scored offline."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from scoring.testing import save_tiny_model

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    save_tiny_model(tmp_path / "a", "gpt2", seed=0)
    return tmp_path / "a"


def test_scores_keep_ids_as_written_and_a_model_without_tokenizer_is_refused(tmp_path, capsys, tiny_model):
    texts = _texts(tmp_path / "texts.csv", np.random.default_rng(0))
    out = tmp_path / "scores.csv"
    assert main(["score", "--texts", str(texts), "--model", f"a={tiny_model}", "--out", str(out), "--no-progress"]) == 0
    assert pd.read_csv(out, dtype=str)["item_id"].tolist() == pd.read_csv(texts, dtype=str)["item_id"].tolist()
    capsys.readouterr()
    bare = tmp_path / "bare"
    bare.mkdir()
    for name in ("config.json", "model.safetensors"):
        (bare / name).write_bytes((tiny_model / name).read_bytes())
    code = main(["score", "--texts", str(texts), "--model", f"b={bare}", "--out", str(tmp_path / "s2.csv"), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and "no tokenizer files (tokenizer.json" in err and not (tmp_path / "s2.csv").exists()


@pytest.mark.parametrize("sweep, options, message", [
    ("knn", {"knns": (2, 2)}, r"knns: setting\(s\) \['2'\] given more than once"),
    ("lambda", {"lambdas": (0.5, 0.5)}, r"lambdas: setting\(s\) \['0.5'\] given more than once"),
    ("knn", {"knns": (5, 100_000)}, r"knns: 100000 is more than the n = \d+ test items"),
])
def test_sweeps_refuse_what_they_would_not_run_as_asked(sweep, options, message):
    from jecs_core.evaluate import sweep_knn, sweep_lambda

    run = {"knn": sweep_knn, "lambda": sweep_lambda}[sweep]
    with pytest.raises(ValueError, match=message):
        run(jc.load_scores(SAMPLE), reps=2, **options)


def test_lm_eval_output_path_layout_is_read(tmp_path):
    nested = tmp_path / "runs" / "m1" / "models__m1"  # lm_eval --output_path runs/m1 writes into <model>/
    nested.mkdir(parents=True)
    lines = [json.dumps({"doc_id": i, "filter": "none", "acc": float(i % 2)}) for i in range(4)]
    (nested / "samples_toy_2026-01-01.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    results = jc.load_results([f"m1={tmp_path / 'runs' / 'm1'}"])
    assert results.models == ("m1",) and results.values[:, 0].tolist() == [0.0, 1.0, 0.0, 1.0]


def test_the_leaderboard_takes_the_default_rules_option_and_refuses_unknown_ones():
    from jecs_core.leaderboard import leaderboard

    table = jc.load_scores(SAMPLE)
    results = jc.ResultsTable(models=table.models, item_ids=table.test_ids, values=np.ones((table.n, table.K)))
    chosen = jc.compare_methods(table, alpha=0.1, methods=["storey-maxp"], storey_lam=0.3).result()
    board = leaderboard(table, results, alpha=0.1, storey_lam=0.3)
    assert board.n_clean == chosen.n_selected and np.array_equal(board.selected, chosen.selected)
    with pytest.raises(ValueError, match=r"unknown rule option\(s\) \['bogus'\]"):
        leaderboard(table, results, bogus=1)
    with pytest.raises(ValueError, match="read-only"):
        board.selected[:] = False


def test_audit_diagnostics_names_its_bootstrap_argument():
    from jecs_core.diagnostics import audit_diagnostics

    with pytest.raises(ValueError, match=r"^bootstrap must be an integer >= 2, got 1$"):
        audit_diagnostics(jc.load_scores(SAMPLE), twin=False, bootstrap=1)


@pytest.mark.parametrize("extra, model, message", [
    ({"selected": 1}, "a", r"column 'selected': the name is reserved"),
    ({}, "max", r"model name 'max' is reserved"),
])
def test_score_refuses_a_table_select_would_refuse_before_any_model_loads(tmp_path, capsys, tiny_model, extra, model,
                                                                         message):
    import re

    texts = _texts(tmp_path / "texts.csv", np.random.default_rng(1))
    pd.read_csv(texts).assign(**extra).to_csv(texts, index=False)
    code = main(["score", "--texts", str(texts), "--model", f"{model}={tiny_model}", "--out", str(tmp_path / "s.csv"),
                 "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and re.search(message, err) and "nothing was scored" in err and not (tmp_path / "s.csv").exists()


def test_score_warns_of_labels_for_models_it_does_not_score(tmp_path, capsys, tiny_model):
    texts = _texts(tmp_path / "texts.csv", np.random.default_rng(2))
    frame = pd.read_csv(texts)
    frame.assign(member_a=1, member_b=(frame["split"] == "calibration").astype(int)).to_csv(texts, index=False)
    code = main(["score", "--texts", str(texts), "--model", f"a={tiny_model}", "--out", str(tmp_path / "s.csv"),
                 "--no-progress"])
    err = capsys.readouterr().err
    assert code == 0 and "member_ without score_: ['b']" in err and "once every labelled model" in err
