"""Benchmark: the paper's evaluation protocol at its real size, vectorised vs a plain loop.

Size of the paper's real audits (WikiMIA through the three-block split): 553
test and 236 calibration items, K = 16 models, 500 repetitions drawing 80% of
each set, alpha in {0.1, ..., 0.5}, all four methods.

Run::

    python benchmarks/bench_evaluate.py [--reps 500] [--naive-reps 500] [--workers N] [--repeats 3]

It prints the evaluator's wall time (best of a few runs, with one worker and
with every core), the generic per-repetition path's (``accelerate=False``, what a
rule without a batched kernel gets), the naive loop's, their ratios, and checks
that all give the same numbers.  :func:`naive_protocol` is also the reference the
exactness test compares against.  Then the label-free diagnostics on the shipped
real audit: ``twin_evaluate`` (200 twins x 3 patterns, every registered rule) and
``audit_diagnostics`` at alpha = 0.1.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jecs_core import METHODS as REGISTERED  # noqa: E402
from jecs_core import (  # noqa: E402
    conformal_pvalues,
    fit_jecs,
    gcp,
    intersection_selection,
    jmcs,
    load_scores,  # noqa: E402
    power,
    table_from_frame,
    union_selection,
)
from jecs_core.diagnostics import audit_diagnostics, twin_evaluate  # noqa: E402
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
    parser.add_argument("--default-only", action="store_true",
                        help="only time the default rule against JMCS on the shipped real audit")
    parser.add_argument("--twin-check", action="store_true",
                        help="only compare the twin's GCR (fitted on one table) with the generator's true GCR")
    args = parser.parse_args(argv)
    if args.twin_check:
        twin_truth_check()
        return 0
    if args.default_only:
        default_rule_against_jmcs(args.seed, args.reps)
        return 0

    table = paper_size_table(args.seed)
    workers = args.workers or os.cpu_count() or 1
    print(f"table: n = {table.n} test, m = {table.m} calibration, K = {table.K}; "
          f"reps = {args.reps}, alphas = {list(ALPHAS)}, methods = {list(METHODS)}; {os.cpu_count()} CPU cores")

    evaluate(table, alphas=ALPHAS, reps=4, seed=args.seed, methods=METHODS)  # warm-up (imports, caches)
    result = None

    def run(n_workers, accelerate=True):
        nonlocal result
        result = evaluate(table, alphas=ALPHAS, reps=args.reps, seed=args.seed, workers=n_workers, methods=METHODS,
                          accelerate=accelerate)

    single = best_time(lambda: run(1), args.repeats)
    fast = best_time(lambda: run(workers), args.repeats)
    generic = best_time(lambda: run(workers, accelerate=False), 1)
    generic_result = result
    run(workers)
    print(f"evaluate(), 1 worker:  {single:7.3f} s  (best of {args.repeats})")
    print(f"evaluate(), {workers} workers: {fast:7.3f} s  (best of {args.repeats}; {1e3 * fast / args.reps:.2f} ms per repetition)")
    print(f"generic path, {workers} workers: {generic:7.3f} s  (accelerate=False; {generic / fast:.1f}x the batched kernels)")

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
    same = all(
        np.array_equal(found.gcp[..., :k], ref_gcp)
        and np.array_equal(found.power[..., :k], ref_power)
        and np.array_equal(found.n_selected[..., :k], ref_n)
        for found in (result, generic_result)
    )
    print(f"identical per-repetition GCP, power and selection sizes (batched, generic, naive): {same}")
    print(f"target < 3 s: {'met' if fast < 3 else 'MISSED'}")
    default_rule_against_jmcs(args.seed, args.reps)
    diagnostics_timings(args.seed)
    return 0 if same else 1


TWIN_CHECK_CONFIGS = (
    {"pool_size": 800, "n_models": 8, "mu": 2.1, "correlation": 0.9},
    {"pool_size": 800, "n_models": 8, "mu": 4.0, "correlation": 0.9},
    {"pool_size": 1200, "n_models": 4, "mu": 4.0, "correlation": 0.0},
    {"pool_size": 3000, "n_models": 4, "mu": 2.1, "correlation": 0.9},
    {"pool_size": 800, "n_models": 8, "mu": 2.1, "correlation": 0.0},
)


def twin_truth_check(alpha: float = 0.1, fresh: int = 200, fitted_on: int = 5) -> None:
    """True unconditional GCR (``fresh`` tables of the three-block generator) against the twin's
    estimate (largest over exposure patterns) fitted on each of ``fitted_on`` single tables."""
    from jecs_core import REGISTRY, table_pvalues
    from jecs_core.simulate.scenarios import three_block

    methods = tuple(REGISTRY)
    for cfg in TWIN_CHECK_CONFIGS:
        truth = {m: [] for m in methods}
        for s in range(fresh):
            table = table_from_frame(three_block(np.random.default_rng(10_000 + s), **cfg))
            p = table_pvalues(table)
            for m in methods:
                truth[m].append(gcp(REGISTRY[m].prepare(p).select(alpha).selected, table.contaminated))
        twins = [twin_evaluate(table_from_frame(three_block(np.random.default_rng(s), **cfg)), alphas=(alpha,),
                               tables=100, seed=s, methods=methods) for s in range(fitted_on)]
        print(cfg)
        for m in methods:
            mean, se = np.mean(truth[m]), np.std(truth[m], ddof=1) / np.sqrt(fresh)
            est = " ".join(f"{t.summary[t.summary['method'] == m]['gcr'].max():.3f}" for t in twins)
            verdicts = "".join("S" if t.safe(m) else "x" for t in twins)
            print(f"  {m:14s} true {mean:.3f} +- {se:.3f} ({'above' if mean > alpha + 2 * se else 'within'})"
                  f"   twin {est}   verdicts {verdicts}")


def default_rule_against_jmcs(seed: int, reps: int, rounds: int = 7) -> None:
    """The default rule's evaluation against JMCS's batched path on the shipped real audit, one worker.

    Interleaved round by round; the ratio is the median of the per-round ratios.  The
    default rule's generic path (``accelerate=False``) is timed beside them.
    """
    from jecs_core import DEFAULT_METHOD

    table = load_scores(Path(__file__).resolve().parents[1] / "sample_data" / "real" / "wiki_smollm2_k8.csv")
    runs = {
        "jmcs": lambda: evaluate(table, alphas=ALPHAS, reps=reps, seed=seed, workers=1, methods=("jmcs",)),
        DEFAULT_METHOD: lambda: evaluate(table, alphas=ALPHAS, reps=reps, seed=seed, workers=1,
                                         methods=(DEFAULT_METHOD,)),
        f"{DEFAULT_METHOD} generic": lambda: evaluate(table, alphas=ALPHAS, reps=reps, seed=seed, workers=1,
                                                      methods=(DEFAULT_METHOD,), accelerate=False),
    }
    fast, slow = runs[DEFAULT_METHOD](), runs[f"{DEFAULT_METHOD} generic"]()
    same = all(np.array_equal(getattr(fast, f), getattr(slow, f)) for f in ("gcp", "power", "n_selected"))
    times = {name: [] for name in runs}
    for _ in range(rounds):
        for name, fn in runs.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    print(f"real audit (n = {table.n}, m = {table.m}, K = {table.K}), {reps} reps, 1 worker, {rounds} interleaved "
          f"rounds, load average {os.getloadavg()[0]:.2f}; batched equals generic: {same}")
    for name in runs:
        ratio = np.median(np.array(times[name]) / np.array(times["jmcs"]))
        print(f"  {name:<24}{np.median(times[name]):8.3f} s  {ratio:6.2f}x JMCS batched")


def diagnostics_timings(seed: int) -> None:
    """Wall time of the twin check and the full diagnostics bundle on the shipped real audit."""
    path = Path(__file__).resolve().parents[1] / "sample_data" / "real" / "wiki_smollm2_k8.csv"
    table = load_scores(path)
    start = time.perf_counter()
    twin = twin_evaluate(table, alphas=(0.1, 0.2, 0.3), tables=200, seed=seed)
    print(f"twin_evaluate (real audit, 200 tables x 3 patterns, {len(REGISTERED)} rules, 3 alphas): "
          f"{time.perf_counter() - start:.2f} s")
    start = time.perf_counter()
    found = audit_diagnostics(table, alpha=0.1, seed=seed)
    print(f"audit_diagnostics (alpha 0.1, 200 bootstrap, 100 twins x 3 patterns): {time.perf_counter() - start:.2f} s")
    print(f"verdict: {found.verdict}")
    rows = twin.summary[twin.summary["alpha"] == 0.1]
    print("twin GCR at alpha 0.1 (max over patterns): " + ", ".join(
        f"{m} {rows[rows['method'] == m]['gcr'].max():.3f}" for m in twin.methods))


if __name__ == "__main__":
    raise SystemExit(main())
