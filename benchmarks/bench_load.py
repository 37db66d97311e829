"""``load_scores`` on a large wide CSV: the chunked reads against the whole-file read, with peak memory.

Three jobs run as fresh processes on the same file, interleaved round by round: the chunked read
as ``load_scores`` takes it (Arrow's lane for a plain table), the same with Arrow's lane turned off
(pandas' chunked reader), and the whole-file read, forced by raising
``jecs_core._csv_chunks.CHUNKED_FROM_BYTES`` above the file's size. Peak memory
is each process's maximum resident set size, set against the input's in-memory size as pyarrow
holds it (the figure ``bench_select_cli.py`` uses).

Run:  python benchmarks/bench_load.py [--n 1000000] [--m 100000] [--k 16] [--rounds 5]
"""

from __future__ import annotations

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
if {pandas_lane}:
    chunks.read_plain_wide_csv = lambda *args, **kwargs: None
table = load_scores({src!r})
assert table.n == {n}
"""


def main(argv=None) -> int:
    from bench_select_cli import compare_on_file, file_parser

    args = file_parser(__doc__.splitlines()[0], rounds=5).parse_args(argv)
    compare_on_file(args, lambda src: {
        "chunked read": (ROOT, LOAD.format(whole=False, pandas_lane=False, src=src, n=args.n)),
        "chunked, pandas lane only": (ROOT, LOAD.format(whole=False, pandas_lane=True, src=src, n=args.n)),
        "whole-file read (baseline)": (ROOT, LOAD.format(whole=True, pandas_lane=False, src=src, n=args.n)),
    }, base="whole-file read (baseline)", base_word="x whole", note="; each job is a fresh process")
    return 0


if __name__ == "__main__":
    sys.exit(main())
