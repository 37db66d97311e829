"""``jecs select --out`` end to end against a minimal job, with peak memory.

The minimal job reads the same CSV with pyarrow, computes the default rule's
p-values and selection with jecs_core, and writes the columns the export writes
(item id, selection, max-p, per-model p-values, member labels) with pyarrow's CSV
writer.  Both run as fresh processes, interleaved round by round; the ratio is
the median of the per-round wall-time ratios (the jobs take each place in the order in
turn, the disk synced before each); CPU seconds (user + system, all
threads) and their ratio are printed beside it, as a loaded machine disturbs them less.  Peak memory is each process's
maximum resident set size, set against the in-memory size of the input table
(as pyarrow holds it).  The same command on an 80-row copy of the table measures what every run
holds whatever its input (the interpreter and its libraries); each peak above that one is printed
against the input too.

Run:  python benchmarks/bench_select_cli.py [--n 1000000] [--m 100000] [--k 16] [--rounds 3]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bytecode import compile_packages  # noqa: E402

# The process's own high-water mark (VmHWM, KiB). Not ru_maxrss: a child started by vfork + exec
# (as subprocess does) inherits the parent's peak in it, so every job would read at least the
# peak of this script, which built the whole table to write the file.
PEAK = """
import resource, sys
try:
    peak = next(int(line.split()[1]) for line in open('/proc/self/status') if line.startswith('VmHWM:'))
except (OSError, StopIteration):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print('PEAK', peak, file=sys.stderr)
"""

JECS = """
import sys, jecs_cli
sys.argv = ["jecs", "select", {src!r}, "--out", {out!r}, "--no-diagnostics"]
code = jecs_cli.main()  # as the console script runs it
"""

MINIMAL = """
import numpy as np, pyarrow as pa, pyarrow.compute as pc, pyarrow.csv as pv
import jecs_core as jc
table = pv.read_csv({src!r})
models = [c[len("score_"):] for c in table.column_names if c.startswith("score_")]
is_test = pc.equal(table["split"], "test")
test, cal = table.filter(is_test), table.filter(pc.invert(is_test))
scores = lambda t: np.column_stack([t["score_" + m].to_numpy() for m in models])
p = jc.conformal_pvalues(scores(test), scores(cal))
chosen = jc.select(p, alpha=0.1)
columns = {{"item_id": test["item_id"], "selected": chosen.selected.astype(np.int8), "p_max": p.max(axis=1)}}
columns.update({{"p_" + m: p[:, k] for k, m in enumerate(models)}})
columns.update({{"member_" + m: test["member_" + m] for m in models if "member_" + m in test.column_names}})
pv.write_csv(pa.table(columns), {out!r})
"""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(code: str, tree: Path = ROOT) -> tuple[float, int, float]:
    """Wall seconds, peak resident bytes and CPU seconds (user + system, every thread) of one fresh process in ``tree``."""
    start, start_cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run([sys.executable, "-c", code + "\n" + PEAK], cwd=tree, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(tree)})
    seconds, cpu = time.perf_counter() - start, _children_cpu() - start_cpu
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    peak_kib = int(next(line for line in done.stderr.splitlines() if line.startswith("PEAK")).split()[1])
    return seconds, peak_kib * 1024, cpu


@contextlib.contextmanager
def score_file(n: int, m: int, k: int):
    """A wide CSV score table in a temporary folder: yields its path and a description (its size, and
    ``in_memory``: its bytes as pyarrow holds it, the figure peaks are set against)."""
    import pyarrow.csv as pv
    from bench_export import score_frame

    from jecs_core.io import write_table

    with tempfile.TemporaryDirectory() as tmp:
        src = str(Path(tmp) / "scores.csv")
        write_table(score_frame(n, m, k), src)
        in_memory = pv.read_csv(src).nbytes
        text = (f"input: {n:,} test + {m:,} calibration rows, K = {k}; CSV {os.path.getsize(src) / 2**20:.0f} MiB, "
                f"{in_memory / 2**20:.0f} MiB in memory (pyarrow)")
        yield src, {"text": text, "in_memory": in_memory}


def interleaved(jobs: dict, rounds: int) -> dict:
    """Run each job (name -> (tree, code)) once a round, each taking each place in turn; per job its
    wall seconds, peak bytes and CPU seconds, and the load average after each round (under ``None``).
    Each tree's bytecode is written first, as an installed copy has it (``bytecode.py``)."""
    compile_packages(*{tree for tree, _ in jobs.values()})
    timings = {name: {"wall": [], "peak": [], "cpu": []} for name in jobs}
    loads, names = [], list(jobs)
    for round_ in range(rounds):
        # The disk is synced first: a job writing hundreds of MB would otherwise slow whichever job comes next.
        for name in names[round_ % len(names):] + names[: round_ % len(names)]:
            os.sync()
            seconds, rss, cpu_seconds = run(jobs[name][1], jobs[name][0])
            for key, value in (("wall", seconds), ("peak", rss), ("cpu", cpu_seconds)):
                timings[name][key].append(value)
        loads.append(os.getloadavg()[0])
    return {**timings, None: loads}


