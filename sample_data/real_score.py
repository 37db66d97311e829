"""Score the pool under every fine-tuned model with the scoring engine (``scoring.run_scoring``).

The engine loads models from directories, so each adapter is merged into a
copy of the base model and saved under ``<run>/merged/<model>/`` only while
that model is scored; the directory is deleted afterwards (weights are never
kept, let alone committed).  Each model's long scores are cached as
``<run>/scores/<model>.parquet``, which is what makes the stage resumable.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pandas as pd

LONG_COLUMNS = ["item_id", "model", "score_name", "value"]


def _tqdm_progress(desc: str, enabled: bool):
    """A ``progress(done, total, message)`` callback for the engine, drawn as a tqdm bar."""
    from tqdm.auto import tqdm

    state = {"bar": None}

    def progress(done: int, total: int, message: str) -> None:
        if not enabled:
            return
        if state["bar"] is None:
            state["bar"] = tqdm(total=total, desc=desc, mininterval=5)
        state["bar"].n = done
        state["bar"].refresh()
        if done >= total:
            state["bar"].close()

    return progress


def score_adapters(config, run_dir: Path, plan: pd.DataFrame, progress: bool = True) -> pd.DataFrame:
    """All four scores of every pool text under every model (long table, cached per model).

    Parameters
    ----------
    config : sample_data.build_real.BuildConfig
        Resolved config (``base_model`` is a path); ``lora.max_tokens`` is
        used as the scoring ``max_length``, so texts are scored on the same
        tokens the models were trained on.
    run_dir : Path
        The build's cache directory (holds ``adapters/``).
    plan : pandas.DataFrame
        ``item_id, split, text, ...``.

    Returns
    -------
    pandas.DataFrame
        ``item_id, model, score_name, value`` for every model, in model order.
    """
    from scoring import ScoreSettings, run_scoring

    from .build_real import _device, _say
    from .real_finetune import load_base, load_merged

    out_dir = run_dir / "scores"
    out_dir.mkdir(parents=True, exist_ok=True)
    settings = ScoreSettings(max_length=config.lora.max_tokens)
    texts = plan[["item_id", "split", "text"]]
    base = tokenizer = None
    frames = []
    for name in config.model_names():
        cached = out_dir / f"{name}.parquet"
        if not cached.is_file():
            if base is None:
                base, tokenizer = load_base(config.base_model, device="cpu")
            merged_dir = run_dir / "merged" / name
            started = time.time()
            model = load_merged(base, run_dir / "adapters" / name)
            model.save_pretrained(merged_dir)
            tokenizer.save_pretrained(merged_dir)
            del model
            _say(f"scoring {name}")
            result = run_scoring(texts, {name: merged_dir}, score="minkpp", settings=settings, device=_device(),
                                 cache_dir=None, progress=_tqdm_progress(name, progress))
            result.long[LONG_COLUMNS].to_parquet(cached, index=False)
            report = result.report.models[0]
            (out_dir / f"{name}.json").write_text(json.dumps({
                "device": report.device, "dtype": report.dtype, "max_length": report.max_length,
                "n_texts": report.n_texts, "n_truncated": report.n_truncated, "n_tokens": report.n_tokens,
                "nan_item_ids": list(map(str, report.nan_item_ids)), "seconds": round(time.time() - started, 1),
                "settings": settings.as_dict(),
            }, indent=2))
            shutil.rmtree(merged_dir, ignore_errors=True)
            _say(f"{name} scored in {time.time() - started:.0f} s")
        frames.append(pd.read_parquet(cached))
    shutil.rmtree(run_dir / "merged", ignore_errors=True)
    return pd.concat(frames, ignore_index=True)


def scoring_reports(config, run_dir: Path) -> dict:
    """The per-model scoring reports written by :func:`score_adapters`."""
    return {n: json.loads((run_dir / "scores" / f"{n}.json").read_text()) for n in config.model_names()}
