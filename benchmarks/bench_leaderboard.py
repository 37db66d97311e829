"""Time ``jecs leaderboard`` against ``jecs select`` on the same score table.

n = 1,000,000 test items, m = 100,000 calibration items, K = 16 models (members shifted by 4 standard
deviations, 10% per model, as in bench_select.py), and a 0/1 result per test item and model.  Both files
are Parquet (wide layout).  Each round runs the two commands through the real command line (``jecs_cli.main``:
reading, selecting, printing, and for the leaderboard reading the results, the intervals, the post-hoc range and
the 120 pairwise tests), one after the other, and the printed ratio is the median of the per-round ratios of wall
time, so a busy shared machine slows both alike.  The same comparison in memory (``compare_methods`` + the
post-hoc bound against ``leaderboard``) is printed beside it.

Target: the leaderboard within 2x the time of ``jecs select``.

A graded metric (``--metric f1``, an F1-like value on a 1/20 lattice) is timed the same way at K = 16 on two
smaller tables with 2% members per model: ``--graded-n`` test items (45,000: the bootstrap intervals), and 800 test items (every pair has
at most 1,000 nonzero differences, so its sign-flip test runs 23,999 Monte Carlo draws, the family's
:func:`~jecs_core.leaderboard.pairwise.signflip_draws`).

Run:  python benchmarks/bench_leaderboard.py [--n 1000000] [--m 100000] [--k 16] [--rounds 3] [--graded-n 45000]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jecs_cli import main as jecs  # noqa: E402
from jecs_core import compare_methods, load_results, load_scores, post_hoc_bound  # noqa: E402
from jecs_core.leaderboard import leaderboard  # noqa: E402


def write_inputs(directory: Path, n: int, m: int, k: int, seed: int = 0, graded: bool = False) -> tuple[Path, Path]:
    rng = np.random.default_rng(seed)
    members = rng.random((n, k)) < (0.02 if graded else 0.1)  # graded: most items clean of all 16 models
    models = [f"model{j:02d}" for j in range(k)]
    ids = np.r_[np.char.add("c", np.arange(m).astype(str)), np.char.add("t", np.arange(n).astype(str))].astype(object)
    scores = pd.DataFrame({"item_id": ids, "split": np.r_[np.full(m, "calibration"), np.full(n, "test")].astype(object)})
    for j, name in enumerate(models):
        scores[f"score_{name}"] = np.r_[4 + rng.standard_normal(m), 4 * members[:, j] + rng.standard_normal(n)]
    skill = np.linspace(0.4, 0.8, k)
    results = pd.DataFrame({"item_id": ids[m:]})
    for j, name in enumerate(models):
        if graded:  # an F1 of short answers: a few levels, 1 on a seen item
            value = np.round(np.clip(rng.normal(skill[j], 0.25, n), 0, 1) * 20) / 20
            results[f"f1_{name}"] = np.where(members[:, j], 1.0, value)
        else:
            results[f"correct_{name}"] = (members[:, j] | (rng.random(n) < skill[j])).astype(np.int8)
    paths = directory / "scores.parquet", directory / "results.parquet"
    scores.to_parquet(paths[0], index=False)
    results.to_parquet(paths[1], index=False)
    return paths


def timed(fn) -> float:
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = fn()
    if code not in (None, 0) and not hasattr(code, "frame"):
        raise SystemExit(f"a timed command failed with exit code {code}")
    return time.perf_counter() - start


def _select_in_memory(table, alpha: float) -> None:
    """What ``jecs select`` computes: every rule, then the post-hoc bound of the default rule's selection."""
    comparison = compare_methods(table, alpha=alpha)
    post_hoc_bound(comparison.pvalues, comparison.selected(), calibration_size=table.m)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--m", type=int, default=100_000)
    parser.add_argument("--k", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--alpha", type=float, default=0.1)
    parser.add_argument("--graded-n", type=int, default=45_000)
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        scores, results = write_inputs(Path(tmp), args.n, args.m, args.k)
        print(f"n = {args.n:,} test, m = {args.m:,} calibration, K = {args.k}, alpha = {args.alpha}, "
              f"{os.cpu_count()} CPU(s), {args.rounds} rounds (inputs written in {time.perf_counter() - start:.1f} s)")
        table, per_item = load_scores(scores), load_results(results)
        alpha = str(args.alpha)
        stages = {
            # The leaderboard runs no audit diagnostics; select skips them above 200,000 items anyway.
            "command": (lambda: jecs(["select", str(scores), "--alpha", alpha, "--no-diagnostics"]),
                        lambda: jecs(["leaderboard", str(scores), "--results", str(results), "--alpha", alpha])),
            "in memory": (lambda: _select_in_memory(table, args.alpha),
                          lambda: leaderboard(table, per_item, alpha=args.alpha)),
        }
        board = leaderboard(table, per_item, alpha=args.alpha)
        print(f"clean subset: {board.n_clean:,} items; at most {board.max_contaminated:,} contaminated (90%); "
              f"clean ranks {board.frame['rank_clean'].tolist()}")
        wall = {name: ([], []) for name in stages}
        ratios = {name: [] for name in stages}
        loads = []
        for _ in range(args.rounds):
            for name, (select_fn, board_fn) in stages.items():
                s, b = timed(select_fn), timed(board_fn)
                wall[name][0].append(s)
                wall[name][1].append(b)
                ratios[name].append(b / s)
            loads.append(os.getloadavg()[0])
    print(f"{'':<12}{'select s':>10}{'leaderboard s':>15}{'ratio':>8}")
    for name in stages:
        print(f"{name:<12}{statistics.median(wall[name][0]):>10.2f}{statistics.median(wall[name][1]):>15.2f}"
              f"{statistics.median(ratios[name]):>8.2f}")
    print(f"load average (1 min) during the rounds: {min(loads):.2f} to {max(loads):.2f}")
    target = statistics.median(ratios["command"])
    print(f"target: jecs leaderboard <= 2x jecs select -> {target:.2f}x ({'met' if target <= 2.0 else 'NOT met'})")
    for n in (args.graded_n, 800):
        graded(n, min(args.m, 10_000), args.k, args.alpha, args.rounds)
    return 0


def graded(n: int, m: int, k: int, alpha: float, rounds: int) -> None:
    """``jecs leaderboard --metric f1`` against ``jecs select`` on one table, median of the per-round ratios."""
    with tempfile.TemporaryDirectory() as tmp:
        scores, results = write_inputs(Path(tmp), n, m, k, graded=True)
        walls = []
        for _ in range(rounds):
            s = timed(lambda: jecs(["select", str(scores), "--alpha", str(alpha), "--no-diagnostics"]))
            b = timed(lambda: jecs(["leaderboard", str(scores), "--results", str(results), "--metric", "f1",
                                    "--alpha", str(alpha)]))
            walls.append((s, b))
    s, b = (statistics.median(w[i] for w in walls) for i in (0, 1))
    print(f"graded (f1), n = {n:,}, m = {m:,}, K = {k}: select {s:.2f} s, leaderboard {b:.2f} s, "
          f"ratio {statistics.median(w[1] / w[0] for w in walls):.2f}x")


if __name__ == "__main__":
    sys.exit(main())
