"""Time the post-hoc bound: a rule's whole alpha path, one hand-edited set, against the rule's own costs.

For each n (default 10,000 and 1,000,000; K = 16; m = n / 10 calibration rows) this prints the median
wall time of: the post-hoc fit with the calibration size (max-p, sort, Hommel's h, the urn, the top-set
tables) and without it, the one-off urn simulation, the bounds of the
selections along the alpha path (the selections given), the whole ``post_hoc_path`` (rule fit,
every alpha's selection, fit and bounds), one hand-edited set's bound, and, as the baseline measured
in the same process, the rule's own alpha-free fit and one alpha step; then the ratios.  The load
average is printed before and after: the machine is shared.

Run:  python benchmarks/bench_posthoc.py [--n 10000 1000000] [--k 16] [--alphas 50] [--method storey-maxp]
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

from jecs_core import conformal_pvalues, fit_post_hoc, post_hoc_path  # noqa: E402
from jecs_core.posthoc.urn import urn_template  # noqa: E402
from jecs_core.rules import get_rule  # noqa: E402


def median_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench(n: int, k: int, alphas: np.ndarray, method: str, repeats: int) -> None:
    rng = np.random.default_rng(0)
    members = rng.random((n, k)) < 0.02
    test = 4.0 * members + rng.standard_normal((n, k))
    cal = 4.0 + rng.standard_normal((max(n // 10, 50), k))
    p = conformal_pvalues(test, cal)
    rule = get_rule(method)
    prepared = rule.prepare(p)
    masks = [prepared.select(float(a)).selected for a in alphas]
    m = cal.shape[0]
    fit = fit_post_hoc(p, delta=0.1, calibration_size=m)
    hand = masks[len(masks) // 5].copy()
    hand[rng.choice(n, size=max(1, n // 100), replace=False)] ^= True  # an auditor ticks items in and out

    start = time.perf_counter()
    urn_template(n, m, 0.05 + 1e-9)  # a delta not cached yet: the one-off simulation per (n, m, delta)
    urn_once = time.perf_counter() - start
    t = {
        "post-hoc fit (max-p, sort, h, top-set tables; urn cached)":
            median_time(lambda: fit_post_hoc(p, delta=0.1, calibration_size=m), repeats),
        "post-hoc fit, closed testing alone (no calibration size)": median_time(lambda: fit_post_hoc(p, delta=0.1), repeats),
        f"bounds of the {len(alphas)} path selections (selections given)":
            median_time(lambda: [fit.bound(mask) for mask in masks], repeats),
        f"post_hoc_path, {len(alphas)} alphas (rule fit + selections + fit + bounds)":
            median_time(lambda: post_hoc_path(p, alphas, method=method, delta=0.1, calibration_size=m), repeats),
        "one hand-edited set's bound": median_time(lambda: fit.bound(hand), repeats),
        f"baseline: {method} alpha-free fit": median_time(lambda: rule.prepare(p), repeats),
        f"baseline: one {method} alpha step": median_time(lambda: prepared.select(0.1), max(repeats, 20)),
    }
    print(f"\nn = {n:,}, K = {k}, m = {cal.shape[0]:,}, {len(alphas)} alphas in [{alphas[0]}, {alphas[-1]}], "
          f"h = {fit.h:,}, median of {repeats} runs")
    t["urn simulation, once per (n, m, delta), then cached"] = urn_once
    for name, seconds in t.items():
        print(f"  {name:<70}{1000 * seconds:>10.2f} ms")
    fit_time, step = t[f"baseline: {method} alpha-free fit"], t[f"baseline: one {method} alpha step"]
    bounds = t[f"bounds of the {len(alphas)} path selections (selections given)"]
    path = t[f"post_hoc_path, {len(alphas)} alphas (rule fit + selections + fit + bounds)"]
    post_fit = t["post-hoc fit (max-p, sort, h, top-set tables; urn cached)"]
    print(f"  ratio: post-hoc fit + path bounds / rule fit          {(post_fit + bounds) / fit_time:8.2f}x")
    print(f"  ratio: path bounds per alpha / one alpha step           {bounds / len(alphas) / step:8.2f}x")
    print(f"  ratio: one hand-edited bound / one alpha step           {t['one hand-edited set' + chr(39) + 's bound'] / step:8.2f}x")
    print(f"  ratio: whole post_hoc_path / (rule fit + {len(alphas)} alpha steps) {path / (fit_time + len(alphas) * step):8.2f}x")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[10_000, 1_000_000])
    parser.add_argument("--k", type=int, default=16)
    parser.add_argument("--alphas", type=int, default=50, help="alphas on the path, evenly spaced in [0.01, 0.5]")
    parser.add_argument("--method", default="storey-maxp")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    alphas = np.round(np.linspace(0.01, 0.5, args.alphas), 4)
    print(f"{os.cpu_count()} CPU(s); load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for n in args.n:
        bench(n, args.k, alphas, args.method, args.repeats if n <= 100_000 else max(3, args.repeats // 2))
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
