"""Which cached build may be reused: the parameters and the contents that made its plan and adapters.

A build caches its plan and each model's adapter under ``<cache>/<name>``; ``config.json`` records what
made them. A later run reuses them only when every parameter and both inputs' contents (the corpus
file's SHA-256, the base model's content fingerprint) are the same: a corpus or base model replaced in
place, under the same path, would otherwise be built on the old plan or merged with the old adapters.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from jecs_core.io import file_sha256

# Parameters that change the plan or the adapters: a cached run with other values is not reused.
IDENTITY_KEYS = ("corpus", "base_model", "n_pool", "min_words", "max_words", "n_models", "a", "b", "rho",
                 "seed", "lora", "model_prefix", "rhos", "pad_training")
# The inputs' contents, beside their paths.
CONTENT_KEYS = ("corpus_sha256", "base_model_fingerprint")
# Identity keys a cache made before they existed lacks; its value was the default. A cache without
# the content keys cannot show what it was made from, so it is not reused.
_IDENTITY_DEFAULTS = {"rhos": [], "pad_training": False}


def base_model_fingerprint(base_model: str | Path) -> str:
    """The base model's content fingerprint, as the score cache keys models (:mod:`scoring.fingerprint`)."""
    from scoring.fingerprint import content_fingerprint
    from scoring.sources import model_source

    return content_fingerprint(model_source(base_model, name="base"))


def identity(config) -> dict:
    """What made a build's plan and adapters: ``config``'s identity parameters and its inputs' contents."""
    chosen = config.to_dict()
    return {**{k: chosen[k] for k in IDENTITY_KEYS}, "corpus_sha256": file_sha256(config.corpus),
            "base_model_fingerprint": base_model_fingerprint(config.base_model)}


def check_cache(run_dir: Path, config, force: bool) -> None:
    """Refuse to mix a cached run made from other parameters or inputs into this one.

    Only a run that got as far as ``plan.csv`` counts: a ``config.json`` left by a stage that failed
    before it is stale and ignored.
    """
    saved = run_dir / "config.json"
    if force and run_dir.exists():
        shutil.rmtree(run_dir)
    if saved.is_file() and (run_dir / "plan.csv").is_file():
        previous, current = json.loads(saved.read_text()), identity(config)
        if any(k not in previous for k in CONTENT_KEYS):
            raise ValueError(f"cache {run_dir} predates the record of its inputs' contents, so it cannot show that "
                             "they are unchanged; pass --force to rebuild it or use another --name / --cache-dir")
        changed = [k for k in (*IDENTITY_KEYS, *CONTENT_KEYS) if previous.get(k, _IDENTITY_DEFAULTS.get(k)) != current[k]]
        if changed:
            words = {"corpus_sha256": "corpus contents", "base_model_fingerprint": "base model contents"}
            raise ValueError(
                f"cache {run_dir} was built with other {', '.join(words.get(k, k) for k in changed)}; pass --force "
                "to discard it or use another --name / --cache-dir"
            )
    run_dir.mkdir(parents=True, exist_ok=True)
