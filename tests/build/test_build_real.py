"""The real-sample build (sample_data.build_real) end to end at toy size, and its parts.

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

from sample_data import real_corpus, real_report

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
    from sample_data.build_real import BuildConfig
    from sample_data.real_finetune import LoraSettings

    options = dict(name="toy", corpus=str(toy_corpus), base_model=str(tiny_model), n_pool=30, n_models=2,
                   lora=LoraSettings(epochs=1, max_tokens=32), mc_reps=20)
    options.update(overrides)
    return BuildConfig(**options)


@pytest.fixture(scope="module")
def toy_build(tiny_model, toy_corpus, tmp_path_factory):
    from sample_data.build_real import build

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
    config, _, paths = toy_build
    prov = json.loads(open(paths["provenance"]).read())
    assert prov["parameters"]["n_models"] == 2 and prov["parameters"]["lora"]["epochs"] == 1
    assert prov["corpus"]["n_after_filter"] == 30  # 32 texts, one duplicate, one too short
    assert set(prov["auc_test"]["per_model"]) == {"ft01", "ft02"}
    assert {r["method"] for r in prov["monte_carlo"]["rows"]} == {"jecs", "jmcs", "union", "intersection"}
    assert {r["alpha"] for r in prov["monte_carlo"]["rows"]} == {0.1, 0.2, 0.3}
    assert set(prov["selection_counts"]["counts"]) == {"jecs", "jmcs", "union", "intersection"}
    assert prov["versions"]["torch"] and prov["training"]["ft01"]["steps"] == 2  # ceil(10 texts / 8)
    assert prov["seeds"]["training"] == {"ft01": 100, "ft02": 101}


def test_rebuild_resumes_from_the_cache(toy_build, tiny_model, toy_corpus):
    from sample_data.build_real import build

    config, root, _ = toy_build
    adapter = root / "cache" / "toy" / "adapters" / "ft01" / "train_log.json"
    before = adapter.stat().st_mtime_ns
    build(config, out_dir=root / "out2", cache_dir=root / "cache", stop_after="score", progress=False)
    assert adapter.stat().st_mtime_ns == before  # nothing retrained
    assert not (root / "cache" / "toy" / "merged").exists()  # merged weights are temporary


def test_cache_made_with_other_parameters_is_refused(toy_build, tiny_model, toy_corpus):
    from sample_data.build_real import build

    _, root, _ = toy_build
    with pytest.raises(ValueError, match="rho"):
        build(_config(tiny_model, toy_corpus, rho=0.5), cache_dir=root / "cache", stop_after="prepare", progress=False)


def test_cli_reports_bad_options_in_one_line(capsys, tmp_path):
    from jecs_core.cli import main

    assert main(["build-sample", "--min-words", "50", "--max-words", "10", "--cache-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "max-words" in err


@pytest.mark.parametrize("option", ["--corpus", "--base-model"])
def test_cli_reports_a_missing_input_before_any_work(option, capsys, tmp_path):
    from jecs_core.cli import main

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
