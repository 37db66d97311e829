"""``load_scores`` on a large wide CSV: the chunked read against the whole-file read, with peak memory.

Both run as fresh processes on the same file, interleaved round by round; the whole-file read is
forced by raising ``jecs_core._csv_chunks.CHUNKED_FROM_BYTES`` above the file's size. Peak memory
is each process's maximum resident set size, set against the input's in-memory size as pyarrow
holds it (the figure ``bench_select_cli.py`` uses).

Run:  python benchmarks/bench_load.py [--n 1000000] [--m 100000] [--k 16] [--rounds 5]
"""

from __future__ import annotations

import argparse
import sys
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

    from bench_select_cli import interleaved, print_table, score_file

    with score_file(args.n, args.m, args.k) as (src, describe):
        jobs = {"chunked read": (ROOT, LOAD.format(whole=False, src=src, n=args.n)),
                "whole-file read (baseline)": (ROOT, LOAD.format(whole=True, src=src, n=args.n))}
        timings = interleaved(jobs, args.rounds)
    print(f"{describe['text']}; {args.rounds} interleaved rounds; each job is a fresh process")
    print_table(timings, base="whole-file read (baseline)", base_word="x whole", in_memory=describe["in_memory"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
