"""Detection scores for K local causal LMs: the score table that JECS selects from.

An optional extra (torch + transformers). ``jecs_core`` never imports it, and
importing this package does not import torch, pandas or transformers: the
public names below are loaded on first use, so the dashboard can import
``scoring`` at start-up for free.

Public API
----------
run_scoring(texts, models, score="minkpp", ..., engine="local"|"ray") -> ScoringOutput
    Wide table (``score_<model>`` for one score) + long table (every computed score) + report.
all_scores(texts, models, ...) -> DataFrame
    The long table ``item_id, model, score_name, value`` alone.
read_texts(path) / read_texts_bytes(data, name) / validate_texts(frame)
    The texts table ``item_id, split, text[, member_<model>]``.
ScoreSettings
    k ratios, ``max_length``, ``prepend_bos``, ``long_texts`` / ``stride``.
SCORE_NAMES / SCORE_LABELS / REGISTRY
    The registered detection scores (:mod:`scoring.registry`).
load_model / score_texts
    Lower level: one model, a list of texts, an (n, scores) array; loader
    failures raise :class:`ModelLoadError` (a ``ValueError``, one line).

See ``scoring/README.md`` for the scores, the NaN policy and the cache.
"""

from __future__ import annotations

from importlib import import_module

from .settings import DEFAULT_SCORE, SCORE_LABELS, SCORE_NAMES, ScoreSettings

_LAZY = {
    "run_scoring": "runner",
    "all_scores": "runner",
    "ScoringOutput": "results",
    "ScoringReport": "results",
    "ModelReport": "results",
    "read_texts": "texts",
    "read_texts_bytes": "texts",
    "validate_texts": "texts",
    "load_model": "loading",
    "LoadedModel": "loading",
    "score_texts": "engine",
    "TextScores": "engine",
    "model_source": "sources",
    "ModelSource": "sources",
    "ModelLoadError": "sources",
    "REGISTRY": "registry",
}

__all__ = ["DEFAULT_SCORE", "SCORE_LABELS", "SCORE_NAMES", "ScoreSettings", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
