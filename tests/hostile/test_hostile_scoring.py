"""Hostile input, scoring and build-sample cases: each hostile input gives its exact exit code and message."""

import json

import numpy as np
import pandas as pd
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from jecs_cli import main  # noqa: E402
from scoring.testing import random_text, save_tiny_model  # noqa: E402


@pytest.fixture
def texts_csv(tmp_path):
    rng = np.random.default_rng(4)
    path = tmp_path / "texts.csv"
    pd.DataFrame({"item_id": range(12), "split": ["calibration"] * 4 + ["test"] * 8,
                  "text": [random_text(rng, int(w)) for w in rng.integers(3, 20, 12)]}).to_csv(path, index=False)
    return path


def _score(texts, model, out, *extra):
    return main(["score", "--texts", str(texts), "--model", f"m={model}", "--out", str(out), *extra])


def _last_line(capsys):
    err = capsys.readouterr().err.strip()
    return err.splitlines()[-1] if err else ""


def test_pickled_pytorch_model_bin_is_refused_in_one_line(tmp_path, texts_csv, capsys):
    from safetensors.torch import load_file

    model = save_tiny_model(tmp_path / "m", "gpt2", seed=1)
    torch.save(load_file(str(model / "model.safetensors")), model / "pytorch_model.bin")
    (model / "model.safetensors").unlink()
    capsys.readouterr()
    assert _score(texts_csv, model, tmp_path / "o.csv", "--no-cache") == 2
    line = _last_line(capsys)
    assert line.startswith("jecs score: error: ") and f"{model / 'pytorch_model.bin'}" in line
    assert "--allow-pickle-weights" in line and not (tmp_path / "o.csv").exists()


def test_truncated_model_safetensors_is_one_line_naming_the_file(tmp_path, texts_csv, capsys):
    model = save_tiny_model(tmp_path / "m", "llama", seed=2)
    weights = model / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:-100])
    capsys.readouterr()
    assert _score(texts_csv, model, tmp_path / "o.csv", "--no-cache") == 2
    line = _last_line(capsys)
    assert line.startswith("jecs score: error: ") and str(weights) in line and "safetensors" in line


def _one_part(cache):
    (part,) = sorted(cache.glob("*/part-*.parquet"))
    return part


def test_cache_part_with_altered_values_is_recomputed_with_a_warning(tmp_path, texts_csv, capsys):
    model, cache = save_tiny_model(tmp_path / "m", "gpt2", seed=3), tmp_path / "cache"
    assert _score(texts_csv, model, tmp_path / "a.csv", "--cache-dir", str(cache)) == 0
    part = _one_part(cache)
    frame = pd.read_parquet(part)
    frame["minkpp"] = 0.0
    frame.to_parquet(part, index=False)
    capsys.readouterr()
    assert _score(texts_csv, model, tmp_path / "b.csv", "--cache-dir", str(cache)) == 0
    err = capsys.readouterr().err
    assert f"warning: score cache part {part}: content does not match its hash" in err
    a, b = pd.read_csv(tmp_path / "a.csv"), pd.read_csv(tmp_path / "b.csv")
    np.testing.assert_allclose(b["score_m"], a["score_m"], rtol=1e-6)
    assert (b["score_m"] != 0.0).all()


def test_cache_part_missing_a_score_column_is_recomputed_not_a_traceback(tmp_path, texts_csv, capsys):
    model, cache = save_tiny_model(tmp_path / "m", "gpt2", seed=4), tmp_path / "cache"
    assert _score(texts_csv, model, tmp_path / "a.csv", "--cache-dir", str(cache)) == 0
    part = _one_part(cache)
    pd.read_parquet(part).drop(columns=["minkpp"]).to_parquet(part, index=False)
    capsys.readouterr()
    assert _score(texts_csv, model, tmp_path / "b.csv", "--cache-dir", str(cache)) == 0
    assert "missing column(s) minkpp" in capsys.readouterr().err
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "b.csv"), pd.read_csv(tmp_path / "a.csv"), rtol=1e-6)


def test_build_sample_name_cannot_escape_the_output_directory(tmp_path, capsys):
    out = tmp_path / "deep" / "out"
    code = main(["build-sample", "--name", "../../escape", "--out-dir", str(out), "--cache-dir", str(tmp_path / "c")])
    assert code == 2
    line = _last_line(capsys)
    assert line.startswith("jecs build-sample: error: --name '../../escape'")
    assert not any(tmp_path.rglob("escape*"))


def test_failed_corpus_read_does_not_block_the_next_run(tmp_path, capsys):
    pytest.importorskip("peft")
    model = save_tiny_model(tmp_path / "base", "llama", seed=5)
    corpus = tmp_path / "corpus.json"
    corpus.write_text("{broken")
    cache = tmp_path / "cache"
    argv = ["build-sample", "--corpus", str(corpus), "--base-model", str(model), "--cache-dir", str(cache),
            "--name", "t", "--stop-after", "prepare", "--n-pool", "10", "--min-words", "3", "--no-progress"]
    assert main(argv) == 2
    assert not (cache / "t" / "config.json").exists()
    rng = np.random.default_rng(0)
    corpus.write_text(json.dumps([random_text(rng, 8) for _ in range(20)]))
    argv[argv.index("--n-pool") + 1] = "12"  # other parameters too: still no --force needed
    assert main(argv) == 0
    assert (cache / "t" / "plan.csv").is_file()
