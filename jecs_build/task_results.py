"""Per-item task results of the fine-tuned models: greedy completion of each text's ending.

The task.  Each text is cut to the window the models were trained and scored
on (its first ``max_tokens`` tokens, tokenised exactly as in training).  The
model is given the window minus its last ``n_tokens`` tokens and decodes
greedily; the item is answered correctly (``correct = 1``) when the
``n_tokens`` decoded tokens equal the window's last ``n_tokens``.  It is a
memorisation-sensitive task by design: a model fine-tuned on the text has been
trained to produce exactly that ending, so its score on the benchmark is
inflated by every test item it saw.

One forward pass per text gives the greedy result: greedy decoding reproduces
the ending if and only if, at each of its positions, the model's most likely
next token given the *true* preceding tokens is the true token (by induction:
while the decoded tokens match, the model conditions on the true prefix).
``token_accuracy`` is the share of those ``n_tokens`` positions whose most
likely next token is right (teacher forced), a softer per-item metric.

The stage runs after scoring, caches each model's results under
``<run>/task-<n_tokens>/<model>.parquet`` and writes ``<name>_results.csv`` (long format:
``item_id, model, correct, token_accuracy``, test items only), the input of
``jecs leaderboard --results`` and the dashboard's Leaderboard page.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

from .common import device, say

RESULT_COLUMNS = ("item_id", "model", "correct", "token_accuracy")


def window_ids(tokenizer, texts, max_tokens: int) -> list[list[int]]:
    """Token ids of each text's first ``max_tokens`` tokens, as the fine-tuning loop tokenises them."""
    return [tokenizer(t, truncation=True, max_length=max_tokens)["input_ids"] for t in texts]


def greedy_ending(model, ids: list[list[int]], n_tokens: int, *, pad_id: int, batch_size: int = 16,
                  device: str = "cpu") -> tuple[np.ndarray, np.ndarray]:
    """Greedy exact match and teacher-forced token accuracy on each sequence's last ``n_tokens`` tokens.

    Parameters
    ----------
    model : transformers causal LM
    ids : list of list of int
        Token ids per item; each needs more than ``n_tokens`` tokens.
    n_tokens : int
    pad_id : int
        Padding id (masked out, never compared).

    Returns
    -------
    correct : numpy.ndarray of int (0/1)
    token_accuracy : numpy.ndarray of float in [0, 1]

    Raises
    ------
    ValueError
        ``n_tokens < 1`` or a sequence too short to leave a prompt.
    """
    import torch

    from scoring.batching import collate

    if n_tokens < 1:
        raise ValueError(f"n_tokens must be >= 1, got {n_tokens}")
    short = [i for i, x in enumerate(ids) if len(x) <= n_tokens]
    if short:
        raise ValueError(f"{len(short)} text(s) have at most {n_tokens} tokens (first: row {short[0]}); "
                         "no prompt would be left")
    n_right = np.zeros((len(ids), n_tokens), dtype=bool)
    with torch.inference_mode():
        for start in range(0, len(ids), batch_size):
            chunk = ids[start:start + batch_size]
            input_ids, mask = collate(chunk, pad_id=pad_id)
            logits = model(input_ids=input_ids.to(device), attention_mask=mask.to(device)).logits
            guess = logits.argmax(dim=-1).cpu()  # guess[:, p] predicts token p + 1
            for row, x in enumerate(chunk):
                end = len(x)
                target = input_ids[row, end - n_tokens:end]
                n_right[start + row] = (guess[row, end - n_tokens - 1:end - 1] == target).numpy()
    return n_right.all(axis=1).astype(int), n_right.mean(axis=1)


def check_task_length(task_tokens: int, max_tokens: int) -> None:
    """``ValueError`` naming both options unless ``task_tokens`` leaves a prompt in a ``max_tokens`` window."""
    if task_tokens >= max_tokens:
        raise ValueError(f"--task-tokens ({task_tokens}) must be below --max-tokens ({max_tokens}): the task predicts "
                         "the last tokens of each text's first --max-tokens tokens from the ones before them")


def check_windows(config, plan: pd.DataFrame) -> None:
    """Refuse, before any fine-tuning, a task that some test text's training window cannot hold.

    Each text's first ``lora.max_tokens`` tokens must leave at least one token of prompt before
    the ``task_tokens`` to predict.  Only the base model's tokenizer is loaded.

    Raises
    ------
    ValueError
        Naming ``--task-tokens``, how many test texts are too short and the first one's id.
    """
    from scoring.loading import load_tokenizer
    from scoring.sources import model_source

    n, window = config.task_tokens, config.lora.max_tokens
    check_task_length(n, window)
    test = plan[plan["split"] == "test"]
    tokenizer = load_tokenizer(model_source(config.base_model, name="base model"))
    short = [j for j, ids in enumerate(window_ids(tokenizer, test["text"].tolist(), window)) if len(ids) <= n]
    if short:
        raise ValueError(f"--task-tokens ({n}): {len(short)} of {len(test)} test texts have at most {n} tokens "
                         f"(first: item {test['item_id'].iloc[short[0]]!r}), so no prompt would be left; "
                         "lower --task-tokens or raise --min-words")


