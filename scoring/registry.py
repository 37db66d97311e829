"""The detection-score registry: one entry per score, read by the kernel, the cache, the CLI and the docs.

Each :class:`ScoreSpec` names the per-token statistics it needs (a subset of
:data:`STATISTICS`, computed on the device by
:func:`scoring.token_scores.token_statistics`) and a *reducer* that turns one
text's statistics (float64 arrays, one value per scored token) into the text's
score. The fused kernel computes the union of the statistics the active scores
need in one pass over the vocabulary, so adding a score is one entry here plus
its tests: nothing else branches on score names.

Every score is oriented so that larger means more member-like
(the paper's convention, section "Preliminary"; formulas in scoring/README.md).

This module imports neither torch nor pandas.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

#: Per-token statistics the kernel can compute, in its row order:
#: ``logprob`` = log p_y; ``minkpp_z`` = (log p_y - mu) / sigma over the
#: vocabulary; ``mentr`` = the token's (un-negated) Modified Entropy.
STATISTICS: tuple[str, ...] = ("logprob", "minkpp_z", "mentr")

#: Bump when a change to the kernel or a reducer changes cached values; it is
#: part of every cache key, so old entries are orphaned, never misread.
SCORE_CODE_VERSION = 3


@dataclass(frozen=True)
class ReduceContext:
    """What a reducer may read besides the token statistics.

    Attributes
    ----------
    settings : scoring.settings.ScoreSettings
    text : str
        The text as given (before tokenisation or truncation).
    reference_loss : float
        The text's mean negative log-likelihood under the reference model;
        NaN when no reference model is given.
    """

    settings: object
    text: str = ""
    reference_loss: float = math.nan


Reducer = Callable[[Mapping[str, np.ndarray], ReduceContext], float]


@dataclass(frozen=True)
class ScoreSpec:
    """One detection score.

    Attributes
    ----------
    name : str
        Column/CLI name.
    label : str
        Human-readable label (dashboard, docs).
    statistics : tuple of str
        Per-token statistics the reducer reads (subset of :data:`STATISTICS`).
    reducer : callable
        ``reducer(stats, context) -> float`` on one text with at least one
        scored token; ``stats[name]`` is a float64 array.
    parameters : tuple of str
        :class:`~scoring.settings.ScoreSettings` fields the score reads.
    needs_reference : bool
        Whether the score needs a reference model (``reference_loss``); such a
        score is computed only when a reference model is given.
    citation : str
        Where the score comes from.
    """

    name: str
    label: str
    statistics: tuple[str, ...]
    reducer: Reducer
    parameters: tuple[str, ...] = ()
    needs_reference: bool = False
    citation: str = ""

    def __post_init__(self) -> None:
        unknown = [s for s in self.statistics if s not in STATISTICS]
        if unknown:
            raise ValueError(f"score {self.name!r}: unknown statistics {unknown}; known: {', '.join(STATISTICS)}")


def n_lowest(n_tokens: int, k: float) -> int:
    """How many of ``n_tokens`` values Min-K% averages: ``max(1, floor(k n))``."""
    return max(1, int(math.floor(k * n_tokens)))


def mean_lowest(values: np.ndarray, k: float) -> float:
    """Mean of the ``n_lowest(len(values), k)`` smallest values."""
    m = n_lowest(values.size, k)
    return float(np.partition(values, m - 1)[:m].mean()) if m < values.size else float(values.mean())


def zlib_bytes(text: str) -> int:
    """Length in bytes of the zlib-compressed UTF-8 text (Carlini et al. 2021's zlib entropy)."""
    return len(zlib.compress(text.encode("utf-8")))


def _refratio(stats: Mapping[str, np.ndarray], ctx: ReduceContext) -> float:
    ref = ctx.reference_loss
    if not math.isfinite(ref) or ref == 0.0:
        return math.nan
    # loss_target / loss_ref = (-mean lp) / ref; negated so larger = member.
    return float(stats["logprob"].mean()) / ref


_ENTRIES = (
    ScoreSpec(
        "ppl", "Perplexity (-log PPL = mean token log-prob)", ("logprob",),
        lambda s, c: float(s["logprob"].mean()),
        citation="Yeom et al. 2018 (loss attack)",
    ),
    ScoreSpec(
        "mink", "Min-K% (mean of the lowest k% token log-probs)", ("logprob",),
        lambda s, c: mean_lowest(s["logprob"], c.settings.k_mink),
        parameters=("k_mink",), citation="Shi et al. 2024, Min-K% Prob",
    ),
    ScoreSpec(
        "minkpp", "Min-K%++ (mean of the lowest k% normalised log-probs)", ("minkpp_z",),
        lambda s, c: mean_lowest(s["minkpp_z"], c.settings.k_minkpp),
        parameters=("k_minkpp",), citation="Zhang et al. 2025, Min-K%++",
    ),
    ScoreSpec(
        "mentr", "Modified Entropy (negated)", ("mentr",),
        lambda s, c: -float(s["mentr"].mean()),
        citation="Song & Mittal 2021 (token-wise, as in the Min-K%++ baselines)",
    ),
    ScoreSpec(
        "zlib", "zlib-normalised loss (-log PPL / zlib bytes)", ("logprob",),
        lambda s, c: float(s["logprob"].mean()) / zlib_bytes(c.text),
        citation="Carlini et al. 2021, Extracting training data from large language models (zlib ratio)",
    ),
    ScoreSpec(
        "refratio", "Reference-model ratio (-loss / reference loss)", ("logprob",), _refratio,
        needs_reference=True,
        citation="Carlini et al. 2021 (comparison with a second model); MIMIR / Min-K%++ 'Ref' baseline",
    ),
)

#: Every registered score by name, in column order.
REGISTRY: dict[str, ScoreSpec] = {spec.name: spec for spec in _ENTRIES}


def active_scores(*, reference: bool) -> tuple[str, ...]:
    """Names of the scores a run computes: all, less those needing a reference when there is none."""
    return tuple(n for n, s in REGISTRY.items() if reference or not s.needs_reference)


def needed_statistics(names) -> tuple[str, ...]:
    """The union of the statistics ``names`` need, in kernel order."""
    wanted = {s for n in names for s in REGISTRY[n].statistics}
    return tuple(s for s in STATISTICS if s in wanted)


def reduce_text(stats: np.ndarray, rows: tuple[str, ...], names, context: ReduceContext) -> np.ndarray:
    """Scores ``names`` of one text from its statistics ``stats`` (rows named by ``rows``, float64)."""
    if stats.shape[1] == 0:
        return np.full(len(names), np.nan)
    stats = stats.astype(np.float64, copy=False)
    by_name = {r: stats[i] for i, r in enumerate(rows)}
    return np.array([REGISTRY[n].reducer(by_name, context) for n in names], dtype=np.float64)


def registry_versions() -> dict:
    """What the cache key records about the scores: code version and each score's parameters."""
    return {"code": SCORE_CODE_VERSION, "scores": {n: list(s.parameters) for n, s in REGISTRY.items()}}
