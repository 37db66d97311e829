"""Score the pool under every fine-tuned model with the scoring engine (``scoring.run_scoring``).

The engine loads models from directories, so each adapter is merged into a
copy of the base model and saved under ``<run>/merged/<model>/`` only while
that model is scored; the directory is deleted afterwards (weights are never
kept, let alone committed). The engine's own score cache
(``<run>/score-cache/``, keyed by the merged model's content) makes an
interrupted model resume; each finished model's long scores are the stage's
output, ``<run>/scores/<model>.parquet``.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import time
from pathlib import Path

import pandas as pd

from jecs_core.io import ALL_SCORES_COLUMNS

from .common import device, say


def _score_one(config, run_dir: Path, name: str, base, tokenizer, texts, settings, scores, progress: bool):
    from jecs_core.cli.progress import tqdm_bar
    from scoring import run_scoring

    from .finetune import load_merged

    out_dir = run_dir / "scores"
    merged_dir = run_dir / "merged" / name
    started = time.time()
    model = load_merged(base, run_dir / "adapters" / name)
    model.save_pretrained(merged_dir)
    tokenizer.save_pretrained(merged_dir)
    del model
    say(f"scoring {name}")
    # A build writes to a log as often as to a terminal: its bar is drawn either way, at most every 5 s.
    with tqdm_bar(desc=name, unit="text", mininterval=5, leave=True) if progress else contextlib.nullcontext() as bar:
        result = run_scoring(texts, {name: merged_dir}, score="minkpp", settings=settings, device=device(),
                             cache_dir=run_dir / "score-cache", progress=bar)
    long = result.long[result.long["score_name"].isin(scores)][list(ALL_SCORES_COLUMNS)]
    tmp = out_dir / f".{name}.parquet.tmp"
    long.to_parquet(tmp, index=False)
    report = result.report.models[0]
    (out_dir / f"{name}.json").write_text(json.dumps({
        "device": report.device, "dtype": report.dtype, "max_length": report.max_length,
        "n_texts": report.n_texts, "n_truncated": report.n_truncated, "n_tokens": report.n_tokens,
        "nan_item_ids": list(map(str, report.nan_item_ids)), "seconds": round(time.time() - started, 1),
        "settings": settings.as_dict(), "scores": list(scores),
    }, indent=2))
    tmp.replace(out_dir / f"{name}.parquet")  # last: marks the model done
    shutil.rmtree(merged_dir, ignore_errors=True)
    say(f"{name} scored in {time.time() - started:.0f} s")


def score_adapters(config, run_dir: Path, plan: pd.DataFrame, *, scores, progress: bool = True) -> pd.DataFrame:
    """The scores ``scores`` of every pool text under every model (long table, cached per model).

    Parameters
    ----------
    config : jecs_build.pipeline.BuildConfig
        Resolved config (``base_model`` is a path); ``lora.max_tokens`` is
        used as the scoring ``max_length``, so texts are scored on the same
        tokens the models were trained on.
    run_dir : Path
        The build's cache directory (holds ``adapters/``).
    plan : pandas.DataFrame
        ``item_id, split, text, ...``.
    scores : tuple of str
        Registered score names to keep.

    Returns
    -------
    pandas.DataFrame
        ``item_id, model, score_name, value`` for every model, in model order.
    """
    from scoring import ScoreSettings

    from .finetune import load_base

    (run_dir / "scores").mkdir(parents=True, exist_ok=True)
    shutil.rmtree(run_dir / "merged", ignore_errors=True)  # left by an interrupted run
    settings = ScoreSettings(max_length=config.lora.max_tokens)
    texts = plan[["item_id", "split", "text"]]
    base = tokenizer = None
    frames = []
    for name in config.model_names():
        cached = run_dir / "scores" / f"{name}.parquet"
        if not cached.is_file():
            if base is None:
                base, tokenizer = load_base(config.base_model, device="cpu", allow_pickle=config.allow_pickle)
            _score_one(config, run_dir, name, base, tokenizer, texts, settings, scores, progress)
        frames.append(pd.read_parquet(cached))
    shutil.rmtree(run_dir / "merged", ignore_errors=True)
    return pd.concat(frames, ignore_index=True)


def scoring_reports(config, run_dir: Path) -> dict:
    """The per-model scoring reports written by :func:`score_adapters`."""
    return {n: json.loads((run_dir / "scores" / f"{n}.json").read_text()) for n in config.model_names()}
