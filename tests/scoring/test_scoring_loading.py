"""Model loading refuses pickles by default and reports every failure as one line naming the file."""

import pathlib

import pandas as pd
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from scoring.cli import main as score_main  # noqa: E402
from scoring.loading import load_model  # noqa: E402
from scoring.sources import ModelLoadError, model_source  # noqa: E402
from scoring.testing import save_tiny_model  # noqa: E402


def _pickled(tmp_path):
    directory = save_tiny_model(tmp_path / "pickled", "gpt2", seed=1)
    weights = directory / "model.safetensors"
    from safetensors.torch import load_file

    torch.save(load_file(str(weights)), directory / "pytorch_model.bin")
    weights.unlink()
    return directory


def _one_line(exc_info, *needles):
    message = str(exc_info.value)
    assert "\n" not in message
    for needle in needles:
        assert needle in message
    return message


def test_pickled_weights_are_refused_unless_opted_in(tmp_path):
    directory = _pickled(tmp_path)
    with pytest.raises(ModelLoadError) as exc:
        load_model(model_source(directory), device="cpu")
    _one_line(exc, str(directory / "pytorch_model.bin"), "--allow-pickle-weights")
    assert isinstance(exc.value, ValueError)
    loaded = load_model(model_source(directory), device="cpu", allow_pickle=True)
    assert loaded.model.config.model_type == "gpt2"


def test_truncated_safetensors_is_one_line_naming_the_file(tmp_path):
    directory = save_tiny_model(tmp_path / "cut", "llama", seed=2)
    weights = directory / "model.safetensors"
    data = weights.read_bytes()
    weights.write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelLoadError) as exc:
        load_model(model_source(directory), device="cpu")
    _one_line(exc, str(weights), "safetensors")


def test_missing_config_and_weights(tmp_path):
    directory = save_tiny_model(tmp_path / "noconf", "llama", seed=3)
    (directory / "config.json").unlink()
    with pytest.raises(ModelLoadError) as exc:
        model_source(directory)
    _one_line(exc, "config.json", str(directory))
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "config.json").write_text("{}")
    with pytest.raises(ModelLoadError) as exc:
        load_model(model_source(empty), device="cpu")
    _one_line(exc, str(empty), "no weight files")


def test_broken_config_is_one_line(tmp_path):
    directory = save_tiny_model(tmp_path / "badconf", "llama", seed=4)
    (directory / "config.json").write_text("{not json")
    with pytest.raises(ModelLoadError) as exc:
        load_model(model_source(directory), device="cpu")
    _one_line(exc, str(directory))


def test_an_architecture_only_the_checkpoints_own_code_implements_is_refused_before_anything_loads(tmp_path):
    import json

    directory = save_tiny_model(tmp_path / "custom", "llama", seed=5)
    config = json.loads((directory / "config.json").read_text())
    config.update(model_type="evilmodel", auto_map={"AutoModelForCausalLM": "evil.Model"})
    (directory / "config.json").write_text(json.dumps(config))
    (directory / "evil.py").write_text("open('RAN', 'w').write('x')\n")
    with pytest.raises(ModelLoadError) as exc:
        load_model(model_source(directory), device="cpu")
    _one_line(exc, str(directory / "config.json"), "model_type 'evilmodel' is not an architecture transformers",
              "trust_remote_code=False")
    assert not (tmp_path / "RAN").exists()
    del config["auto_map"]  # no code named: an architecture newer than this transformers, and said so
    (directory / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelLoadError) as exc:
        load_model(model_source(directory), device="cpu")
    _one_line(exc, "model_type 'evilmodel' is not an architecture transformers", "a newer transformers may implement it")


def test_a_directory_without_tokenizer_files_says_so(tmp_path):
    directory = save_tiny_model(tmp_path / "notok", "llama", seed=6)
    for path in directory.glob("tokenizer*"):
        path.unlink()
    with pytest.raises(ModelLoadError) as exc:
        load_model(model_source(directory), device="cpu")
    _one_line(exc, "no tokenizer files (tokenizer.json", "save the model's tokenizer beside its weights")


