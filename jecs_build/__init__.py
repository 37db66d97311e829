"""The real-audit builder: K LoRA fine-tunes with controlled contamination, scored by ``scoring``.

Corpus -> pool -> the paper's three-block split (``jecs_core.simulate``) ->
K LoRA fine-tunes -> every text scored under every model by the scoring
engine (its model loading, batching, cache and progress) -> a labelled wide
table, the long table of scores and a provenance JSON; optionally per-model
exposures (:mod:`jecs_build.exposure`) and each model's per-item task result
(:mod:`jecs_build.task_results`). Run it with
``jecs build-sample`` or ``python -m jecs_build``; see :mod:`jecs_build.pipeline`.

Layering: this package may import ``scoring`` and ``jecs_core``; neither
imports it. Importing it loads neither torch nor transformers.
"""

from __future__ import annotations

from importlib import import_module

_LAZY = {"BuildConfig": "pipeline", "build": "pipeline", "STAGES": "pipeline", "LoraSettings": "finetune"}

__all__ = list(_LAZY)


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
