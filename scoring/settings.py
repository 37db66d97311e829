"""Score names and the settings that change a score's value.

This module imports neither torch nor pandas, so the CLI and the dashboard can
read the score names and validate settings before the heavy stack is loaded.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from jecs_core.validation import check_fraction, check_positive_int

from .registry import REGISTRY

#: Every registered detection score (:mod:`scoring.registry`), in column order.
#: Each is oriented so that larger means more member-like (scoring/README.md).
SCORE_NAMES: tuple[str, ...] = tuple(REGISTRY)

#: The score written to the wide table unless another is asked for.
DEFAULT_SCORE = "minkpp"

#: Human-readable labels, e.g. for the dashboard's select box (from the registry).
SCORE_LABELS: dict[str, str] = {name: spec.label for name, spec in REGISTRY.items()}

#: How texts longer than ``max_length`` tokens are handled.
LONG_TEXT_MODES: tuple[str, ...] = ("truncate", "window")

DEFAULT_K = 0.2
DEFAULT_MAX_LENGTH = 1024
DEFAULT_TOKEN_BUDGET = 4096

#: Distinct texts per unit of work (cache part, Ray input shard).
SHARD_SIZE = 512

#: Default score cache, relative to the working directory (git-ignored).
DEFAULT_CACHE_DIR = Path(".jecs_cache") / "scores"

#: Accepted weight dtype names; ``"auto"`` is bf16 on GPUs that support it, else float32.
DTYPE_CHOICES: tuple[str, ...] = ("auto", "float32", "bfloat16", "float16")


def check_score_name(score: str, name: str = "score") -> str:
    """Return ``score`` if it is one of :data:`SCORE_NAMES`, else raise ``ValueError``."""
    if score not in SCORE_NAMES:
        raise ValueError(f"{name} must be one of {', '.join(SCORE_NAMES)}; got {score!r}")
    return score


def _check_int(value, name: str, minimum: int) -> int:
    return check_positive_int(value, name, minimum=minimum)


@dataclass(frozen=True)
class ScoreSettings:
    """Everything that changes the value of a score (and so keys the cache).

    Parameters
    ----------
    k_mink : float
        Fraction of the lowest token log-probs averaged by Min-K%; in (0, 1].
    k_minkpp : float
        Fraction of the lowest normalised log-probs averaged by Min-K%++; in (0, 1].
    max_length : int
        Texts are truncated on the right to this many tokens (BOS included)
        before scoring. The engine lowers it to the model's
        ``max_position_embeddings`` when that is smaller; the report gives the
        value used and how many texts were cut.
    prepend_bos : bool
        Put the tokenizer's BOS token in front of every text that does not
        already start with it, so that the first text token is scored too.
        Off by default: a tokenizer that adds BOS itself already scores every
        text token, and one that does not (GPT-2) was trained without it.
    long_texts : {"truncate", "window"}
        ``"truncate"`` cuts a longer text to ``max_length`` tokens;
        ``"window"`` scores every token in sliding windows of ``max_length``
        tokens that advance by ``stride``: the first window scores all its
        tokens, each later one only the tokens past the previous window, with
        at least ``max_length - stride`` tokens of context before them.
    stride : int or None
        Window step for ``long_texts="window"`` (default ``max_length // 2``);
        must be in [1, max_length - 1].
    """

    k_mink: float = DEFAULT_K
    k_minkpp: float = DEFAULT_K
    max_length: int = DEFAULT_MAX_LENGTH
    prepend_bos: bool = False
    long_texts: str = "truncate"
    stride: int | None = None

    def __post_init__(self) -> None:
        for name in ("k_mink", "k_minkpp"):
            object.__setattr__(self, name, check_fraction(getattr(self, name), name, include_zero=False))
        # Two tokens are the least that yields one scored token.
        object.__setattr__(self, "max_length", _check_int(self.max_length, "max_length", 2))
        if not isinstance(self.prepend_bos, bool):
            raise ValueError(f"prepend_bos must be True or False, got {self.prepend_bos!r}")
        if self.long_texts not in LONG_TEXT_MODES:
            raise ValueError(f"long_texts must be one of {', '.join(LONG_TEXT_MODES)}, got {self.long_texts!r}")
        if self.stride is not None:
            stride = _check_int(self.stride, "stride", 1)
            if stride >= self.max_length:
                raise ValueError(f"stride must be below max_length ({self.max_length}), got {stride}")
            object.__setattr__(self, "stride", stride)

    def window_stride(self, window: int) -> int:
        """The step between windows of ``window`` tokens (the setting, or half a window)."""
        stride = self.stride if self.stride is not None else window // 2
        return max(1, min(stride, window - 1))

    def as_dict(self) -> dict:
        """The settings as a plain dict (for the cache key and reports)."""
        return asdict(self)


def check_token_budget(token_budget) -> int:
    """Return the token budget as an int, or raise ``ValueError``."""
    return _check_int(token_budget, "token_budget", 1)


def check_head_memory(head_memory_mib) -> int | None:
    """Return the LM head's memory budget in MiB as an int (``None``: the device's default,
    :func:`scoring.head.memory_budget_for`), or raise ``ValueError``."""
    return None if head_memory_mib is None else _check_int(head_memory_mib, "head_memory_mib", 1)
