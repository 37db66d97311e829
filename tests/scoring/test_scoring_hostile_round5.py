"""``jecs score`` given what an auditor (or an attacker's model folder) may hand it: one line, exit 2, nothing loaded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

torch = pytest.importorskip("torch", reason="torch (the scoring extra) is not installed")
pytest.importorskip("transformers", reason="transformers (the scoring extra) is not installed")

from jecs_cli import main  # noqa: E402
from scoring.testing import save_tiny_model  # noqa: E402


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    return save_tiny_model(tmp_path_factory.mktemp("tiny") / "m")


@pytest.fixture()
def texts(tmp_path) -> Path:
    frame = pd.DataFrame({"item_id": [f"{i:03d}" for i in range(6)], "split": ["calibration"] * 3 + ["test"] * 3,
                          "text": [" ".join(f"w{i + j}" for j in range(8)) for i in range(6)]})
    frame.to_csv(tmp_path / "texts.csv", index=False)
    return tmp_path / "texts.csv"


def _one_line_error(argv, capsys) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err


def test_an_index_that_names_pickled_weights_is_refused_before_any_load(model, texts, tmp_path, capsys):
    from safetensors.torch import load_file, save_file

    rigged = tmp_path / "rigged"
    rigged.mkdir()
    for name in ("config.json", "tokenizer.json", "tokenizer_config.json"):
        if (model / name).exists():
            (rigged / name).write_bytes((model / name).read_bytes())
    weights = load_file(str(model / "model.safetensors"))
    save_file({"stub": torch.zeros(1)}, str(rigged / "stub.safetensors"))  # a safetensors file, so the pickle check passes
    torch.save(weights, rigged / "weights.bin")
    (rigged / "model.safetensors.index.json").write_text(json.dumps({"metadata": {}, "weight_map": {k: "weights.bin" for k in weights}}))
    err = _one_line_error(["score", "--texts", str(texts), "--model", f"x={rigged}", "--out", str(tmp_path / "o.csv"),
                           "--no-cache"], capsys)
    assert "model.safetensors.index.json: names the weight file 'weights.bin'; only safetensors files" in err
    assert not (tmp_path / "o.csv").exists()


@pytest.mark.parametrize(("extra", "message"), [
    (["--device", "meta"], "--device: device 'meta': expected cpu, cuda, cuda:N or auto"),
    (["--device", "mps"], "--device: device 'mps': expected cpu, cuda, cuda:N or auto"),
    (["--shard-size", "0"], "--shard-size: expected a number of texts >= 1, got 0"),
    (["--cache-dir", "{texts}"], "is a file, not a directory"),
    (["--token-budget", "0"], "--token-budget: expected a number of tokens >= 1, got 0"),
    (["--max-length", "1"], "--max-length must be an integer >= 2, got 1"),
    (["--k-mink", "0"], "--k-mink must be in (0, 1], got 0.0"),
    (["--k-minkpp", "2"], "--k-minkpp must be in (0, 1], got 2.0"),
    (["--long-texts", "window", "--stride", "0"], "--stride must be an integer >= 1, got 0"),
    (["--long-texts", "window", "--stride", "600", "--max-length", "64"], "--stride must be below --max-length (64), got 600"),
    (["--engine", "ray", "--workers", "0"], "--workers: expected a number of actors >= 1, got 0"),
    (["--engine", "ray", "--no-cache"], "--no-cache: engine ray hands its results over through the score cache"),
])
def test_settings_that_cannot_work_are_refused_naming_the_flag(extra, message, model, texts, tmp_path, capsys):
    extra = [str(texts) if part == "{texts}" else part for part in extra]
    err = _one_line_error(["score", "--texts", str(texts), "--model", f"a={model}", "--out", str(tmp_path / "o.csv"),
                           *extra], capsys)
    assert message in err


def test_an_output_inside_the_texts_directory_is_refused(model, texts, tmp_path, capsys):
    shards = tmp_path / "shards"
    shards.mkdir()
    (shards / "a.csv").write_bytes(texts.read_bytes())
    err = _one_line_error(["score", "--texts", str(shards), "--model", f"a={model}", "--out", str(shards / "a.csv")], capsys)
    assert "--out: " in err and "is inside the --texts directory" in err
    assert (shards / "a.csv").read_bytes() == texts.read_bytes()


def test_a_blank_item_id_is_refused_before_scoring(model, texts, tmp_path, capsys):
    frame = pd.read_csv(texts, dtype=str)
    frame.loc[2, "item_id"] = "   "
    frame.to_csv(tmp_path / "blank.csv", index=False)
    err = _one_line_error(["score", "--texts", str(tmp_path / "blank.csv"), "--model", f"a={model}",
                           "--out", str(tmp_path / "o.csv"), "--no-cache"], capsys)
    assert "column 'item_id' is empty at row 3 (1 such row(s)); every text needs an id" in err


def test_a_scoring_run_leaves_the_hub_offline(model, texts, tmp_path):
    # huggingface_hub reads the switch once, when first imported: the command line must set it (through
    # scoring.loading) before its logging set-up imports transformers.
    code = (f"from jecs_cli import main\nmain(['score', '--texts', {str(texts)!r}, '--model', 'a={model}', '--out', "
            f"{str(tmp_path / 'o.csv')!r}, '--no-cache', '--no-progress'])\n"
            "import huggingface_hub.constants as c\nprint(c.HF_HUB_OFFLINE)\n")
    env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert done.stdout.strip().splitlines()[-1] == "True", done.stderr[-2000:]
