"""First render on a fresh server: the dashboard's landing page against a bare one-slider page.

Each round starts a fresh server per page, one at a time, and opens the page in a new Chromium
context (no HTTP cache) as soon as the server answers its health check (or ``--open-after``
seconds later, as a person opening the link would); the clock runs from the navigation until
the first meaningful paint:

* the app, under ``streamlit run app.py`` (app.py's ``st.App`` lifespan imports the landing
  page's modules and computes its default view in the background once the server is up) and
  under ``python -m dashboard`` (the same warm-up, started before the server starts): ``/``
  (the landing page forwards to Select on the default sample) until the "Target GCR α" slider
  and the method cards are visible;
* the bare page (``streamlit run`` of one slider): until its slider and its value are visible.

The pages take each place in the order in turn, so drift hits all alike; ratios are medians
of per-round ratios against the bare page, from the navigation and from the launch (the server's
start plus the first paint: ``streamlit run`` opens the browser once the server answers).  It also
prints each server's start (launch to health check) and the time until the run is over (the app root reports ``notRunning``,
nothing stale), which includes what a page draws after its first paint.  The project's bytecode
is written first, as an installed copy has it (``bytecode.py``), and a warm-up round (file
cache) is not counted.

    python benchmarks/bench_first_render.py [--rounds 5] [--open-after 0] [--query "sample=synthetic-k16-10k"]

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

from bench_browser import BARE as BARE_PAGE
from bench_browser import SETTLED, _e2e
from bytecode import compile_packages

ROOT = Path(__file__).resolve().parents[1]
GOAL = 1.5
_SLIDER = "document.querySelector('[data-testid=stSlider] input[type=range]')"
# First meaningful paint: the alpha slider and the method cards (the app), the slider and its value (bare).
APP_PAINT = f"() => !!({_SLIDER} && document.querySelector('.jecs-card'))"
BARE_PAINT = f"() => !!({_SLIDER} && document.body.innerText.includes('value = 0.10'))"
BARE_SCRIPT = "<bare script>"
# name -> (command after the interpreter, path opened, first-paint check)
PAGES = {
    "streamlit run app.py": (["-m", "streamlit", "run", "app.py"], "/", APP_PAINT),
    "python -m dashboard": (["-m", "dashboard"], "/", APP_PAINT),
    "bare one-slider page": (["-m", "streamlit", "run", BARE_SCRIPT], "", BARE_PAINT),
}
BARE = "bare one-slider page"


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


@contextlib.contextmanager
def _serve(e2e, launcher: list[str], log_name: str, cwd: Path = ROOT):
    """A server started by ``launcher`` (plus the e2e tests' options) on a free port; yields (url, s to health).

    The file watcher is the checkout's ``.streamlit/config.toml`` choice, as for ``streamlit run app.py``
    in that checkout (the bare page runs with this one's).
    """
    from dashboard.testing import live_server

    e2e.ARTIFACTS.mkdir(exist_ok=True)
    with open(e2e.ARTIFACTS / log_name, "wb") as log, live_server(launcher, log=log, cwd=cwd) as served:
        yield served


def one_round(e2e, browser, bare_script: Path, query: str, order: list[str],
              open_after: float = 0.0) -> dict[str, tuple[float, float, float]]:
    """Each page on a fresh server of its own, opened ``open_after`` s after it answers; name -> (paint, settled, start) s."""
    out = {}
    for name in order:
        launcher, path, paint = PAGES.get(name, PAGES["streamlit run app.py"])
        launcher = [str(bare_script) if part == BARE_SCRIPT else part for part in launcher]
        cwd = Path(name.split(" at ", 1)[1]) if " at " in name else ROOT  # --compare checkout
        with _serve(e2e, launcher, f"first-render-{name.split(' at ')[0]}.log", cwd) as (url, started):
            time.sleep(open_after)
            out[name] = (*_visit(browser, url + (f"/{query}" if path == "/" else ""), paint), started)
    return out


def _median(values) -> float:
    return statistics.median(values)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds (default 5)")
    parser.add_argument("--open-after", type=float, default=0.0,
                        help="seconds between a server's health check and opening its page (default 0)")
    parser.add_argument("--compare", type=Path, default=None,
                        help="another checkout (e.g. a git worktree of an earlier commit): its app.py joins the rounds")
    parser.add_argument("--query", default="", help="query string for the app's URL, e.g. 'sample=synthetic-k16-10k'")
    args = parser.parse_args(argv)
    e2e = _e2e()
    reason = e2e.skip_reason()
    if reason:
        raise SystemExit(f"cannot run: {reason}")
    query = f"?{args.query}" if args.query else ""
    names, rounds, loads = list(PAGES), [], []
    if args.compare:
        names.insert(0, f"streamlit run app.py at {args.compare.resolve()}")
    compile_packages(ROOT, *([args.compare] if args.compare else []))
    with tempfile.TemporaryDirectory() as folder, e2e.sync_playwright() as pw:
        bare_script = Path(folder) / "bare_slider.py"
        bare_script.write_text(BARE_PAGE)
        browser = pw.chromium.launch(executable_path=str(e2e.CHROMIUM), args=e2e.CHROMIUM_ARGS)
        one_round(e2e, browser, bare_script, query, names, args.open_after)  # warm-up: file cache, bytecode
        for i in range(args.rounds):
            order = names[i % len(names):] + names[:i % len(names)]  # each page takes each place in turn
            rounds.append(one_round(e2e, browser, bare_script, query, order, args.open_after))
            loads.append(os.getloadavg()[0])
            print(f"round {i + 1}: " + ", ".join(f"{name} {rounds[-1][name][0]:.2f} s" for name in order)
                  + f" (load {loads[-1]:.2f})", flush=True)
        browser.close()
    width = max(map(len, names)) + 2
    print(f"{args.rounds} rounds, a fresh server per page and round, opened {args.open_after:g} s after it answers; "
          f"app URL '/{query}'")
    print(f"{'page (launcher)':<{width}}{'server start s':>15}{'first paint s':>15}{'run over s':>12}{'paint x bare':>14}"
          f"{'launch to paint x bare':>24}")
    for name in names:
        ratio = _median(r[name][0] / r[BARE][0] for r in rounds)
        # What a person launching it waits for: `streamlit run` opens the browser once the server answers.
        launched = _median((r[name][2] + r[name][0]) / (r[BARE][2] + r[BARE][0]) for r in rounds)
        print(f"{name:<{width}}{_median(r[name][2] for r in rounds):>15.2f}{_median(r[name][0] for r in rounds):>15.2f}"
              f"{_median(r[name][1] for r in rounds):>12.2f}{ratio:>14.2f}{launched:>24.2f}")
    print(f"load average (1 min) during the rounds: {min(loads):.2f} to {max(loads):.2f}")
    for name in names[:-1]:
        ratio = _median(r[name][0] / r[BARE][0] for r in rounds)
        print(f"goal: first paint <= {GOAL}x the bare page; {name}: {ratio:.2f}x ({'met' if ratio <= GOAL else 'NOT met'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
