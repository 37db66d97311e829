"""``load_scores`` on a large wide CSV: the chunked reads against the whole-file read, with peak memory.

Three jobs run as fresh processes on the same file, interleaved round by round: the chunked read
as ``load_scores`` takes it (Arrow's lane for a plain table), the same with Arrow's lane turned off
(pandas' chunked reader), and the whole-file read, forced by raising
``jecs_core._csv_chunks.CHUNKED_FROM_BYTES`` above the file's size. Peak memory
is each process's maximum resident set size, set against the input's in-memory size as pyarrow
holds it (the figure ``bench_select_cli.py`` uses).

With ``--late-repeat`` the file's last row repeats its first test row (a repeated id the contract
refuses), with ``--late-text`` its last row's first score is ``abc``: the jobs time the way to the error instead, as ``load_scores`` takes it (Arrow's lane, then
the whole-file read that words the problem), with the pandas lane tried in between (Arrow's refusal
treated as "not for this lane"), and the whole-file read alone.

Run:  python benchmarks/bench_load.py [--n 1000000] [--m 100000] [--k 16] [--rounds 5] [--late-repeat | --late-text]
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

LOAD = """
import jecs_core._csv_chunks as chunks
from jecs_core import ScoreTableError, load_scores
if {whole}:
    chunks.CHUNKED_FROM_BYTES = 2**62
if {pandas_lane}:
    chunks.read_plain_wide_csv = lambda *args, **kwargs: None
if {through_pandas}:
    import jecs_core._csv_arrow as arrow
    def plain_or_none(*args, real=chunks.read_plain_wide_csv, **kwargs):
        try:
            return real(*args, **kwargs)
        except arrow.Breach:
            return None
    chunks.read_plain_wide_csv = plain_or_none
try:
    table = load_scores({src!r})
except ScoreTableError:
    assert {refused}
else:
    assert not {refused} and table.n == {n}
"""


def _append_a_late_row(src: str, *, text_score: bool) -> None:
    """Append a copy of the file's first test row: as it is (its id then appears twice), or under a new
    id with its first score the text ``abc``."""
    with open(src, encoding="utf-8") as handle:
        row = next(line for line in handle if line.split(",")[1] == "test")
    if text_score:
        cells = row.split(",")
        row = ",".join(["late-text", cells[1], "abc", *cells[3:]])
    with open(src, "a", encoding="utf-8") as handle:
        handle.write(row)


def main(argv=None) -> int:
    from bench_select_cli import compare_on_file, file_parser

    parser = file_parser(__doc__.splitlines()[0], rounds=5)
    late = parser.add_mutually_exclusive_group()
    late.add_argument("--late-repeat", action="store_true", help="time the way to the error on a late repeated id")
    late.add_argument("--late-text", action="store_true", help="time the way to the error on a late text score")
    args = parser.parse_args(argv)

    def job(src: str, *, whole=False, pandas_lane=False, through_pandas=False) -> tuple:
        return ROOT, LOAD.format(whole=whole, pandas_lane=pandas_lane, through_pandas=through_pandas, src=src,
                                 n=args.n, refused=args.late_repeat or args.late_text)

    def jobs(src: str) -> dict:
        if not (args.late_repeat or args.late_text):
            return {"chunked read": job(src), "chunked, pandas lane only": job(src, pandas_lane=True),
                    "whole-file read (baseline)": job(src, whole=True)}
        _append_a_late_row(src, text_score=args.late_text)
        return {"Arrow lane, then whole": job(src), "Arrow, pandas, then whole": job(src, through_pandas=True),
                "whole-file read (baseline)": job(src, whole=True)}

    compare_on_file(args, jobs, base="whole-file read (baseline)", base_word="x whole",
                    note="; each job is a fresh process" + ("; the last row repeats an id" if args.late_repeat else
                                                            "; the last row's first score is text" if args.late_text else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