def test_opted_in_pickled_weights_that_hold_more_than_tensors_are_named_without_torchs_advice(tmp_path):
    import argparse

    directory = _pickled(tmp_path)
    torch.save({"x": argparse.Namespace(a=1)}, directory / "pytorch_model.bin")  # not a plain tensor: weights_only refuses
    with pytest.raises(ModelLoadError) as exc:
        load_model(model_source(directory), device="cpu", allow_pickle=True)
    message = _one_line(exc, "objects beyond plain tensors, which jecs never unpickles", "convert the model to safetensors")
    assert "weights_only set to False" not in message


@pytest.mark.parametrize("content, needle", [(b"NOPE" + b"\0" * 60, "GGUF magic"), (b"GGUF" + b"\x03" * 60, "could not")])
def test_gguf_problems_are_one_line(tmp_path, content, needle):
    pytest.importorskip("gguf")
    path = tmp_path / "bad.gguf"
    path.write_bytes(content)
    with pytest.raises(ModelLoadError) as exc:
        load_model(model_source(path), device="cpu")
    _one_line(exc, "bad.gguf", needle)


def test_a_directory_holding_one_gguf_means_that_file(tmp_path):
    (tmp_path / "only.gguf").write_bytes(b"GGUF")
    source = model_source(tmp_path)
    assert source.gguf_file == "only.gguf"
    (tmp_path / "second.gguf").write_bytes(b"GGUF")
    with pytest.raises(ModelLoadError, match="config.json"):
        model_source(tmp_path)


def test_cli_prints_the_loader_error_in_one_line_and_exits_2(tmp_path, capsys):
    directory = _pickled(tmp_path)
    texts = tmp_path / "t.csv"
    pd.DataFrame({"item_id": [1], "split": ["test"], "text": ["w1 w2 w3"]}).to_csv(texts, index=False)
    argv = ["score", "--texts", str(texts), "--model", f"m={directory}", "--out", str(tmp_path / "o.csv"), "--no-cache"]
    capsys.readouterr()  # drop the model writer's own progress output
    assert score_main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith("error: ") and "pytorch_model.bin" in err and "refused" in err
    assert not (tmp_path / "o.csv").exists()


def test_a_gguf_load_draws_its_conversion_bar_only_while_transformers_bars_are_on(tmp_path, capsys):
    pytest.importorskip("gguf")
    from transformers.utils import logging as hf_logging

    from scoring.testing import save_tiny_gguf

    path = save_tiny_gguf(tmp_path / "tiny.gguf")
    was_on = hf_logging.is_progress_bar_enabled()
    try:
        hf_logging.disable_progress_bar()  # as jecs score does: its own bar, or none with --no-progress
        load_model(model_source(path), device="cpu")
        assert "GGUF tensors" not in capsys.readouterr().err
        hf_logging.enable_progress_bar()
        load_model(model_source(path), device="cpu")
        assert "GGUF tensors" in capsys.readouterr().err  # the loader's own bar, untouched when bars are on
    finally:
        (hf_logging.enable_progress_bar if was_on else hf_logging.disable_progress_bar)()


def _with_config(directory, **fields):
    import json

    config = json.loads((directory / "config.json").read_text())
    config.update(fields)
    (directory / "config.json").write_text(json.dumps(config))
    return directory


def test_shipped_code_beside_a_known_architecture_is_never_run_and_the_run_says_what_was_loaded(tmp_path, capsys):
    plain = save_tiny_model(tmp_path / "plain", "llama", seed=7)
    shipped = _with_config(save_tiny_model(tmp_path / "shipped", "llama", seed=7),
                           auto_map={"AutoModelForCausalLM": "custom.Model"})
    (shipped / "custom.py").write_text("open('RAN', 'w').write('x')\n")
    texts = tmp_path / "t.csv"
    pd.DataFrame({"item_id": ["a", "b"], "split": ["calibration", "test"], "text": ["w1 w2 w3", "w4 w5"]}).to_csv(
        texts, index=False)
    argv = ["score", "--texts", str(texts), "--model", f"plain={plain}", "--model", f"shipped={shipped}",
            "--out", str(tmp_path / "o.csv"), "--no-cache", "--no-progress"]
    capsys.readouterr()
    assert score_main(argv) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 1 and str(shipped) in warnings[0] and "auto_map" in warnings[0]
    assert "transformers' own 'llama' architecture" in warnings[0]
    out = pd.read_csv(tmp_path / "o.csv")
    pd.testing.assert_series_equal(out["score_plain"], out["score_shipped"], check_names=False)  # the same class ran
    assert not (tmp_path / "RAN").exists() and not pathlib.Path("RAN").exists()


