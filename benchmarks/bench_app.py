"""Select page rerun time after an alpha change, through Streamlit's AppTest.

Audit scale: the bundled ``synthetic-k16-10k`` sample (n = 10,000 test items, K = 16) unless
``--sample`` names another (``wiki-smollm2-k8``, the real audit the dashboard opens on).
The first run fills the caches (p-values, JECS fit); each timed run moves alpha and
reruns the whole script (frame + Select page: comparison, cards, five figures, tables).

    python benchmarks/bench_app.py [--runs 9] [--sample synthetic-k16-10k]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")
SAMPLE = "synthetic-k16-10k"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="timed alpha changes (default 9)")
    parser.add_argument("--sample", default=SAMPLE, help=f"bundled sample to open (default {SAMPLE})")
    args = parser.parse_args()

    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["sample"] = args.sample
    start = time.perf_counter()
    at.run()
    first = time.perf_counter() - start
    if at.exception:
        raise SystemExit(f"the app raised: {at.exception}")
    table = at.session_state["jecs.table"]

    times = []
    for i in range(args.runs):
        at.slider(key="jecs.alpha").set_value(0.05 + 0.01 * (i % 20))
        start = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - start)
        if at.exception:
            raise SystemExit(f"the app raised: {at.exception}")

    print(f"Select page, n = {table.n:,}, K = {table.K}, sample '{args.sample}'")
    print(f"first run (cold caches): {first:.3f} s")
    print(f"rerun after an alpha change: median {statistics.median(times) * 1000:.0f} ms "
          f"(min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f}, {len(times)} runs)")


if __name__ == "__main__":
    main()
