"""First render on a fresh server: the dashboard's landing page against a bare one-slider page.

Each round starts two fresh servers, ``streamlit run app.py`` and ``streamlit run`` of a bare
page with one slider, waits until both answer their health check, then opens each once in a
new Chromium context (no HTTP cache) and times from the navigation until the first meaningful
paint:

* the app: ``/`` (the landing page forwards to Select on the default sample) until the
  "Target GCR α" slider and the method cards are visible;
* the bare page: until its slider and the echoed value are visible.

Which server is opened first alternates round by round, so drift hits both alike; the ratio
is the median of the per-round ratios.  It also prints the time until each run is over
(the app root reports ``notRunning``, nothing stale), which includes what a page draws after
its first paint.  A warm-up round (file cache, bytecode) is not counted.

    python benchmarks/bench_first_render.py [--rounds 5] [--query "sample=synthetic-k16-10k"]

Needs the ``playwright`` package and Debian's chromium at /usr/bin/chromium (never downloads a browser).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import tempfile
import time
from pathlib import Path

from bench_browser import BARE, SETTLED, _e2e

ROOT = Path(__file__).resolve().parents[1]
GOAL = 1.5
_SLIDER = "document.querySelector('[data-testid=stSlider] input[type=range]')"
# First meaningful paint: the alpha slider and the method cards (the app), the slider and its value (bare).
APP_PAINT = f"() => !!({_SLIDER} && document.querySelector('.jecs-card'))"
BARE_PAINT = f"() => !!({_SLIDER} && document.body.innerText.includes('value = 0.10'))"
DONE = f"() => {SETTLED}"


def _visit(browser, url: str, paint_js: str) -> tuple[float, float]:
    """Seconds from navigation until ``paint_js`` holds, and until the run is over."""
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    try:
        page = context.new_page()
        start = time.perf_counter()
        page.goto(url, wait_until="commit")
        page.wait_for_function(paint_js, polling="raf", timeout=180_000)
        paint = time.perf_counter() - start
        page.wait_for_function(f"() => ({paint_js})() && ({SETTLED})", polling="raf", timeout=180_000)
        return paint, time.perf_counter() - start
    finally:
        context.close()


def one_round(e2e, browser, bare_script: Path, query: str, app_first: bool) -> dict[str, tuple[float, float]]:
    """Fresh servers for both pages, each opened once; returns name -> (paint s, settled s)."""
    with contextlib.ExitStack() as stack:
        app_url = stack.enter_context(e2e.serve(ROOT / "app.py", log_name="first-render-app.log"))
        bare_url = stack.enter_context(e2e.serve(bare_script, log_name="first-render-bare.log"))
        time.sleep(1.0)  # let both servers' start-up work finish before the clock runs
        visits = [("app", f"{app_url}/{query}", APP_PAINT), ("bare", bare_url, BARE_PAINT)]
        if not app_first:
            visits.reverse()
        return {name: _visit(browser, url, paint) for name, url, paint in visits}


def _median(values) -> float:
    return statistics.median(values)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds (default 5)")
    parser.add_argument("--query", default="", help="query string for the app's URL, e.g. 'sample=synthetic-k16-10k'")
    args = parser.parse_args(argv)
    e2e = _e2e()
    reason = e2e.skip_reason()
    if reason:
        raise SystemExit(f"cannot run: {reason}")
    query = f"?{args.query}" if args.query else ""
    rounds, loads = [], []
    with tempfile.TemporaryDirectory() as folder, e2e.sync_playwright() as pw:
        bare_script = Path(folder) / "bare_slider.py"
        bare_script.write_text(BARE)
        browser = pw.chromium.launch(executable_path=str(e2e.CHROMIUM), args=e2e.CHROMIUM_ARGS)
        one_round(e2e, browser, bare_script, query, True)  # warm-up: file cache, bytecode
        for i in range(args.rounds):
            rounds.append(one_round(e2e, browser, bare_script, query, i % 2 == 0))
            loads.append(os.getloadavg()[0])
            print(f"round {i + 1}: " + ", ".join(f"{name} {paint:.2f} s" for name, (paint, _) in rounds[-1].items())
                  + f" (load {loads[-1]:.2f})", flush=True)
        browser.close()
    print(f"{args.rounds} rounds, fresh servers each, order alternated; app URL '/{query}'")
    print(f"{'page':<44}{'paint s':>10}{'settled s':>11}")
    for name, label in (("app", "app landing page (slider + cards)"), ("bare", "bare one-slider page (slider + value)")):
        print(f"{label:<44}{_median(r[name][0] for r in rounds):>10.2f}{_median(r[name][1] for r in rounds):>11.2f}")
    paint = _median(r["app"][0] / r["bare"][0] for r in rounds)
    settled = _median(r["app"][1] / r["bare"][1] for r in rounds)
    print(f"ratio app / bare, median of per-round ratios: first paint {paint:.2f}, run over {settled:.2f}")
    print(f"load average (1 min) during the rounds: {min(loads):.2f} to {max(loads):.2f}")
    print(f"goal: first paint <= {GOAL}x the bare page -> {paint:.2f}x ({'met' if paint <= GOAL else 'NOT met'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