def test_an_unknown_architecture_of_a_later_model_is_refused_before_any_model_runs(tmp_path, capsys, monkeypatch):
    import scoring.runner as runner

    good = save_tiny_model(tmp_path / "good", "llama", seed=8)
    newer = _with_config(save_tiny_model(tmp_path / "newer", "llama", seed=8), model_type="llama99")
    texts = tmp_path / "t.csv"
    pd.DataFrame({"item_id": ["a"], "split": ["test"], "text": ["w1 w2"]}).to_csv(texts, index=False)
    monkeypatch.setattr(runner, "score_model_local", lambda *a, **k: pytest.fail("a model ran before the check"))
    argv = ["score", "--texts", str(texts), "--model", f"good={good}", "--model", f"newer={newer}",
            "--out", str(tmp_path / "o.csv"), "--no-cache", "--no-progress"]
    assert score_main(argv) == 2
    assert "model_type 'llama99' is not an architecture transformers" in capsys.readouterr().err


def test_shipped_tokenizer_code_alone_is_no_warning(tmp_path):
    from scoring.architecture import check_architecture

    directory = _with_config(save_tiny_model(tmp_path / "tok", "llama", seed=9),
                             auto_map={"AutoTokenizer": ["tok.Tokenizer", None]})
    assert check_architecture(model_source(directory)) is None
    _with_config(directory, auto_map={"AutoModelForCausalLM": "m.Model"})
    assert "loaded as transformers' own 'llama' architecture" in check_architecture(model_source(directory))


@pytest.mark.parametrize("breakage", ["no_files", "corrupt_json"])
def test_a_later_models_broken_tokenizer_is_refused_before_any_model_runs(tmp_path, capsys, monkeypatch, breakage):
    import scoring.runner as runner

    good = save_tiny_model(tmp_path / "good", "llama", seed=8)
    broken = save_tiny_model(tmp_path / "broken", "llama", seed=8)
    for path in broken.glob("tokenizer*"):
        if breakage == "no_files":
            path.unlink()
        elif path.name == "tokenizer.json":
            path.write_text("{ not json")
    texts = tmp_path / "t.csv"
    pd.DataFrame({"item_id": ["a"], "split": ["test"], "text": ["w1 w2"]}).to_csv(texts, index=False)
    monkeypatch.setattr(runner, "score_model_local", lambda *a, **k: pytest.fail("a model ran before the check"))
    argv = ["score", "--texts", str(texts), "--model", f"good={good}", "--model", f"broken={broken}",
            "--out", str(tmp_path / "o.csv"), "--no-cache", "--no-progress"]
    assert score_main(argv) == 2
    err = capsys.readouterr().err
    assert "broken" in err and "tokenizer" in err and err.count("\n") == 1


def test_a_tokenizer_asking_for_its_own_code_gets_one_jecs_line(tmp_path):
    import json

    directory = save_tiny_model(tmp_path / "tokcode", "llama", seed=10)
    for path in directory.glob("tokenizer*"):
        path.unlink()
    (directory / "tokenizer_config.json").write_text(json.dumps(
        {"tokenizer_class": "OwnTokenizer", "auto_map": {"AutoTokenizer": ["tok.OwnTokenizer", None]}}))
    (directory / "tok.py").write_text("raise SystemExit('never run')\n")
    from scoring.loading import load_tokenizer

    with pytest.raises(ModelLoadError) as exc:
        load_tokenizer(model_source(directory))
    message = _one_line(exc, "auto_map", "trust_remote_code=False")
    assert "hf.co" not in message
