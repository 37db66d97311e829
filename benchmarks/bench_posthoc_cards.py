"""Select page alpha step: what the cards' post-hoc lines add, against the step's own work, in one process.

For each n (default 10,000 and 1,000,000; K = 16; m = n / 10) and each of ``--steps`` alpha values
visited for the first time, this times what the Select page's fragment does on such a step without
the post-hoc line (every rule at alpha from the cached alpha-free fits, the summary, the cards' HTML)
and what the line adds (each card's bound from the cached post-hoc fit, the sentences, the cards'
HTML with them).  The post-hoc fit itself is paid once per data set and δ and is timed apart.
Medians and the ratio added / baseline; the load average is printed before and after (shared machine).

Run:  python benchmarks/bench_posthoc_cards.py [--n 10000 1000000] [--steps 9]
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

from dashboard.posthoc_view import card_lines  # noqa: E402
from dashboard.ui import cards_html  # noqa: E402
from jecs_core import REGISTRY, compare_pvalues, conformal_pvalues, fit_post_hoc  # noqa: E402


def _table(n: int, k: int):
    rng = np.random.default_rng(0)
    members = rng.random((n, k)) < 0.02
    test = 4.0 * members + rng.standard_normal((n, k))
    cal = 4.0 + rng.standard_normal((max(n // 10, 50), k))
    return conformal_pvalues(test, cal), cal.shape[0]


def bench(n: int, k: int, steps: int) -> None:
    p, m = _table(n, k)
    fits = {name: rule.prepare(p) for name, rule in REGISTRY.items() if rule.fit is not None}
    start = time.perf_counter()
    fit = fit_post_hoc(p.max(axis=1), delta=0.1, calibration_size=m)
    fit_time = time.perf_counter() - start
    base, added = [], []
    for alpha in np.round(np.linspace(0.05, 0.30, steps), 2):
        start = time.perf_counter()
        comparison = compare_pvalues(p, alpha=float(alpha), models=[f"m{j}" for j in range(k)], fits=fits)
        summary = comparison.summary()
        cards_html(comparison, summary, style=False)
        base.append(time.perf_counter() - start)
        start = time.perf_counter()
        bounds = {name: (fit.bound(comparison.selected(name)), int(comparison.selected(name).sum()))
                  for name in comparison.methods}
        cards_html(comparison, summary, style=False, posthoc=card_lines(bounds, 0.1))
        # The HTML is built once on the page; count only what the line adds to it.
        added.append(time.perf_counter() - start)
    start = time.perf_counter()
    cards_html(comparison, summary, style=False)
    html_time = time.perf_counter() - start
    b, a = statistics.median(base), max(statistics.median(added) - html_time, 0.0)
    print(f"n = {n:,}, K = {k}, m = {m:,}: post-hoc fit (once per data set and δ) {fit_time * 1e3:.1f} ms; "
          f"alpha step without the line {b * 1e3:.1f} ms, the line adds {a * 1e3:.2f} ms "
          f"(ratio {a / b:.3f}; {steps} first-visit steps, medians)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[10_000, 1_000_000])
    parser.add_argument("--k", type=int, default=16)
    parser.add_argument("--steps", type=int, default=9)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    for n in args.n:
        bench(n, args.k, args.steps)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
