"""Time the Learn page's post-hoc lessons against the page's existing power lesson.

What one rerun of the page computes when a slider of the simulated-audit panel moves (nothing
cached by Streamlit): the "picking alpha after looking" lesson (200 fresh tables, the default rule
at every alpha of the slider, the post-hoc bound of every set) and the granularity lesson (20
tables at each of the curve's calibration sizes), each with a test size n never seen before in the
process (the calibration-urn thresholds are then simulated too, as on a fresh slider value), and
warm (same n again).  Also one new point of the m slider.  Baseline, in the same process: the
power-vs-K lesson at K = 8 (what a move of the page's alpha slider recomputes).  Medians of
``--repeats`` runs; the load average is printed before and after: the machine is shared.

Run:  python benchmarks/bench_learn.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dashboard.lesson_data import power_lesson  # noqa: E402
from dashboard.lesson_granularity import M_GRID, granularity_point  # noqa: E402
from dashboard.lesson_looking import looking_lesson  # noqa: E402


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f} (cores: {os.cpu_count()})")
    fresh_n = iter(range(510, 10_000, 10))  # a new n per cold run: no urn thresholds cached for it

    def granularity(n: int) -> None:
        for m in M_GRID:
            granularity_point(calibration_size=m, n_items=n, n_models=1)

    rows = {
        "baseline: power vs K (K = 8)": lambda: power_lesson(max_models=8, eta=0.0, alpha=0.1),
        "looking, new n (cold urn)": lambda: looking_lesson(n_items=next(fresh_n), n_models=1),
        "looking, same n (warm)": lambda: looking_lesson(n_items=500, n_models=1),
        "granularity curve, new n (cold urn)": lambda: granularity(next(fresh_n)),
        "granularity curve, same n (warm)": lambda: granularity(500),
        "one new m point (cold urn)": lambda: granularity_point(calibration_size=next(fresh_n), n_items=500, n_models=1),
    }
    looking_lesson(n_items=500, n_models=1)  # warm the n = 500 caches
    granularity(500)
    medians = {name: statistics.median(timed(fn) for _ in range(args.repeats)) for name, fn in rows.items()}
    base = medians["baseline: power vs K (K = 8)"]
    for name, seconds in medians.items():
        print(f"{name:40s} {seconds * 1000:8.0f} ms   ratio to baseline {seconds / base:5.2f}")
    cold = medians["looking, new n (cold urn)"] + medians["granularity curve, new n (cold urn)"]
    print(f"{'audit slider step (both lessons, cold)':40s} {cold * 1000:8.0f} ms   ratio to baseline {cold / base:5.2f}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