def print_table(timings: dict, *, base: str, base_word: str, in_memory: int, fixed: str | None = None) -> None:
    """Median wall and CPU seconds, their per-round ratios against ``base``, and peak memory against the input;
    with ``fixed`` (a job on a tiny table: the interpreter and its libraries), also each peak above that job's."""
    extra = f"{'above fixed':>13}" if fixed else ""
    print(f"{'job':<36}{'median s':>10}{base_word:>11}{'cpu s':>8}{'cpu x':>7}{'peak MiB':>10}{'x input':>9}{extra}")
    for name, job in timings.items():
        if name is None:
            continue
        ratio = statistics.median(w / b for w, b in zip(job["wall"], timings[base]["wall"]))
        cpu_ratio = statistics.median(c / b for c, b in zip(job["cpu"], timings[base]["cpu"]))
        top = max(job["peak"])
        above = f"{(top - max(timings[fixed]['peak'])) / in_memory:>12.2f}x" if fixed and name != fixed else ""
        print(f"{name:<36}{statistics.median(job['wall']):>10.2f}{ratio:>11.2f}{statistics.median(job['cpu']):>8.2f}"
              f"{cpu_ratio:>7.2f}{top / 2**20:>10.0f}{top / in_memory:>9.2f}{above}")
    print(f"load average (1 min) during the rounds: {min(timings[None]):.2f} to {max(timings[None]):.2f}")


def file_parser(description: str, *, rounds: int) -> argparse.ArgumentParser:
    """A parser with the size of :func:`score_file`'s table (``--n``, ``--m``, ``--k``) and ``--rounds``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--m", type=int, default=100_000)
    parser.add_argument("--k", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=rounds)
    return parser


def compare_on_file(args, make_jobs, *, base: str, base_word: str, note: str = "", fixed: str | None = None) -> None:
    """Build the table file, run ``make_jobs(src)``'s jobs interleaved on it and print the table against ``base``."""
    with score_file(args.n, args.m, args.k) as (src, describe):
        timings = interleaved(make_jobs(src), args.rounds)
    print(f"{describe['text']}; {args.rounds} interleaved rounds{note}")
    print_table(timings, base=base, base_word=base_word, in_memory=describe["in_memory"], fixed=fixed)


def tiny_copy(src: str, rows: int = 40) -> str:
    """The header and the first ``rows`` calibration and test rows of the CSV ``src``, beside it: the same
    command on it measures the interpreter and its libraries (the fixed part of every peak)."""
    import pandas as pd

    found = {"calibration": [], "test": []}
    for chunk in pd.read_csv(src, dtype={"item_id": str}, chunksize=10_000):  # read only until both splits are in
        for split, parts in found.items():
            parts.append(chunk[chunk["split"] == split].head(rows))
        if all(sum(map(len, parts)) >= rows for parts in found.values()):
            break
    tiny = pd.concat([pd.concat(parts).head(rows) for parts in found.values()])
    out = str(Path(src).with_name("tiny.csv"))
    tiny.to_csv(out, index=False)
    return out


def main(argv=None) -> int:
    parser = file_parser(__doc__.splitlines()[0], rounds=3)
    parser.add_argument("--other-tree", type=Path, default=None,
                        help="also time jecs select from another checkout (e.g. `git archive <commit> | tar -x -C DIR`)")
    args = parser.parse_args(argv)

    def jobs(src: str) -> dict:
        tmp = Path(src).parent
        found = {"jecs select --out": (ROOT, JECS.format(src=src, out=str(tmp / "sel.csv"))),
                 "minimal job (baseline)": (ROOT, MINIMAL.format(src=src, out=str(tmp / "min.csv"))),
                 "jecs select, 80-row table (fixed)": (ROOT, JECS.format(src=tiny_copy(src), out=str(tmp / "tiny_sel.csv")))}
        if args.other_tree is not None:
            found["jecs select, other tree"] = (args.other_tree.resolve(), JECS.format(src=src, out=str(tmp / "old.csv")))
        return found

    compare_on_file(args, jobs, base="minimal job (baseline)", base_word="x minimal",
                    fixed="jecs select, 80-row table (fixed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
