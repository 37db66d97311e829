"""Per-item task results (jecs_build.task_results) and per-model exposure (jecs_build.exposure).

A random-weight tiny Llama with a word-level tokenizer, built in a temporary
directory (nothing downloaded): the one-pass greedy result is checked against
token-by-token greedy decoding, and a toy build with exposures, padding
and task results runs end to end.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("peft")

os.environ.setdefault("HF_HUB_OFFLINE", "1")
WORDS = [f"w{i}" for i in range(12)]  # a small vocabulary, so greedy guesses are often right


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A random tiny Llama (saved as a model directory) and its word-level tokenizer."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    directory = tmp_path_factory.mktemp("tiny_task_llama")
    vocab = {w: i for i, w in enumerate(["[UNK]", "[PAD]", "[EOS]", *WORDS])}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, unk_token="[UNK]", pad_token="[PAD]", eos_token="[EOS]")
    tokenizer.save_pretrained(directory)
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(vocab), hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=64,
                         pad_token_id=1, eos_token_id=2, bos_token_id=2)
    model = LlamaForCausalLM(config).eval()
    model.save_pretrained(directory)
    return directory, model, tokenizer


def _texts(n: int, seed: int = 0, low: int = 34, high: int = 50) -> list[str]:
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(WORDS, size=int(rng.integers(low, high)))) for _ in range(n)]


def _greedy_decode(model, ids: list[int], n: int) -> list[int]:
    """Decode ``n`` tokens after ``ids[:-n]`` one at a time, each the argmax given what was decoded so far."""
    import torch

    sequence = list(ids[:-n])
    with torch.inference_mode():
        for _ in range(n):
            logits = model(input_ids=torch.tensor([sequence])).logits
            sequence.append(int(logits[0, -1].argmax()))
    return sequence[-n:]


@pytest.mark.parametrize("n_tokens", [1, 3])
def test_one_pass_result_equals_greedy_decoding(tiny, n_tokens):
    from jecs_build.task_results import greedy_ending, window_ids

    _, model, tokenizer = tiny
    ids = window_ids(tokenizer, _texts(24, low=6, high=30), max_tokens=20)
    # Every other sequence ends with the model's own greedy continuation, so both outcomes occur.
    ids = [x[:-n_tokens] + _greedy_decode(model, x, n_tokens) if k % 2 else x for k, x in enumerate(ids)]
    correct, accuracy = greedy_ending(model, ids, n_tokens, pad_id=1, batch_size=5)  # ragged batches
    expected = [int(_greedy_decode(model, x, n_tokens) == x[-n_tokens:]) for x in ids]
    assert correct.tolist() == expected
    assert 0 < sum(expected) < len(expected)  # both outcomes occur, so the comparison has teeth
    assert np.all((accuracy >= 0) & (accuracy <= 1))
    assert np.all(accuracy[correct == 1] == 1) and np.all(accuracy[correct == 0] < 1)


def test_window_is_the_training_window(tiny):
    from jecs_build.task_results import window_ids

    _, _, tokenizer = tiny
    ids = window_ids(tokenizer, ["w1 w2 w3 w4 w5", "w3 w4"], max_tokens=3)
    assert ids == [[4, 5, 6], [6, 7]]


def test_too_short_text_is_refused(tiny):
    from jecs_build.task_results import greedy_ending

    _, model, _ = tiny
    with pytest.raises(ValueError, match="at most 2 tokens"):
        greedy_ending(model, [[3, 4, 5], [3, 4]], 2, pad_id=1)
    with pytest.raises(ValueError, match="n_tokens"):
        greedy_ending(model, [[3, 4, 5]], 0, pad_id=1)


def _plan(n: int = 100):
    from jecs_core.simulate import three_block_split

    return three_block_split([f"i{k}" for k in range(n)], models=["a", "b", "c"], rng=np.random.default_rng(0),
                             clean_fraction=0.3, calibration_fraction=0.2, rho=0.0)


def test_exposure_draws_each_models_share_of_the_remainder():
    from jecs_build.exposure import assign_exposure

    plan = assign_exposure(_plan(), ["a", "b", "c"], (0.0, 0.5, 1.0), np.random.default_rng(1))
    remainder = plan["block"] == "remainder"
    assert [int(plan.loc[remainder, f"member_{m}"].sum()) for m in "abc"] == [0, 25, 50]
    assert (plan.loc[plan["block"] == "calibration", ["member_a", "member_b", "member_c"]] == 1).all().all()
    assert (plan.loc[plan["block"] == "clean", ["member_a", "member_b", "member_c"]] == 0).all().all()


@pytest.mark.parametrize("rhos, message", [((0.1, 0.2), "one share per model"), ((0.1, 0.2, 1.5), r"\[0, 1\]")])
def test_bad_exposures_are_refused(rhos, message):
    from jecs_build.exposure import assign_exposure

    with pytest.raises(ValueError, match=message):
        assign_exposure(_plan(), ["a", "b", "c"], rhos, np.random.default_rng(1))


def test_padding_equalises_training_sets_with_outside_texts():
    from jecs_build.exposure import assign_exposure, padding_texts

    plan = assign_exposure(_plan(), ["a", "b", "c"], (0.0, 0.5, 1.0), np.random.default_rng(1))
    plan["text"] = [f"pool {k}" for k in range(len(plan))]
    corpus = pd.DataFrame({"title": [f"t{k}" for k in range(200)],
                           "text": [f"pool {k}" if k < 100 else f"outside {k}" for k in range(200)]})
    padding = padding_texts(corpus, plan, ["a", "b", "c"], seed=0)
    sizes = {m: int(plan[f"member_{m}"].sum()) + int((padding["model"] == m).sum()) for m in "abc"}
    assert sizes == {"a": 70, "b": 70, "c": 70}
    assert padding["text"].str.startswith("outside").all()
    with pytest.raises(ValueError, match="outside the pool"):
        padding_texts(corpus.iloc[:110], plan, ["a", "b", "c"], seed=0)


def test_build_with_exposures_writes_task_results(tiny, tmp_path):
    from jecs_build.finetune import LoraSettings
    from jecs_build.pipeline import BuildConfig, build

    directory, _, _ = tiny
    corpus = tmp_path / "texts.csv"
    pd.DataFrame({"title": [f"t{i}" for i in range(60)], "text": _texts(60, seed=3)}).to_csv(corpus, index=False)
    config = BuildConfig(name="toy_lb", corpus=str(corpus), base_model=str(directory), n_pool=30, n_models=3,
                         a=0.3, b=0.2, rhos=(0.0, 0.4, 0.8), pad_training=True, task_tokens=2,
                         lora=LoraSettings(epochs=1, max_tokens=24), mc_reps=10)
    paths = build(config, out_dir=tmp_path / "out", cache_dir=tmp_path / "cache", progress=False)
    results = pd.read_csv(paths["results"])
    plan = pd.read_csv(tmp_path / "cache" / "toy_lb" / "plan.csv")
    test_ids = set(plan.loc[plan["split"] == "test", "item_id"])
    assert list(results.columns) == ["item_id", "model", "correct", "token_accuracy"]
    assert len(results) == 3 * len(test_ids) and set(results["item_id"]) == test_ids
    assert set(results["correct"]) <= {0, 1}
    prov = json.loads(Path(paths["provenance"]).read_text())
    record = prov["task_results"]
    assert record["file"] == "toy_lb_results.csv" and record["n_tokens"] == 2
    seen = [record["per_model"][m]["test_items_seen"] for m in ("ft01", "ft02", "ft03")]
    assert seen == [0, 6, 12]  # floor(rho * 15 remainder items)
    assert {log["n_train"] for log in prov["training"].values()} == {6 + 12}  # padded to the largest
    for m in ("ft01", "ft02", "ft03"):
        own = results[results["model"] == m]["correct"]
        assert record["per_model"][m]["exact_match_all"] == pytest.approx(own.mean(), abs=1e-4)


@pytest.mark.parametrize("argv, message", [
    (["--models", "3", "--rhos", "0,0.5"], "--rhos needs one share per model (3), got 2"),
    (["--models", "2", "--rhos", "0,2"], "--rhos shares must lie in [0, 1], got 2.0"),
])
def test_cli_refuses_bad_exposures_in_one_line(capsys, tmp_path, argv, message):
    from jecs_build.cli import main

    assert main([*argv, "--cache-dir", str(tmp_path), "--stop-after", "prepare"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"error: {message}"


def test_cli_rejects_a_non_numeric_share(capsys):
    from jecs_build.cli import main

    with pytest.raises(SystemExit):
        main(["--rhos", "0,half"])
    assert "expected comma-separated numbers" in capsys.readouterr().err


def test_shipped_leaderboard_sample_matches_its_provenance():
    """sample_data/real/wiki_smollm2_exposure_k4*: exposures, results of every model on every test item, records."""
    from jecs_core import load_scores
    from sample_data import SAMPLE_DIR

    stem = SAMPLE_DIR / "real" / "wiki_smollm2_exposure_k4"
    table = load_scores(f"{stem}.csv")
    prov = json.loads(Path(f"{stem}.provenance.json").read_text())
    results = pd.read_csv(f"{stem}_results.csv", dtype={"item_id": str})
    assert prov["parameters"]["rhos"] == [0, 0.3, 0.6, 0.9] and prov["parameters"]["pad_training"]
    assert dict(zip(table.models, table.test_members.sum(axis=0).tolist())) == {
        "ft01": 0, "ft02": 60, "ft03": 120, "ft04": 180}
    assert len({log["n_train"] for log in prov["training"].values()}) == 1  # equal training sizes
    assert list(results.columns) == ["item_id", "model", "correct", "token_accuracy"]
    for k, model in enumerate(table.models):
        own = results[results["model"] == model].set_index("item_id").reindex(table.test_ids)
        assert own["correct"].notna().all() and set(own["correct"]) <= {0, 1}
        record = prov["task_results"]["per_model"][model]
        assert record["exact_match_all"] == pytest.approx(own["correct"].mean(), abs=1e-4)
        seen = table.test_members[:, k] == 1
        assert record["test_items_seen"] == int(seen.sum())
        if seen.any():  # memorisation: a model answers the items it was trained on more often
            assert own["correct"][seen].mean() > own["correct"][~seen].mean()


def test_a_task_the_test_texts_cannot_hold_is_refused_before_fine_tuning(tiny, tmp_path, monkeypatch):
    import jecs_build.pipeline as pipeline
    from jecs_build.finetune import LoraSettings
    from jecs_build.pipeline import BuildConfig, build

    directory, _, _ = tiny
    monkeypatch.setattr(pipeline, "finetune", lambda *a, **k: pytest.fail("fine-tuned before the task was checked"))
    corpus = tmp_path / "texts.csv"
    texts = _texts(40, seed=5, low=6, high=9)  # 6 to 8 words, one token each
    pd.DataFrame({"title": [f"t{i}" for i in range(40)], "text": texts}).to_csv(corpus, index=False)

    def config(task_tokens, max_tokens=24):
        return BuildConfig(name=f"short_{task_tokens}_{max_tokens}", corpus=str(corpus), base_model=str(directory),
                           n_pool=20, n_models=2, min_words=1, a=0.3, b=0.2, task_tokens=task_tokens,
                           lora=LoraSettings(epochs=1, max_tokens=max_tokens), mc_reps=10)

    with pytest.raises(ValueError, match=r"--task-tokens \(7\): \d+ of 16 test texts have at most 7 tokens "
                                         r"\(first: item '.+'\), so no prompt would be left"):
        build(config(7), out_dir=tmp_path / "out", cache_dir=tmp_path / "cache", progress=False)
    with pytest.raises(ValueError, match=r"--task-tokens \(24\) must be below --max-tokens \(24\)"):
        build(config(24), out_dir=tmp_path / "out", cache_dir=tmp_path / "cache", progress=False)
    # Texts long enough for the task pass the check and reach the fine-tuning.
    with pytest.raises(pytest.fail.Exception, match="fine-tuned before the task was checked"):
        build(config(5), out_dir=tmp_path / "out", cache_dir=tmp_path / "cache", progress=False)


def test_cli_refuses_a_task_longer_than_the_window_in_one_line(capsys, tmp_path):
    from jecs_build.cli import main

    assert main(["--task-tokens", "64", "--max-tokens", "32", "--cache-dir", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == (
        "error: --task-tokens (64) must be below --max-tokens (32): the task predicts the last tokens of each "
        "text's first --max-tokens tokens from the ones before them")


def test_no_progress_means_a_quiet_stderr(tiny, tmp_path, capfd):
    from jecs_build.cli import main

    directory, _, _ = tiny
    corpus = tmp_path / "texts.csv"
    pd.DataFrame({"title": [f"t{i}" for i in range(40)], "text": _texts(40, seed=6)}).to_csv(corpus, index=False)
    argv = ["--corpus", str(corpus), "--base-model", str(directory), "--n-pool", "20", "--models", "2", "--epochs", "1",
            "--max-tokens", "24", "--mc-reps", "10", "--task-tokens", "2", "--out-dir", str(tmp_path / "out"),
            "--cache-dir", str(tmp_path / "cache"), "--name", "quiet"]
    assert main([*argv, "--no-progress"]) == 0
    out, err = capfd.readouterr()
    assert err == "" and "results:" in out
    assert main([*argv, "--name", "loud"]) == 0  # the bars are back for the next build in the process
    assert "it/s" in capfd.readouterr().err
