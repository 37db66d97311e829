"""One p-value column three ways, against sort-and-search: where the bucket table and the ranking pay.

Per shape (n test scores, m calibration scores, one column, untied or rounded to a few decimals),
interleaved round by round, each against the floor (``np.sort`` of the calibration column, then
``np.searchsorted`` of the test scores into it):

* table:   the calibration column sorted, its bucket table built and queried (forced on);
* ranked:  the test scores sorted and ranked, the calibration column left unsorted (forced on);
* library: ``conformal_pvalues`` on the column, as it chooses (its probes run before the rounds).

Which is faster depends on numpy's sort; run it again with numpy's SIMD kernels switched off
(``NPY_DISABLE_CPU_FEATURES="X86_V3,X86_V4,AVX512_ICL,AVX512_SPR"`` on x86-64) to see the other side.

``--dtype float32`` draws the scores in float32, as a model's scores often come: they tie now and
then, which decides whether the distinct values are worth extracting without a table.

``--signal 4`` draws the scores as a strong detector gives them (``bench_select.py``'s table): the
calibration scores (members) 4 standard deviations up, one test score in ten with them, the
others below nearly every calibration score, where a binary search is cheap.

Run:  python benchmarks/bench_rank.py [--rounds 5] [--dtype float32] [--signal 4]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_evaluate import best_time  # noqa: E402

import jecs_core._pvalue_kernel as kernel  # noqa: E402
import jecs_core._rank as rank  # noqa: E402
from jecs_core import conformal_pvalues  # noqa: E402

SHAPES = [(10**6, 10**5), (10**5, 10**5), (10**5, 3 * 10**5), (10**5, 10**6), (10**4, 10**5), (10**4, 10**6),
          (2_500, 10**5), (1_000, 10**5), (10**4, 2 * 10**4), (2 * 10**4, 4 * 10**4), (5 * 10**4, 10**5),
          (6_000, 2_000), (5_000, 500), (1_000, 10**4)]


def _forced_table(reference: np.ndarray, queries: np.ndarray) -> np.ndarray:
    kept = rank._TABLE_FROM_QUERIES, rank._TABLE_FROM_SHARE
    rank._TABLE_FROM_QUERIES, rank._TABLE_FROM_SHARE = 0, 0.0
    try:
        return rank.at_most_counter(np.sort(reference))(queries)
    finally:
        rank._TABLE_FROM_QUERIES, rank._TABLE_FROM_SHARE = kept


def _one_shape(test: np.ndarray, cal: np.ndarray, rounds: int) -> dict[str, float]:
    """Median over rounds of each way's best time over the floor's."""
    repeats = max(1, int(2e6 // (test.size + cal.size)))
    ways = {
        "table": lambda: _forced_table(cal, test),
        "ranked": lambda: rank.count_at_most_unsorted(cal, test),
        "library": lambda: conformal_pvalues(test, cal),
    }
    ratios = {name: [] for name in ways}
    floor = []
    for _ in range(rounds):
        floor.append(best_time(lambda: np.searchsorted(np.sort(cal), test, side="right"), repeats))
        for name, way in ways.items():
            ratios[name].append(best_time(way, repeats) / floor[-1])
    return {"floor": statistics.median(floor), **{name: statistics.median(r) for name, r in ratios.items()}}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--dtype", choices=("float64", "float32"), default="float64")
    parser.add_argument("--signal", type=float, default=0.0, help="members' shift (0: one distribution for all)")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    print(f"numpy {np.__version__}, NPY_DISABLE_CPU_FEATURES={os.environ.get('NPY_DISABLE_CPU_FEATURES', '')!r}, "
          f"{args.dtype}, signal {args.signal:g}, {args.rounds} interleaved rounds; the probe says ranking "
          f"{'pays' if kernel.ranking_pays() else 'does not pay'} here")
    print(f"{'n':>10}{'m':>11}{'dec':>5}{'floor ms':>10}{'table':>8}{'ranked':>8}{'library':>9}")
    loads = []
    for n, m in SHAPES:
        for decimals in (None, 1, 3):
            test = rng.standard_normal(n) + args.signal * (rng.random(n) < 0.1)
            cal = rng.standard_normal(m) + args.signal
            if decimals is not None:
                test, cal = np.round(test, decimals), np.round(cal, decimals)
            test, cal = test.astype(args.dtype), cal.astype(args.dtype)
            got = _one_shape(test, cal, args.rounds)
            loads.append(os.getloadavg()[0])
            print(f"{n:>10,}{m:>11,}{'-' if decimals is None else decimals:>5}{got['floor'] * 1e3:>10.2f}"
                  f"{got['table']:>7.2f}x{got['ranked']:>7.2f}x{got['library']:>8.2f}x", flush=True)
    print("ratios: best time over the floor's (np.sort of the calibration column, then searchsorted), median of rounds;"
          " the library column includes the division into p-values")
    print(f"load average (1 min): {min(loads):.2f} to {max(loads):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
