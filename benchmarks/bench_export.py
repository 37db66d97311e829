"""Time the selection export against pandas writing the same frame.

Builds a score table of n test items and K models, runs every registered rule, then times

* ``export``: :func:`jecs_core.write_selection` (selection frame, spreadsheet-safe cells, CSV and
  sidecar JSON through temporary files and rename), and
* ``pandas``: ``DataFrame.to_csv(index=False)`` of the frame the export writes (the baseline),

in the same process, and checks that the export's CSV bytes equal pandas' (no formula-leading
cells in this table, so spreadsheet-safe and raw output coincide). With ``--cli`` it also times
``jecs select`` end to end without and with ``--out`` (diagnostics off), and with the default diagnostics.

Run:  python benchmarks/bench_export.py [--n 1000000] [--m 100000] [--k 16] [--repeats 3] [--cli]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import jecs_core as jc  # noqa: E402
from jecs_core.cli import main as jecs_main  # noqa: E402
from jecs_core.export import selection_frame  # noqa: E402
from jecs_core.io import write_table  # noqa: E402


def score_frame(n: int, m: int, k: int, seed: int = 0) -> pd.DataFrame:
    """A labelled wide table: 10% membership per model, scores 2 * member + N(0, 1)."""
    rng = np.random.default_rng(seed)
    members = (rng.random((n, k)) < 0.1).astype(np.int8)
    test = 2.0 * members + rng.standard_normal((n, k))
    cal = 2.0 + rng.standard_normal((m, k))
    frame = pd.DataFrame({"item_id": [f"c{i}" for i in range(m)] + [f"t{i}" for i in range(n)],
                          "split": ["calibration"] * m + ["test"] * n})
    for j in range(k):
        frame[f"score_m{j}"] = np.concatenate([cal[:, j], test[:, j]])
    for j in range(k):
        frame[f"member_m{j}"] = np.concatenate([np.ones(m, np.int8), members[:, j]])
    return frame


def timed(fn, repeats: int) -> float:
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def cli_times(path: Path, out: Path) -> dict[str, float]:
    """Wall time of `jecs select` without and with --out (diagnostics off, to isolate the export), and the default run."""
    runs = {
        "no --out, --no-diagnostics": ["--no-diagnostics"],
        "--out, --no-diagnostics": ["--no-diagnostics", "--out", str(out)],
        "--out, diagnostics on (default)": ["--out", str(out)],
    }
    times = {}
    for name, extra in runs.items():
        start = time.perf_counter()
        assert jecs_main(["select", str(path), "--alpha", "0.1", *extra]) == 0
        times[name] = time.perf_counter() - start
    return times


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--m", type=int, default=100_000)
    parser.add_argument("--k", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cli", action="store_true", help="also time `jecs select` with and without --out")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="bench-export-") as folder:
        folder = Path(folder)
        source = folder / "scores.csv"
        write_table(score_frame(args.n, args.m, args.k), source)
        table = jc.load_scores(source)
        comparison = jc.compare_methods(table, alpha=0.1)
        frame = selection_frame(table, comparison)
        print(f"n = {args.n:,} test, m = {args.m:,} calibration, K = {args.k}; export frame {frame.shape[0]:,} x "
              f"{frame.shape[1]}; {os.cpu_count()} CPU(s), median of {args.repeats} runs")
        export = timed(lambda: jc.write_selection(folder / "sel.csv", table, comparison), args.repeats)
        pandas = timed(lambda: frame.to_csv(folder / "plain.csv", index=False), args.repeats)
        same = (folder / "sel.csv").read_bytes() == (folder / "plain.csv").read_bytes()
        print(f"export (write_selection: frame, safe cells, CSV + JSON, atomic)  {export:8.2f} s")
        print(f"pandas DataFrame.to_csv of the same frame (baseline)            {pandas:8.2f} s")
        print(f"ratio export / pandas = {export / pandas:.3f}   CSV bytes identical to pandas: {same}")
        if args.cli:
            for name, seconds in cli_times(source, folder / "cli.csv").items():
                print(f"jecs select ({name}): {seconds:.2f} s")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
