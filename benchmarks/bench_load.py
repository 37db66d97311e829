"""``load_scores`` on a large wide CSV: the chunked read against the whole-file read, with peak memory.

Both run as fresh processes on the same file, interleaved round by round; the whole-file read is
forced by raising ``jecs_core._csv_chunks.CHUNKED_FROM_BYTES`` above the file's size. Peak memory
is each process's maximum resident set size, set against the input's in-memory size as pyarrow
holds it (the figure ``bench_select_cli.py`` uses).

Run:  python benchmarks/bench_load.py [--n 1000000] [--m 100000] [--k 16] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

LOAD = """
import jecs_core._csv_chunks as chunks
from jecs_core import load_scores
if {whole}:
    chunks.CHUNKED_FROM_BYTES = 2**62
table = load_scores({src!r})
assert table.n == {n}
"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--m", type=int, default=100_000)
    parser.add_argument("--k", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)

    import pyarrow.csv as pv
    from bench_export import score_frame
    from bench_select_cli import run

    from jecs_core.io import write_table

    with tempfile.TemporaryDirectory() as tmp:
        src = str(Path(tmp) / "scores.csv")
        write_table(score_frame(args.n, args.m, args.k), src)
        in_memory = pv.read_csv(src).nbytes
        jobs = {"chunked read": LOAD.format(whole=False, src=src, n=args.n),
                "whole-file read (baseline)": LOAD.format(whole=True, src=src, n=args.n)}
        wall, peak, cpu = ({name: [] for name in jobs} for _ in range(3))
        loads = []
        for _ in range(args.rounds):
            for name, code in jobs.items():
                seconds, rss, cpu_seconds = run(code)
                wall[name].append(seconds)
                peak[name].append(rss)
                cpu[name].append(cpu_seconds)
            loads.append(os.getloadavg()[0])
        size = os.path.getsize(src)
    base = "whole-file read (baseline)"
    print(f"input: {args.n:,} test + {args.m:,} calibration rows, K = {args.k}; CSV {size / 2**20:.0f} MiB, "
          f"{in_memory / 2**20:.0f} MiB in memory (pyarrow); {args.rounds} interleaved rounds; each job is a fresh process")
    print(f"{'job':<28}{'median s':>10}{'x whole':>9}{'cpu s':>8}{'cpu x':>7}{'peak MiB':>10}{'x input':>9}")
    for name in jobs:
        ratio = statistics.median(w / b for w, b in zip(wall[name], wall[base]))
        cpu_ratio = statistics.median(c / b for c, b in zip(cpu[name], cpu[base]))
        top = max(peak[name])
        print(f"{name:<28}{statistics.median(wall[name]):>10.2f}{ratio:>9.2f}{statistics.median(cpu[name]):>8.2f}"
              f"{cpu_ratio:>7.2f}{top / 2**20:>10.0f}{top / in_memory:>9.2f}")
    print(f"load average (1 min) during the rounds: {min(loads):.2f} to {max(loads):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
