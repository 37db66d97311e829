"""Decide conformal_pvalues' branches by measurement: thread pool, sorted test keys, int keys, bucket table.

For each (n, m, K, signal) case, four ways to compute the same p-value matrix run
interleaved round by round, and the median per-round ratio against the serial
plain path is printed (wall time; CPU seconds beside it):

- serial plain: per column, ``searchsorted`` the test column into the sorted
  calibration column (the path below ``_PARALLEL_MIN_CELLS``);
- threaded plain: the same, one column per thread (the path at and above it);
- serial sorted keys: ``argsort`` each test column first and search the sorted
  keys (the branch the module does not take; kept here to show why);
- serial int keys: the serial loop on order-preserving int64 keys
  (``jecs_core.conformal.ordered_keys``), as the library's randomized path searches;
- serial buckets: the serial loop through the bucket table of ``jecs_core._rank``
  over every calibration value (most look-ups without a binary search);
- serial distinct buckets / distinct search: on tied calibration values, the table over
  the distinct values only, or a binary search among them, each followed by a look-up of the
  count where each distinct value's run ends (``jecs_core._rank.count_at_most`` takes the
  first, or the second at or below ``_FEW_DISTINCT`` distinct values);
- serial ranked test: per column, the test scores sorted and ranked and each calibration value
  counted where it first applies (``jecs_core._rank.count_at_most_unsorted``; no calibration sort),
  which the library takes from ``_RANK_TEST_FROM`` calibration rows per test row;
- jecs_core.conformal_pvalues itself (buckets, one column per thread from the cut-off).

Every variant is checked equal to the library's result before timing.

The last rows have more calibration than test rows (a large set of known members against a
small benchmark). The tied cases round every score to a few decimals, as scores printed to a few
digits are.

Run:  python benchmarks/bench_pvalues.py [--rounds 3] [--cases 8,9,10,11]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jecs_core import conformal_pvalues  # noqa: E402
from jecs_core._pvalue_kernel import _PARALLEL_MIN_CELLS, ordered_keys  # noqa: E402
from jecs_core._rank import _bucket_count, _run_ends, count_at_most_unsorted  # noqa: E402

CASES = [  # (n, m, K, signal, decimals the scores are rounded to: None = not rounded)
    (20_000, 1_000, 16, 4.0, None),
    (125_000, 2_000, 16, 4.0, None),  # exactly the thread-pool cut-off in cells
    (250_000, 20_000, 16, 4.0, None),
    (1_000_000, 100_000, 16, 2.0, None),
    (1_000_000, 100_000, 16, 4.0, None),
    (1_000_000, 100_000, 16, 4.0, 0),  # about 10 distinct calibration values a column
    (1_000_000, 100_000, 16, 4.0, 1),  # about 85
    (1_000_000, 100_000, 16, 4.0, 2),  # about 700
    (500_000, 1_000_000, 4, 4.0, None),  # m = 2n
    (250_000, 1_000_000, 4, 4.0, None),  # m = 4n
    (10_000, 1_000_000, 4, 4.0, None),  # m = 100n
    (10_000, 100_000, 4, 4.0, 1),  # m = 10n, tied
]


def distinct_count(reference, keys, search: bool) -> np.ndarray:
    """1 + the count at or below each key, through the distinct reference values (all of them when none tie)."""
    ends = _run_ends(reference)
    if ends is None:
        ends = np.arange(reference.shape[0])
    at_most = np.concatenate([[1], ends + 2])
    distinct = reference[ends]
    if search:
        return at_most[np.searchsorted(distinct, keys, side="right")]
    return at_most[_bucket_count(distinct, keys) - 1]


def plain(test, cal, threads: bool, sort_keys: bool = False, int_keys: bool = False, buckets: str = "") -> np.ndarray:
    n, n_models = test.shape
    m = cal.shape[0]
    out = np.empty((n, n_models), order="F")

    def column(k: int) -> None:
        if buckets == "ranked test":
            out[:, k] = count_at_most_unsorted(cal[:, k], test[:, k]) / (m + 1)
            return
        reference = np.sort(cal[:, k])
        keys = test[:, k]
        if int_keys:
            reference, keys = ordered_keys(reference), ordered_keys(keys)
        if buckets:
            counts = (_bucket_count(reference, keys) if buckets == "all" else
                      distinct_count(reference, keys, search=buckets == "distinct search"))
            out[:, k] = counts / (m + 1)
            return
        if sort_keys:
            order = np.argsort(keys)
            at_most = np.empty(n, dtype=np.int64)
            at_most[order] = np.searchsorted(reference, keys[order], side="right")
        else:
            at_most = np.searchsorted(reference, keys, side="right")
        out[:, k] = (at_most + 1.0) / (m + 1)

    if threads:
        with ThreadPoolExecutor(max_workers=min(n_models, os.cpu_count() or 1)) as pool:
            list(pool.map(column, range(n_models)))
    else:
        for k in range(n_models):
            column(k)
    return out


def variants_for(test, cal) -> dict:
    return {
        "serial": lambda: plain(test, cal, threads=False),
        "threaded": lambda: plain(test, cal, threads=True),
        "sorted keys": lambda: plain(test, cal, threads=False, sort_keys=True),
        "int keys": lambda: plain(test, cal, threads=False, int_keys=True),
        "buckets": lambda: plain(test, cal, threads=False, buckets="all"),
        "distinct buckets": lambda: plain(test, cal, threads=False, buckets="distinct buckets"),
        "distinct search": lambda: plain(test, cal, threads=False, buckets="distinct search"),
        "ranked test": lambda: plain(test, cal, threads=False, buckets="ranked test"),
        "library": lambda: conformal_pvalues(test, cal),
    }


def timed(fn) -> tuple[float, float]:
    start, start_cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - start, time.process_time() - start_cpu


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cases", default="", help="comma-separated indices into CASES (default: every case)")
    args = parser.parse_args(argv)
    cases = [CASES[int(i)] for i in args.cases.split(",")] if args.cases else CASES
    print(f"{os.cpu_count()} CPU(s), thread-pool cut-off {_PARALLEL_MIN_CELLS:,} cells, "
          f"{args.rounds} interleaved rounds; ratios are wall time against serial plain (median of rounds)")
    print(f"{'n':>10}{'m':>9}{'K':>4}{'mu':>5}{'dec':>4}  {'serial s':>9}{'threaded':>10}{'sorted keys':>13}"
          f"{'int keys':>10}{'buckets':>9}{'dist. bkt':>10}{'dist. srch':>11}{'ranked':>8}{'library':>9}  {'load':>5}")
    for n, m, k, signal, decimals in cases:
        rng = np.random.default_rng(0)
        test = signal * (rng.random((n, k)) < 0.1) + rng.standard_normal((n, k))
        cal = signal + rng.standard_normal((m, k))
        if decimals is not None:
            test, cal = np.round(test, decimals), np.round(cal, decimals)
        variants = variants_for(test, cal)
        reference = conformal_pvalues(test, cal)
        for name, fn in variants.items():
            if not np.array_equal(fn(), reference):
                raise AssertionError(f"{name} differs from conformal_pvalues at n={n}, m={m}")
        wall = {name: [] for name in variants}
        for _ in range(args.rounds):
            for name, fn in variants.items():
                wall[name].append(timed(fn)[0])
        serial = statistics.median(wall["serial"])
        ratio = {name: statistics.median(w / s for w, s in zip(wall[name], wall["serial"])) for name in variants}
        print(f"{n:>10,}{m:>9,}{k:>4}{signal:>5.0f}{'-' if decimals is None else decimals:>4}  {serial:>9.3f}"
              f"{ratio['threaded']:>9.2f}x{ratio['sorted keys']:>12.2f}x{ratio['int keys']:>9.2f}x{ratio['buckets']:>8.2f}x"
              f"{ratio['distinct buckets']:>9.2f}x{ratio['distinct search']:>10.2f}x{ratio['ranked test']:>7.2f}x"
              f"{ratio['library']:>8.2f}x  {os.getloadavg()[0]:>5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
