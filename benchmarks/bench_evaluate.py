"""Benchmark: the paper's evaluation protocol at its real size, vectorised vs a plain loop.

Size of the paper's real audits (WikiMIA through the three-block split): 553
test and 236 calibration items, K = 16 models, 500 repetitions drawing 80% of
each set, alpha in {0.1, ..., 0.5}, all four methods.

Run::

    python benchmarks/bench_evaluate.py [--reps 500] [--naive-reps 500] [--workers N] [--repeats 3]

It prints the evaluator's wall time (best of a few runs, with one worker and
with every core), the naive loop's, their ratio, and checks that both give the
same numbers.  :func:`naive_protocol` is also the
reference the exactness test compares against.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jecs_core import (  # noqa: E402
    conformal_pvalues,
    fit_jecs,
    gcp,
    intersection_selection,
    jmcs,
    power,
    table_from_frame,
    union_selection,
)
from jecs_core.evaluate import draw_subsamples, evaluate  # noqa: E402

METHODS = ("jecs", "jmcs", "union", "intersection")
ALPHAS = (0.1, 0.2, 0.3, 0.4, 0.5)


def naive_protocol(table, draws, *, alphas, lam="auto", knn=None):
    """The protocol as a plain per-repetition loop over the public jecs_core functions.

    Parameters
    ----------
    table : ScoreTable
        Labelled score table.
    draws : jecs_core.evaluate.Draws
        Calibration and test rows of each repetition.
    alphas : sequence of float
    lam, knn
        JECS options.

    Returns
    -------
    gcp, power, n_selected : numpy.ndarray, shape (4, A, R)
        In the order jecs, jmcs, union, intersection.
    """
    contaminated = table.contaminated
    shape = (len(METHODS), len(alphas), draws.reps)
    out_gcp, out_power, out_n = np.empty(shape), np.empty(shape), np.empty(shape, dtype=np.int64)
    for r in range(draws.reps):
        cal_rows, test_rows = draws.calibration[r], draws.test[r]
        p = conformal_pvalues(table.test[test_rows], table.calibration[cal_rows])
        con = contaminated[test_rows]
        fit = fit_jecs(p.max(axis=1), lam=lam, knn=knn, warn=False)
        for a, alpha in enumerate(alphas):
            selections = (
                fit.select(alpha).selected,
                jmcs(p, alpha=alpha).selected,
                union_selection(p, alpha=alpha).selected,
                intersection_selection(p, alpha=alpha).selected,
            )
            for s, chosen in enumerate(selections):
                out_gcp[s, a, r] = gcp(chosen, con)
                out_power[s, a, r] = power(chosen, con)
                out_n[s, a, r] = chosen.sum()
    return out_gcp, out_power, out_n


def paper_size_table(seed: int = 0):
    """A synthetic audit with the paper's real-data dimensions (789-item pool, K = 16)."""
    from jecs_core.simulate.scenarios import three_block

    return table_from_frame(three_block(np.random.default_rng(seed), pool_size=789, n_models=16, mu=4.0))


def best_time(fn, repeats: int) -> float:
    """Best wall time of ``repeats`` calls (the least disturbed by other load on the machine)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=500)
    parser.add_argument("--naive-reps", type=int, default=500, help="repetitions of the naive loop (fewer = quicker)")
    parser.add_argument("--workers", type=int, default=None, help="threads of the evaluator (default: every core)")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of the evaluator; the best is reported")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    table = paper_size_table(args.seed)
    workers = args.workers or os.cpu_count() or 1
    print(f"table: n = {table.n} test, m = {table.m} calibration, K = {table.K}; "
          f"reps = {args.reps}, alphas = {list(ALPHAS)}, methods = {list(METHODS)}; {os.cpu_count()} CPU cores")

    evaluate(table, alphas=ALPHAS, reps=4, seed=args.seed)  # warm-up (imports, caches)
    result = None

    def run(n_workers):
        nonlocal result
        result = evaluate(table, alphas=ALPHAS, reps=args.reps, seed=args.seed, workers=n_workers)

    single = best_time(lambda: run(1), args.repeats)
    fast = best_time(lambda: run(workers), args.repeats)
    print(f"evaluate(), 1 worker:  {single:7.3f} s  (best of {args.repeats})")
    print(f"evaluate(), {workers} workers: {fast:7.3f} s  (best of {args.repeats}; {1e3 * fast / args.reps:.2f} ms per repetition)")

    draws = draw_subsamples(table.m, table.n, reps=args.reps, seed=args.seed)
    naive_draws = draws.chunk(0, min(args.naive_reps, args.reps))
    start = time.perf_counter()
    ref_gcp, ref_power, ref_n = naive_protocol(table, naive_draws, alphas=ALPHAS)
    naive = time.perf_counter() - start
    naive_full = naive * args.reps / naive_draws.reps
    scaled = "" if naive_draws.reps == args.reps else f" (measured on {naive_draws.reps} reps, scaled)"
    print(f"naive loop:            {naive_full:7.3f} s{scaled}")
    print(f"speed-up:              {naive_full / fast:7.1f}x  (vs 1 worker: {naive_full / single:.1f}x)")

    k = naive_draws.reps
    same = (
        np.array_equal(result.gcp[..., :k], ref_gcp)
        and np.array_equal(result.power[..., :k], ref_power)
        and np.array_equal(result.n_selected[..., :k], ref_n)
    )
    print(f"identical per-repetition GCP, power and selection sizes: {same}")
    print(f"target < 3 s: {'met' if fast < 3 else 'MISSED'}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
