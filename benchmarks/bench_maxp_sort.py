"""Sorting the max-p vector: numpy's sort against the counting sort, and what each gives the default rule.

The default rule sorts the n per-item maxima of the conformal p-values; with m well below n they
repeat a few values many times and ``jecs_core._counting_sort`` can count them instead. Which is
faster depends on numpy's sort on this machine (SIMD sorting networks or scalar code), so the
library times both once per process (``counting_pays``). This script shows the two on the
shapes of the "Few models" section of RESULTS.md, interleaved round by round:

1. the sort alone, on each shape's max-p vector: ``np.sort`` and the counting sort (forced on);
2. the default rule incl. p-values against the numpy floor (``bench_select.py``), with counting
   forced on and forced off, and as the library chooses.

Run:  python benchmarks/bench_maxp_sort.py [--rounds 7]
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
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_evaluate import best_time  # noqa: E402
from bench_select import numpy_floor, strong_signal_table  # noqa: E402

import jecs_core._counting_sort as counting  # noqa: E402
from jecs_core import conformal_pvalues, select  # noqa: E402

# (n, m, K): the "Few models" shapes, a sub-millisecond one, and the large table for reference.
SHAPES = [(10**6, 1000, 1), (10**6, 1000, 2), (10**5, 1000, 4), (10**5, 100, 1), (40_000, 1000, 2),
          (10**6, 100_000, 16)]


def _default_rule(test, cal, pays: bool | None) -> float:
    counting._counting_pays = pays
    counting.counting_pays()  # the probe, when left to the library, is timed apart from the rule
    return best_time(lambda: select(conformal_pvalues(test, cal), alpha=0.1), 1 if test.size > 10**6 else 9)


def _one_shape(test: np.ndarray, cal: np.ndarray, rounds: int, verdict: bool) -> dict[str, list[float]]:
    """Per round: both sorts of the max-p vector (s), the floor (s), the three rule variants (x floor)."""
    p_max = conformal_pvalues(test, cal).max(axis=1)
    repeats, floor_repeats = (3, 1) if p_max.size >= 10**6 else (15, 9)
    rows = {name: [] for name in ("sort", "count", "floor", "rule_count", "rule_sort", "rule_chosen")}
    rules = [("rule_count", True), ("rule_sort", False), ("rule_chosen", verdict)]
    for i in range(rounds):
        rows["sort"].append(best_time(lambda: np.sort(p_max), repeats))
        rows["count"].append(best_time(lambda: counting._counted(p_max), repeats))
        floor = best_time(lambda: numpy_floor(test, cal), floor_repeats)
        rows["floor"].append(floor)
        for name, pays in rules[i % 3:] + rules[:i % 3]:  # each variant takes each place in turn
            rows[name].append(_default_rule(test, cal, pays) / floor)
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)

    start = time.perf_counter()
    verdict = counting.counting_pays()
    probe_ms = (time.perf_counter() - start) * 1e3
    print(f"{os.cpu_count()} CPU(s), numpy {np.__version__}, {args.rounds} interleaved rounds; "
          f"the probe says counting {'pays' if verdict else 'does not pay'} here ({probe_ms:.1f} ms, once per process)")
    print(f"{'n':>10}{'m':>9}{'K':>4}{'np.sort ms':>12}{'counting ms':>13}{'count/sort':>12}"
          f"{'floor ms':>10}{'rule, counting':>16}{'rule, sort':>12}{'as chosen':>11}")
    loads = []
    for n, m, k in SHAPES:
        test, cal = strong_signal_table(n, m, k, 4.0)
        rows = _one_shape(test, cal, args.rounds, verdict)
        loads.append(os.getloadavg()[0])
        med = {name: statistics.median(values) for name, values in rows.items()}
        ratio = statistics.median(c / s for c, s in zip(rows["count"], rows["sort"]))
        print(f"{n:>10,}{m:>9,}{k:>4}{med['sort'] * 1e3:>12.3f}{med['count'] * 1e3:>13.3f}{ratio:>11.2f}x"
              f"{med['floor'] * 1e3:>10.2f}{med['rule_count']:>15.2f}x{med['rule_sort']:>11.2f}x"
              f"{med['rule_chosen']:>10.2f}x", flush=True)
    counting._counting_pays = verdict
    print("rule columns: the default rule incl. p-values over the numpy floor (best of a few calls each, median of rounds)")
    print(f"load average (1 min) after each shape: {min(loads):.2f} to {max(loads):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
