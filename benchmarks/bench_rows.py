"""Per-item reductions across model columns, and the default rule on a C-ordered p-value matrix.

Part 1 times ``jecs_core._rows.row_max`` / ``row_any`` against numpy's ``max(axis=1)`` /
``any(axis=1)`` on C-ordered matrices (float64 p-values, int8 member labels) of n rows and K
columns, interleaved round by round. Part 2 times the default rule incl. p-values the way a user
who built the p-value matrix row by row meets it: ``select(P, alpha)`` on the same p-values in C
order and in Fortran order (the order ``conformal_pvalues`` returns), and prints the ratio.

    python benchmarks/bench_rows.py [--n 1000000] [--rounds 5] [--default-rule-only]
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

from jecs_core import conformal_pvalues, select  # noqa: E402


def best_of(fn, repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def reductions(n: int, rounds: int) -> None:
    from jecs_core._rows import row_any, row_max

    print(f"{'K':>3}{'numpy max ms':>14}{'row_max ms':>12}{'ratio':>8}{'numpy any ms':>14}{'row_any ms':>12}{'ratio':>8}")
    rng = np.random.default_rng(0)
    for k in (1, 2, 4, 8, 16, 32):
        p = rng.random((n, k))
        labels = (p < 0.1).astype(np.int8)
        assert np.array_equal(row_max(p), p.max(axis=1)) and np.array_equal(row_any(labels), labels.any(axis=1))
        ratios_max, ratios_any, walls = [], [], {"a": [], "b": [], "c": [], "d": []}
        for _ in range(rounds):
            a, b = best_of(lambda p=p: p.max(axis=1)), best_of(lambda p=p: row_max(p))
            c, d = best_of(lambda x=labels: x.any(axis=1)), best_of(lambda x=labels: row_any(x))
            for key, value in zip("abcd", (a, b, c, d)):
                walls[key].append(value)
            ratios_max.append(b / a)
            ratios_any.append(d / c)
        med = {key: statistics.median(v) * 1e3 for key, v in walls.items()}
        print(f"{k:>3}{med['a']:>14.2f}{med['b']:>12.2f}{statistics.median(ratios_max):>8.2f}"
              f"{med['c']:>14.2f}{med['d']:>12.2f}{statistics.median(ratios_any):>8.2f}")


def default_rule(n: int, rounds: int) -> None:
    rng = np.random.default_rng(1)
    for k, m in ((2, 1000), (4, 1000), (16, 100_000)):
        members = rng.random((n, k)) < 0.1
        test = 4.0 * members + rng.standard_normal((n, k))
        fortran = conformal_pvalues(test, 4.0 + rng.standard_normal((m, k)))
        c_order = np.ascontiguousarray(fortran)
        assert np.array_equal(select(c_order, alpha=0.1).selected, select(fortran, alpha=0.1).selected)
        ratios, walls_c, walls_f = [], [], []
        for _ in range(rounds):
            wc, wf = best_of(lambda p=c_order: select(p, alpha=0.1)), best_of(lambda p=fortran: select(p, alpha=0.1))
            walls_c.append(wc)
            walls_f.append(wf)
            ratios.append(wc / wf)
        print(f"K = {k:>2}, m = {m:>7,}: select on C order {statistics.median(walls_c) * 1e3:7.1f} ms, "
              f"on Fortran order {statistics.median(walls_f) * 1e3:7.1f} ms, C / Fortran {statistics.median(ratios):.2f}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--default-rule-only", action="store_true",
                        help="part 2 only (it runs on a checkout without jecs_core._rows too, for a before/after)")
    args = parser.parse_args(argv)
    load = os.getloadavg()[0]
    print(f"n = {args.n:,}, C-ordered matrices, {args.rounds} interleaved rounds (best of 3 each, median of rounds)")
    if not args.default_rule_only:
        reductions(args.n, args.rounds)
    print("default rule from p-values (max-p, its sort, the step-up):")
    default_rule(args.n, args.rounds)
    print(f"load average (1 min): {load:.2f} before, {os.getloadavg()[0]:.2f} after")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
