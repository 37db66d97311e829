"""Select page alpha step: what the cards' post-hoc lines add, against the step's own work, in one process.

For each n (default 10,000 and 1,000,000; K = 16; m = n / 10) and each of ``--steps`` alpha values
visited for the first time, this times what the Select page's fragment does on such a step without
the post-hoc line (every rule at alpha from the cached alpha-free fits, the summary, the cards' HTML)
and what the line adds (each card's bound from the cached post-hoc fit, the sentences, the cards'
HTML with them).  The post-hoc fit itself is paid once per data set and δ and is timed apart.
Medians and the ratio added / baseline; the load average is printed before and after (shared machine).

``--page`` also times whole Select-page reruns after an alpha change through Streamlit's AppTest on the
bundled ``synthetic-k16-10k`` sample (n = 10,000, K = 16), alternating runs with the post-hoc lines
and runs with them switched off (``posthoc_view.lines_for`` returning nothing), each at an alpha
visited for the first time.

Run:  python benchmarks/bench_posthoc_cards.py [--n 10000 1000000] [--steps 9] [--page]
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
    base, bounds_time, html_with, html_without = [], [], [], []
    for alpha in np.round(np.linspace(0.05, 0.30, steps), 2):
        start = time.perf_counter()
        comparison = compare_pvalues(p, alpha=float(alpha), models=[f"m{j}" for j in range(k)], fits=fits)
        summary = comparison.summary()
        cards_html(comparison, summary, style=False)
        base.append(time.perf_counter() - start)
        start = time.perf_counter()
        lines = card_lines({name: (fit.bound(comparison.selected(name)), int(comparison.selected(name).sum()))
                            for name in comparison.methods}, 0.1)
        bounds_time.append(time.perf_counter() - start)
        for out, extra in ((html_with, lines), (html_without, None)):
            start = time.perf_counter()
            cards_html(comparison, summary, style=False, posthoc=extra)
            out.append(time.perf_counter() - start)
    b = statistics.median(base)
    a = statistics.median(bounds_time) + max(statistics.median(html_with) - statistics.median(html_without), 0.0)
    print(f"n = {n:,}, K = {k}, m = {m:,}: post-hoc fit (once per data set and δ) {fit_time * 1e3:.1f} ms; "
          f"alpha step without the line {b * 1e3:.1f} ms, the line adds {a * 1e3:.2f} ms "
          f"(ratio {a / b:.3f}; {steps} first-visit steps, medians)")


def bench_page(steps: int) -> None:
    """Whole-page reruns with and without the lines, alternating, in this process."""
    from streamlit.testing.v1 import AppTest

    from dashboard import posthoc_view

    real = posthoc_view.lines_for
    at = AppTest.from_file(str(Path(__file__).resolve().parents[1] / "app.py"), default_timeout=120)
    at.query_params["sample"] = "synthetic-k16-10k"
    at.run()
    times = {True: [], False: []}
    alphas = iter(np.round(np.linspace(0.02, 0.49, 2 * steps), 2))
    for _ in range(steps):
        for on in (True, False):
            posthoc_view.lines_for = real if on else (lambda *args, **kwargs: {})
            at.slider(key="jecs.alpha").set_value(float(next(alphas)))
            start = time.perf_counter()
            at.run()
            times[on].append(time.perf_counter() - start)
            if at.exception:
                raise SystemExit(f"the app raised: {at.exception}")
    posthoc_view.lines_for = real
    with_line, without = statistics.median(times[True]), statistics.median(times[False])
    print(f"Select page rerun after an alpha change (AppTest, n = 10,000, K = 16): with the lines "
          f"{with_line * 1e3:.0f} ms, without {without * 1e3:.0f} ms (ratio {with_line / without:.3f}; "
          f"{steps} runs each, alternating, first visits)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[10_000, 1_000_000])
    parser.add_argument("--k", type=int, default=16)
    parser.add_argument("--steps", type=int, default=9)
    parser.add_argument("--page", action="store_true", help="also time whole Select-page reruns (AppTest)")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    for n in args.n:
        bench(n, args.k, args.steps)
    if args.page:
        bench_page(args.steps)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
