"""Benchmark: the Ray engine, cold and warm, against the local engine on the same texts and model.

One random-weight Llama (width 128, 4 layers, vocabulary 8000, word-level
tokenizer; ``scoring.testing``) scores the same texts, each run into a fresh
cache, in interleaved rounds of: the local engine (the baseline, this process);
``engine="ray"`` with one actor *cold* (the kept actors released first, so the
job starts processes, imports torch and transformers and loads the model) and
*warm* (a second job in the same session, served by the actors the cold job
left loaded); the same with two actors; with ``--new-session``, one actor's
first job in a fresh local Ray session (Ray restarted, untimed, just before it:
what a new ``jecs score --engine ray`` run meets). Every actor and the local engine run
``--threads`` torch threads (default 1: on a shared 2-core machine two intra-op
threads made this tiny model 3-4x slower, every op waiting at a barrier for a
descheduled thread). Ray is started once, locally, with 2 CPUs (its start-up is
timed on its own). Prints, per run, the best wall seconds over the rounds,
texts/s, the ratio to the local engine's best time, the largest relative
difference from the local engine's scores and whether they are bit-identical,
how many actor processes served the warm jobs, the time to start one scoring
actor (process, imports, model load) and the load average.

    python benchmarks/bench_ray.py [--texts 2000] [--shard-size 512] [--threads 1] [--rounds 2] [--new-session]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402
from bytecode import compile_packages  # noqa: E402

from scoring import run_scoring  # noqa: E402
from scoring.ray_actors import kept_pools, release_pools  # noqa: E402
from scoring.ray_engine import ensure_ray  # noqa: E402
from scoring.settings import SHARD_SIZE  # noqa: E402
from scoring.testing import build_model, build_tokenizer, random_text  # noqa: E402

VOCAB = 8000


def make_model(directory: Path) -> Path:
    model = build_model("llama", vocab_size=VOCAB, hidden=128, layers=4, max_positions=256, init_range=0.05)
    model.save_pretrained(directory)
    build_tokenizer(VOCAB, add_bos=True).save_pretrained(directory)
    return directory


def make_texts(n: int) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    texts = [random_text(rng, int(w), vocab_size=VOCAB) for w in rng.integers(40, 121, size=n)]
    return pd.DataFrame({"item_id": range(n), "split": ["test"] * n, "text": texts})


def timed(label, fn):
    start = time.perf_counter()
    out = fn()
    return label, time.perf_counter() - start, out


def actor_start(model: Path, threads: int) -> float:
    """Seconds from asking for one scoring actor to its first answer (process, imports, model load)."""
    import ray

    from scoring.ray_actors import ShardScorer
    from scoring.sources import model_source

    start = time.perf_counter()
    actor = ray.remote(ShardScorer).options(num_cpus=2).remote(
        source=model_source(model), device="cpu", dtype="float32", allow_pickle=False, threads=threads)
    ray.get(actor.ready.remote())
    seconds = time.perf_counter() - start
    ray.kill(actor)
    return seconds


def restart_ray() -> None:
    """End this process's Ray session and start a fresh local one (2 CPUs), as a new ``jecs score`` run would."""
    import ray

    release_pools(ray)
    ray.shutdown()
    ensure_ray(address=None, num_cpus=2, object_store_mb=256)


def make_jobs(table, model, common: dict, *, threads: int, new_session: bool) -> dict:
    """The timed runs by label, each a function of a fresh cache directory."""
    jobs = {"local engine": lambda cache: run_scoring(table, model, cache_dir=cache, **common)}
    for workers in (1, 2):
        options = {"workers": workers, "threads_per_worker": threads}

        def ray_job(cache, o=options, cold=False):
            if cold:
                release_pools()
            return run_scoring(table, model, cache_dir=cache, engine="ray", engine_options=o, **common)

        jobs[f"ray, {workers} worker(s), cold"] = lambda cache, j=ray_job: j(cache, cold=True)
        jobs[f"ray, {workers} worker(s), warm"] = ray_job
    if new_session:
        jobs["ray, 1 worker(s), new session"] = lambda cache: run_scoring(
            table, model, cache_dir=cache, engine="ray", engine_options={"workers": 1, "threads_per_worker": threads},
            **common)
    return jobs


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=2000)
    parser.add_argument("--shard-size", type=int, default=SHARD_SIZE)
    parser.add_argument("--threads", type=int, default=1, help="torch threads of the local engine and of each actor")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds; each run keeps its best time")
    parser.add_argument("--new-session", action="store_true",
                        help="also time one worker's first job in a new local Ray session (its start not timed)")
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="bench_ray_"))
    model = {"m": make_model(root / "model")}
    table = make_texts(args.texts)
    common = {"token_budget": 2048, "shard_size": args.shard_size}
    print(f"{args.texts} texts of 40-120 words, shard size {args.shard_size}, random Llama width 128 x 4 layers, "
          f"vocabulary {VOCAB}; {args.threads} torch thread(s) locally and per actor; CPU only; best of {args.rounds}")

    compile_packages(Path(__file__).resolve().parents[1])  # the actors load the project as an installed copy does
    load_before = os.getloadavg()[0]
    torch.set_num_threads(args.threads)
    start = time.perf_counter()
    ensure_ray(address=None, num_cpus=2, object_store_mb=256)
    ray_start = time.perf_counter() - start
    jobs = make_jobs(table, model, common, threads=args.threads, new_session=args.new_session)
    best: dict[str, tuple[float, object]] = {}
    served: dict[str, set] = {}
    for round_ in range(args.rounds):
        walls = []
        for i, (label, job) in enumerate(jobs.items()):
            cache = root / f"cache{round_}-{i}"  # a fresh cache every run
            if label.endswith("new session"):
                restart_ray()  # not timed: the job then starts on the workers Ray starts with a session
            _, wall, out = timed(label, lambda j=job, c=cache: j(c))
            walls.append(f"{label} {wall:.1f} s")
            if label.endswith("warm"):
                served.setdefault(label, set()).update(p.key for p in kept_pools() if p.jobs > 1)
            if label not in best or wall < best[label][0]:
                best[label] = (wall, out)
        print(f"round {round_ + 1}: " + ", ".join(walls), flush=True)
    release_pools()
    one_actor = actor_start(model["m"], args.threads)
    local_wall, local_out = best["local engine"]
    base = local_out.long["value"].to_numpy()
    print(f"Ray start-up (local, 2 CPUs): {ray_start:.1f} s (not in the rows below; every job reuses the session)")
    print(f"{'run':<28}{'wall s':>8}{'texts/s':>9}{'run/local':>11}{'max rel diff':>14}{'identical':>11}")
    for label, (wall, out) in best.items():
        values = out.long["value"].to_numpy()
        diff = np.nanmax(np.abs(values - base) / np.maximum(np.abs(base), 1e-12))
        same = np.array_equal(values, base, equal_nan=True)
        print(f"{label:<28}{wall:>8.1f}{args.texts / wall:>9.1f}{wall / local_wall:>11.2f}{diff:>14.1e}{same!s:>11}")
    reused = all(served.get(label) for label in jobs if label.endswith("warm"))
    print(f"warm jobs served by the cold job's kept actors: {reused}")
    print(f"one scoring actor, asked for to first answer (process, imports, model load): {one_actor:.1f} s")
    print(f"load average (1 min): {load_before:.2f} before, {os.getloadavg()[0]:.2f} after")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
