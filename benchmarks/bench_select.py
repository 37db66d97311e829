"""Time the selection core at scale against the plain numpy floor.

n = 1,000,000 test items, m = 100,000 calibration items, K = 16, float64, on a
strong-signal table (members shifted by ``--signal`` = 4 standard deviations) where
the default rule selects about 56,000 items; ``--signal 2`` gives a table where
every rule selects nothing, which hides the cost of the selection itself.
``--decimals 1`` rounds every score to one decimal (heavy ties: about 85 distinct
calibration values a column, and tied p-values), as scores printed to a few digits are.
``--dtype float32`` passes float32 scores, as a model's scores often come; the floor then sorts
and searches float32 too.

The floor is what any conformal p-value code must do at least: sort each
calibration column and ``searchsorted`` each test column into it, on one thread.
Every stage runs interleaved with the floor, round by round, and the printed
ratio is the median of the per-round ratios (wall time), so a busy shared
machine slows both sides alike; CPU seconds are printed beside it.

Run:  python benchmarks/bench_select.py [--n 1000000] [--m 100000] [--k 16] [--rounds 5] [--decimals D] [--dtype float32]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jecs_core import conformal_pvalues, intersection_selection, jmcs, select, union_selection  # noqa: E402


def numpy_floor(test: np.ndarray, cal: np.ndarray) -> None:
    """Sort the calibration columns, search the test columns: one thread, no output matrix."""
    reference = np.sort(cal, axis=0)
    for k in range(test.shape[1]):
        np.searchsorted(reference[:, k], test[:, k], side="right")


def strong_signal_table(n: int, m: int, k: int, signal: float, seed: int = 0, decimals: int | None = None):
    rng = np.random.default_rng(seed)
    members = rng.random((n, k)) < 0.1
    test = signal * members + rng.standard_normal((n, k))
    cal = signal + rng.standard_normal((m, k))
    if decimals is not None:
        return np.round(test, decimals), np.round(cal, decimals)
    return test, cal


def timed(fn) -> tuple[float, float]:
    start, start_cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - start, time.process_time() - start_cpu


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--m", type=int, default=100_000)
    parser.add_argument("--k", type=int, default=16)
    parser.add_argument("--signal", type=float, default=4.0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--alpha", type=float, default=0.1)
    parser.add_argument("--decimals", type=int, default=None, help="round every score to this many decimals (ties)")
    parser.add_argument("--dtype", choices=("float64", "float32"), default="float64")
    args = parser.parse_args(argv)

    test, cal = strong_signal_table(args.n, args.m, args.k, args.signal, decimals=args.decimals)
    test, cal = test.astype(args.dtype), cal.astype(args.dtype)
    alpha = args.alpha
    p = conformal_pvalues(test, cal)
    counts = {name: int(fn().n_selected) for name, fn in {
        "default rule": lambda: select(p, alpha=alpha),
        "JMCS": lambda: jmcs(p, alpha=alpha),
        "union": lambda: union_selection(p, alpha=alpha),
        "intersection": lambda: intersection_selection(p, alpha=alpha),
    }.items()}
    print(f"n = {args.n:,} test, m = {args.m:,} calibration, K = {args.k}, signal = {args.signal}, "
          f"scores rounded to {'-' if args.decimals is None else args.decimals} decimals, {args.dtype}, alpha = {alpha}, "
          f"{os.cpu_count()} CPU(s), {args.rounds} interleaved rounds")
    print("selected: " + ", ".join(f"{name} {count:,}" for name, count in counts.items()))

    stages = {
        "default rule incl. p-values": lambda: select(conformal_pvalues(test, cal), alpha=alpha),
        "conformal p-values (n x K)": lambda: conformal_pvalues(test, cal),
        "default rule from p-values": lambda: select(p, alpha=alpha),
        "JMCS from p-values": lambda: jmcs(p, alpha=alpha),
        "union from p-values": lambda: union_selection(p, alpha=alpha),
        "intersection from p-values": lambda: intersection_selection(p, alpha=alpha),
    }
    floor_wall, floor_cpu = [], []
    wall = {name: [] for name in stages}
    cpu = {name: [] for name in stages}
    ratios = {name: [] for name in stages}
    loads = []
    for _ in range(args.rounds):
        for name, fn in stages.items():
            fw, fc = timed(lambda: numpy_floor(test, cal))
            w, c = timed(fn)
            floor_wall.append(fw)
            floor_cpu.append(fc)
            wall[name].append(w)
            cpu[name].append(c)
            ratios[name].append(w / fw)
        loads.append(os.getloadavg()[0])

    print(f"numpy floor (sort cal, searchsorted test, 1 thread): median {statistics.median(floor_wall):.3f} s wall, "
          f"{statistics.median(floor_cpu):.3f} s CPU")
    print(f"{'stage':<30}{'wall s':>9}{'cpu s':>9}{'x floor':>10}")
    for name in stages:
        print(f"{name:<30}{statistics.median(wall[name]):>9.3f}{statistics.median(cpu[name]):>9.3f}"
              f"{statistics.median(ratios[name]):>10.2f}")
    print(f"load average (1 min) during the rounds: {min(loads):.2f} to {max(loads):.2f}")
    target = statistics.median(ratios["default rule incl. p-values"])
    print(f"target: default rule incl. p-values <= the numpy floor -> {target:.2f}x "
          f"({'met' if target <= 1.0 else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
