"""The per-chunk statistics under ``torch.compile``, for large jobs on a GPU.

The statistics make about fifteen memory-bound passes over each scored row's vocabulary
(:func:`scoring.token_scores.token_statistics`); ``torch.compile`` fuses them into a few
kernels that hold no vocabulary-sized temporary, so their chunks can be larger
(:func:`scoring.head.budget_elements`). On an H200 the engine with the statistics compiled kept
0.88 of a bare forward's tokens/s on a ~1B model in bf16 (0.53 plain) and 0.88-0.91 on
SmolLM2-135M's shape (0.68-0.77 plain), with scores within 2.1e-6 of the plain kernel's; on a CPU
it gained nothing (benchmarks/RESULTS.md, "GPU throughput / MFU"). The first call compiles, for
10-16 s there, so only a job of at least :data:`COMPILE_FROM_TOKENS` scored tokens on a CUDA
device uses it, where the gain repays the compilation. Should compiling fail (no Triton, an
unsupported device), a warning says so once and the plain kernel goes on.
"""

from __future__ import annotations

import warnings

import torch

#: Scored tokens from which a job on a CUDA device runs its statistics compiled; ``None`` never
#: compiles. On the H200's measured rates compiling repays itself from about 3 million tokens on
#: a ~1B model (88,000 tokens/s plain, 146,000 compiled) and 14 million on SmolLM2-135M's shape
#: (137,000 and 162,000): this is about 45 s of the plain engine's work on the former.
COMPILE_FROM_TOKENS: int | None = 4_000_000

_STATE: dict = {"compiled": None, "failed": False}


def should_compile(device_type: str, scored_tokens: int) -> bool:
    """Whether a job of ``scored_tokens`` on a ``device_type`` device runs its statistics compiled."""
    return device_type == "cuda" and COMPILE_FROM_TOKENS is not None and scored_tokens >= COMPILE_FROM_TOKENS


def chunk_kernel(compiled: bool):
    """The per-chunk statistics function: the plain one, or (``compiled``) the compiled one with the plain as its fallback."""
    from .token_scores import chunk_statistics

    if not compiled or _STATE["failed"]:
        return chunk_statistics
    if _STATE["compiled"] is None:
        _STATE["compiled"] = torch.compile(chunk_statistics, dynamic=True)
    fused = _STATE["compiled"]

    def run(*args):
        if not _STATE["failed"]:
            try:
                return fused(*args)
            except Exception as exc:  # noqa: BLE001 - any compiler failure: score on without it
                _STATE["failed"] = True
                first = (str(exc).strip().splitlines() or [""])[0][:200]
                warnings.warn(f"compiling the scoring statistics failed ({type(exc).__name__}: {first}); "
                              "scoring goes on with the plain kernel", RuntimeWarning, stacklevel=2)
        return chunk_statistics(*args)

    return run