def _task_dir(config, run_dir: Path) -> Path:
    # Keyed by the task's length: results for another n_tokens are never reused.
    return run_dir / f"task-{config.task_tokens}"


def _one_model(config, run_dir: Path, name: str, base, tokenizer, ids, item_ids) -> pd.DataFrame:
    from .finetune import load_merged

    started = time.time()
    model = load_merged(base, run_dir / "adapters" / name)
    correct, accuracy = greedy_ending(model, ids, config.task_tokens, pad_id=tokenizer.pad_token_id)
    del model
    frame = pd.DataFrame({"item_id": item_ids, "model": name, "correct": correct, "token_accuracy": accuracy})
    out = _task_dir(config, run_dir)
    frame.to_parquet(out / f".{name}.parquet.tmp", index=False)
    (out / f"{name}.json").write_text(json.dumps({"seconds": round(time.time() - started, 1)}))
    (out / f".{name}.parquet.tmp").replace(out / f"{name}.parquet")  # last: marks the model done
    say(f"{name} task results in {time.time() - started:.0f} s, exact match {correct.mean():.3f}")
    return frame


def task_stage(config, run_dir: Path, plan: pd.DataFrame) -> pd.DataFrame:
    """Every model's task result on every test item (long, ``RESULT_COLUMNS``), cached per model."""
    from .finetune import load_base

    _task_dir(config, run_dir).mkdir(parents=True, exist_ok=True)
    test = plan[plan["split"] == "test"]
    base = tokenizer = ids = None
    frames = []
    for name in config.model_names():
        cached = _task_dir(config, run_dir) / f"{name}.parquet"
        if cached.is_file():
            frames.append(pd.read_parquet(cached))
            continue
        if base is None:
            base, tokenizer = load_base(config.base_model, device=device(), allow_pickle=config.allow_pickle)
            ids = window_ids(tokenizer, test["text"].tolist(), config.lora.max_tokens)
        frames.append(_one_model(config, run_dir, name, base, tokenizer, ids, test["item_id"].to_numpy()))
    return pd.concat(frames, ignore_index=True)[list(RESULT_COLUMNS)]


def summary(config, run_dir: Path, plan: pd.DataFrame, results: pd.DataFrame) -> dict:
    """The provenance record of the task: definition, each model's exposure and accuracy by membership."""
    test = plan[plan["split"] == "test"].set_index("item_id")
    members = test[[f"member_{m}" for m in config.model_names()]]
    pure = members.sum(axis=1) == 0
    per_model = {}
    for name in config.model_names():
        own = results[results["model"] == name].set_index("item_id")["correct"].reindex(test.index)
        seen = test[f"member_{name}"] == 1
        seconds = json.loads((_task_dir(config, run_dir) / f"{name}.json").read_text())["seconds"]
        per_model[name] = {
            "test_items_seen": int(seen.sum()), "exposure": round(float(seen.mean()), 4),
            "exact_match_all": round(float(own.mean()), 4),
            "exact_match_seen": round(float(own[seen].mean()), 4) if seen.any() else None,
            "exact_match_unseen": round(float(own[~seen].mean()), 4),
            "exact_match_jointly_pure": round(float(own[pure].mean()), 4),
            "seconds": seconds,
        }
    return {
        "task": f"greedy exact match of the last {config.task_tokens} tokens of each text's first "
                f"{config.lora.max_tokens} tokens, given the tokens before them (one teacher-forced pass; "
                "jecs_build.task_results)",
        "n_tokens": config.task_tokens, "max_tokens": config.lora.max_tokens,
        "columns": {"correct": "1 if the greedy completion equals the ending exactly, else 0",
                    "token_accuracy": "share of the ending's tokens that are the model's most likely next token "
                                      "given the true tokens before them"},
        "items": "test items only (the calibration items are known members of every model)",
        "jointly_pure_test_items": int(pure.sum()),
        "per_model": per_model,
    }


def write_results(config, run_dir: Path, plan: pd.DataFrame, results: pd.DataFrame, out_dir: Path,
                  provenance_path: Path) -> Path:
    """Write ``<name>_results.csv`` and add the task's record to the provenance JSON."""
    path = Path(out_dir) / f"{config.name}_results.csv"
    results.to_csv(path, index=False, float_format="%.4g")
    record = json.loads(Path(provenance_path).read_text())
    record["task_results"] = {"file": path.name, **summary(config, run_dir, plan, results)}
    Path(provenance_path).write_text(json.dumps(record, indent=2, default=str) + "\n")
    return path
