"""One alpha step until painted, in real Chromium: the Select page against a bare one-slider page.

Three servers run in one process tree and are measured interleaved, so the ratio cancels
the machine's speed: the app, a bare one-slider page under Streamlit's defaults (the
framework's floor, the ratio's denominator) and the same bare page with
``runner.postScriptGC`` off (printed for reference: it shows what Streamlit's per-run
garbage collection costs the floor itself).  A step is timed from the key press until the
run is over and painted: the app root reports ``notRunning``, no element is stale, and

* the app: the address bar holds the new value (the Select page writes the URL last);
* the bare pages: the echoed value shows.

Then λ-slider and k_n-input steps on the Select page: five first visits of a setting (each
refits every rule) and five revisits (cached fits).

``--big`` also uploads a 10^6-item, K = 16 score table (Parquet, about 150 MB, under the
200 MB cap) through the Data page and times the Select page's first render and alpha steps
(first visits of an alpha and revisits, which hit the page's comparison cache, apart).

The 10,000-item comparison bounces alpha between 0.10 and 0.20, so after the warm-up most
steps revisit an alpha: the server part is then a cache hit.

    python benchmarks/bench_browser.py [--runs 40] [--big]

Needs the ``playwright`` package and Debian's chromium at /usr/bin/chromium (never downloads a browser).
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = "synthetic-k16-10k"
BARE = '''import streamlit as st
v = st.slider("Target GCR α", min_value=0.01, max_value=0.50, value=0.10, step=0.01, format="%.2f")
st.write(f"value = {v:.2f}")
'''
# The run is over (the app's root says so) and no element is left stale from the previous run.
BARE_NAME = "bare one-slider page"
BARE_NO_GC = "bare page, runner.postScriptGC off"
SETTLED = ("document.querySelector('[data-testid=stApp]')?.getAttribute('data-test-script-state') == 'notRunning'"
           " && !document.querySelector('[data-stale=\"true\"]')")


def _e2e():
    """The e2e conftest (launch arguments, the live-server helper), loaded by path."""
    spec = importlib.util.spec_from_file_location("e2e_conftest", ROOT / "tests" / "e2e" / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _step(page, direction: str, done_js: str, value: float) -> float:
    slider = page.get_by_role("slider", name="Target GCR α")
    start = time.perf_counter()
    slider.press(direction)
    page.wait_for_function(done_js, arg=f"{value:.2f}", polling="raf", timeout=60_000)
    return time.perf_counter() - start


def _app_done(param: str = "alpha") -> str:
    """The Select page wrote ``param`` (the control just moved) into the URL, and the run is over."""
    return f"v => new URLSearchParams(location.search).get('{param}') == String(parseFloat(v)) && {SETTLED}"


# The first render is over when the method cards are drawn (the URL holds alpha from the start).
_FIRST_DONE = f"v => document.querySelector('.jecs-card') && {SETTLED}"


def _bare_done() -> str:
    return f"v => document.body.innerText.includes('value = ' + v) && {SETTLED}"


def _series(page, done_js: str, runs: int) -> list[float]:
    """``runs`` one-step moves of the slider, bouncing between 0.10 and 0.20."""
    page.bring_to_front()  # a background tab gets no animation frames
    value = float(page.get_by_role("slider", name="Target GCR α").input_value())
    times, up = [], True
    for _ in range(runs):
        up = value < 0.20 - 1e-9 if up else value <= 0.10 + 1e-9
        value = round(value + (0.01 if up else -0.01), 2)
        times.append(_step(page, "ArrowRight" if up else "ArrowLeft", done_js, value))
        page.wait_for_timeout(150)
    return times


def _ms(times: list[float]) -> str:
    return f"median {statistics.median(times) * 1000:.0f} ms (min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f}, {len(times)} steps)"


def _open(page, url: str, done_js: str) -> float:
    start = time.perf_counter()
    page.goto(url)
    page.wait_for_function(done_js, arg="0.10", polling="raf", timeout=120_000)
    return time.perf_counter() - start


def _click_and_wait(page, click, done_js: str, value) -> float:
    start = time.perf_counter()
    click()
    page.wait_for_function(done_js, arg=str(value), polling="raf", timeout=60_000)
    return time.perf_counter() - start


def _up_and_back(page, press, done_js: str, value, step, steps: int) -> tuple[list[float], list[float]]:
    """``steps`` moves up (each setting fitted for the first time), then as many back (revisits)."""
    first, again = [], []
    for times, sign in ((first, 1), (again, -1)):
        for _ in range(steps):
            value = round(value + sign * step, 2)
            times.append(_click_and_wait(page, lambda s=sign: press(s), done_js, value))
            page.wait_for_timeout(150)
    return first, again


def tail_steps(page, steps: int = 5) -> dict[str, list[float]]:
    """Steps of the λ slider and of the k_n number input: full reruns that refit every rule."""
    page.bring_to_front()
    page.locator('[data-testid="stRadio"]', has_text="Tail threshold λ").get_by_text("Manual").click()
    page.wait_for_function(_app_done("lam"), arg="0.7", polling="raf", timeout=60_000)
    slider = page.get_by_role("slider", name="λ")
    lam = _up_and_back(page, lambda sign: slider.press("ArrowRight" if sign > 0 else "ArrowLeft"),
                       _app_done("lam"), 0.70, 0.05, min(steps, 5))  # 0.70 -> 0.95 and back
    page.locator('[data-testid="stRadio"]', has_text="kNN size k_n").get_by_text("Manual").click()
    box = page.locator('[data-testid="stNumberInput"]', has_text="k_n")
    box.wait_for()
    knn = int(box.locator("input").input_value())
    page.wait_for_function(_app_done("knn"), arg=str(knn), polling="raf", timeout=60_000)
    buttons = {1: box.get_by_test_id("stNumberInputStepUp"), -1: box.get_by_test_id("stNumberInputStepDown")}
    knn_times = _up_and_back(page, lambda sign: buttons[sign].click(), _app_done("knn"), knn, 1, steps)
    return {"λ step, first visit": lam[0], "λ step, revisit": lam[1],
            "k_n step, first visit": knn_times[0], "k_n step, revisit": knn_times[1]}


def compare(browser, app_url: str, bare_urls: dict[str, str], runs: int) -> tuple[object, dict[str, list[float]]]:
    """Alpha steps on the Select page and on each bare page, interleaved in blocks of five."""
    app = browser.new_page(viewport={"width": 1440, "height": 1000})
    first = _open(app, f"{app_url}/?sample={SAMPLE}&alpha=0.1", _FIRST_DONE)
    print(f"app first render (n = 10,000, K = 16; until the method cards are drawn): {first:.2f} s")
    pages = {"Select page": (app, _app_done())}
    for name, url in bare_urls.items():
        pages[name] = (browser.new_page(), _bare_done())
        _open(pages[name][0], url, _bare_done())
    for page, done in pages.values():
        _series(page, done, 4)  # warm-up: caches, chart libraries
    times = {name: [] for name in pages}
    for _ in range(max(1, runs // 5)):  # interleave blocks so drift hits all alike
        for name, (page, done) in pages.items():
            times[name] += _series(page, done, 5)
    return app, times


def big_audit(browser, app_url: str, runs: int) -> None:
    import numpy as np

    from jecs_core.simulate.synthetic import wide_table

    rng = np.random.default_rng(0)
    n, m, k = 1_000_000, 100_000, 16
    members = (rng.random((n, k)) < 0.02).astype(np.int8)
    frame = wide_table(rng.standard_normal((m, k)) + 1.0, rng.standard_normal((n, k)) + 3 * members, members)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "audit_1e6_k16.parquet"
        frame.to_parquet(path, index=False)
        print(f"10^6 audit: {path.stat().st_size / 1e6:.0f} MB Parquet, n = {n:,}, m = {m:,}, K = {k}")
        page = browser.new_page(viewport={"width": 1440, "height": 1000})
        page.goto(f"{app_url}/data")
        page.locator("input[type=file]").first.wait_for(state="attached")
        start = time.perf_counter()
        page.locator("input[type=file]").first.set_input_files(str(path))
        page.get_by_text("Loaded audit_1e6_k16.parquet").first.wait_for(timeout=300_000)
        print(f"upload and validation until 'Loaded': {time.perf_counter() - start:.1f} s")
    start = time.perf_counter()
    page.locator('[data-testid="stSidebarNavLink"]', has_text="Select").first.click()
    page.wait_for_function(f"v => location.pathname.endsWith('/select') && {_FIRST_DONE[5:]}", arg="0.10",
                           polling="raf", timeout=300_000)
    print(f"Select page first render (p-values, fits, cards, one figure, one page of items): {time.perf_counter() - start:.1f} s")
    # 0.10 -> 0.20 visits each alpha for the first time; 0.20 -> 0.10 revisits them (cached comparisons).
    first = _series(page, _app_done(), 10)
    again = _series(page, _app_done(), 10)
    print(f"alpha step at n = 10^6, K = 16, first visit of each alpha: {_ms(first)}")
    print(f"alpha step at n = 10^6, K = 16, revisiting an alpha: {_ms(again)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="timed alpha steps per page (default 15)")
    parser.add_argument("--big", action="store_true", help="also time a 10^6-item, K = 16 upload")
    args = parser.parse_args()
    e2e = _e2e()
    reason = e2e.skip_reason()
    if reason:
        raise SystemExit(f"cannot run: {reason}")
    with tempfile.TemporaryDirectory() as folder:
        bare_script = Path(folder) / "bare_slider.py"
        bare_script.write_text(BARE)
        with (e2e.serve(ROOT / "app.py") as app_url, e2e.serve(bare_script) as bare_url,
              e2e.serve(bare_script, log_name="bare-no-gc.log", env={"STREAMLIT_RUNNER_POST_SCRIPT_GC": "false"}) as bare_nogc,
              e2e.sync_playwright() as pw):
            browser = pw.chromium.launch(executable_path=str(e2e.CHROMIUM), args=e2e.CHROMIUM_ARGS)
            app, times = compare(browser, app_url, {BARE_NAME: bare_url, BARE_NO_GC: bare_nogc}, args.runs)
            floor = statistics.median(times[BARE_NAME])
            for name, series in times.items():
                print(f"{name + ':':40s} {_ms(series)}")
            ratio = statistics.median(times["Select page"]) / floor
            print(f"ratio (median Select page / median bare page): {ratio:.2f}  (goal <= 1.5, must <= 2)")
            print(f"for reference, against the bare page without the per-run GC: "
                  f"{statistics.median(times['Select page']) / statistics.median(times[BARE_NO_GC]):.2f}")
            for name, series in tail_steps(app, 5).items():
                print(f"{name + ':':40s} {_ms(series)}  ({statistics.median(series) / floor:.1f} x the bare page's step)")
            if args.big:
                big_audit(browser, app_url, max(5, args.runs // 2))
            browser.close()


if __name__ == "__main__":
    main()
