"""Post-hoc bound study: simultaneous validity and tightness on the validity study's fresh tables.

For every configuration of ``validity_study.py``'s grid (plus larger tables: pool 10,000, K 8/16)
this draws fresh tables and, on each, fits the post-hoc bound at ``delta = 0.1`` once and checks
the whole family an auditor can reach: the selection of every finite-sample rule at every alpha of
the slider's grid (0.01, 0.02, ..., 0.5) and every nested top-r set of max-p (which contains the
step-up rules' selections).  A table *violates* when any of these sets holds more contaminated items
than its bound; the share of violating tables must stay within ``delta + 2 SE``.

Then the stress cases of ``posthoc_stress.py`` (mixed exposure over correlated models, all-null
tables, tiny and huge calibration sets, ties), 400 tables each.  Two bounds are checked: the shipped one (closed testing and the calibration urn, each at delta / 2,
with the calibration size m known) and closed testing alone at delta.  Tightness: at the default
rule's ``alpha = 0.1``, mean bound / |S| over tables with a selection, next to the textbook Simes
linear template ``min_k #{p_i >= delta k / n in S} + k - 1`` on the same sets, and the true share of
contaminated items.  Also recorded: Hommel's h / n (the granularity
floor of closed testing is about ``h / (delta (m + 1))`` items against ``n / (delta (m + 1))`` for
the template).

Usage::

    python benchmarks/posthoc_study.py             # full grid -> benchmarks/posthoc_study.csv + a section of docs/VALIDITY.md
    python benchmarks/posthoc_study.py --quick     # a few configurations, seconds
    python benchmarks/validity_study.py --post-hoc # the same, from the validity study
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from posthoc_stress import CASES, stress_case  # noqa: E402
from validity_study import CORRELATIONS, MODELS, PATTERNS, POOLS, SIGNALS, draw_tables  # noqa: E402

from jecs_core.posthoc import fit_post_hoc, simes_template_bound  # noqa: E402
from jecs_core.rules import DEFAULT_METHOD, REGISTRY  # noqa: E402

DELTA = 0.1
ALPHA_PATH = np.round(np.arange(0.01, 0.5001, 0.01), 2)
DEFAULT_ALPHA = 0.1
FINITE = tuple(name for name, rule in REGISTRY.items() if rule.valid)
LARGE = [(10_000, k, pattern, mu, corr) for k in (8, 16) for pattern in ("bernoulli", "single-model")
         for mu in SIGNALS for corr in CORRELATIONS]
STRONG = max(SIGNALS)
SECTION = "## Post-hoc bound (`benchmarks/posthoc_study.py`)"


def table_result(p: np.ndarray, bad: np.ndarray, m: int) -> dict:
    """Violation flags and the tightness numbers of one table, for the shipped bound (closed testing
    and the calibration urn, m known) and for closed testing alone."""
    fits = {"": fit_post_hoc(p, delta=DELTA, calibration_size=m), "ct_": fit_post_hoc(p, delta=DELTA)}
    order = np.argsort(p.max(axis=1), kind="stable")
    in_top = np.concatenate([[0], np.cumsum(bad[order])])
    out = {f"{key}top_violated": bool(np.any(in_top > fit.top_set_bounds)) for key, fit in fits.items()}
    out.update({f"{key}path_violated": False for key in fits})
    chosen = None
    for name in FINITE:
        prepared = REGISTRY[name].prepare(p)
        for alpha in ALPHA_PATH:
            mask = prepared.select(float(alpha)).selected
            found = int((mask & bad).sum())
            for key, fit in fits.items():
                out[f"{key}path_violated"] |= found > fit.bound(mask)
            if name == DEFAULT_METHOD and alpha == DEFAULT_ALPHA:
                chosen = mask
    for key in fits:
        out[f"{key}violated"] = out[f"{key}top_violated"] or out[f"{key}path_violated"]
        out[f"{key}bound"] = fits[key].bound(chosen)
    return {**out, "size": int(chosen.sum()), "template": simes_template_bound(p, chosen, delta=DELTA),
            "true": int((chosen & bad).sum()), "h_share": fits["ct_"].h / fits["ct_"].n}


def run_config(config: dict) -> dict:
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(config["seed"])
    p_all, bad = draw_tables(rng, config["tables"], config["pool"], config["K"], config["pattern"],
                             config["mu"], config["corr"])
    m = int(round(0.3 * config["pool"]))  # validity_study.labels' calibration size
    rows = pd.DataFrame([table_result(p_all[t], bad[t], m) for t in range(p_all.shape[0])])
    live = rows[rows["size"] > 0]
    return {**{k: v for k, v in config.items() if k != "seed"}, "n": p_all.shape[1], "m": m,
            "violated": rows.violated.mean(), "violated_se": np.sqrt(DELTA * (1 - DELTA) / len(rows)),
            "top_violated": rows.top_violated.mean(), "path_violated": rows.path_violated.mean(),
            "ct_violated": rows.ct_violated.mean(),
            "tables_selecting": len(live), "mean_size": live["size"].mean() if len(live) else 0.0,
            "bound_share": (live.bound / live["size"]).mean() if len(live) else np.nan,
            "ct_share": (live.ct_bound / live["size"]).mean() if len(live) else np.nan,
            "template_share": (live.template / live["size"]).mean() if len(live) else np.nan,
            "true_share": (live.true / live["size"]).mean() if len(live) else np.nan,
            "h_share": rows.h_share.mean()}


def configs(quick: bool, seed: int, tables: int) -> list[dict]:
    grid = list(itertools.product(POOLS, MODELS, PATTERNS, SIGNALS, CORRELATIONS)) + LARGE
    if quick:
        grid = [(300, 4, "single-model", 4.0, 0.9), (800, 8, "bernoulli", 2.1, 0.0), (3000, 16, "three-block", 4.0, 0.9)]
    return [{"pool": pool, "K": k, "pattern": pattern, "mu": mu, "corr": corr,
             "tables": 30 if quick else (tables if pool < 10_000 else max(100, tables // 2)),
             "seed": seed * 7_919 + i} for i, (pool, k, pattern, mu, corr) in enumerate(grid)]


def _stress(job: tuple) -> dict:
    warnings.simplefilter("ignore")
    return stress_case(*job)


def stress_lines(rows: list[dict]) -> list[str]:
    lines = ["**Stress cases beyond the grid** (`benchmarks/posthoc_stress.py`; shipped bound; family: every nested "
             "top-r set of max-p):", "", "| case | n | m | K | tables | share violating | delta + 2 SE |",
             "|---|---|---|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {row['case']} | {row['n']} | {row['m']} | {row['K']} | {row['tables']} | "
                     f"{row['violated']:.3f} | {row['limit']:.3f} |")
    return lines + [""]


def markdown(frame: pd.DataFrame, seconds: float) -> list[str]:
    over = frame.violated > DELTA + 2 * frame.violated_se
    over_ct = frame.ct_violated > DELTA + 2 * frame.violated_se
    strong = frame[(frame.mu == STRONG) & (frame.tables_selecting > 0)]
    lines = [SECTION, "",
             f"{len(frame)} configurations (the grid above plus pool 10,000 with K 8/16), "
             f"{int(frame.tables.min())}-{int(frame.tables.max())} fresh tables each; delta = {DELTA}; "
             f"the explored family per table is every alpha in 0.01..0.5 (step 0.01) of {', '.join(FINITE)} and every "
             f"nested top-r set of max-p" + ("." if seconds != seconds else f"; run time {seconds / 60:.1f} min on 2 processes (shared machine, under load)."),
             "Bounds: *shipped* = the smaller of closed testing (Simes, Hommel's h) and the calibration urn, each at "
             "delta / 2 (what `jecs select`, the sidecar and `calibration_size=m` use); *closed testing* = closed "
             "testing alone at delta (no calibration size known); *template* = the textbook Simes linear template "
             "`min_k #{p_i >= delta k / n in S} + k - 1` on the same sets.",
             "",
             f"**Validity.** Share of tables where some explored set holds more contaminated items than its bound: "
             f"shipped at most {frame.violated.max():.3f} (mean {frame.violated.mean():.4f}), above delta + 2 SE in "
             f"{int(over.sum())} of {len(frame)} configurations; closed testing alone at most "
             f"{frame.ct_violated.max():.3f} (mean {frame.ct_violated.mean():.4f}), above delta + 2 SE in "
             f"{int(over_ct.sum())} of {len(frame)}.",
             "",
             f"**Tightness at the default rule's alpha = {DEFAULT_ALPHA}** (mean of bound / size over tables with a "
             "selection; ratio = shipped / template):",
             "", "| signal mu | pattern | pool | shipped | closed testing | template | ratio | true share | h / n |",
             "|---|---|---|---|---|---|---|---|---|"]
    table = frame[frame.tables_selecting > 0].groupby(["mu", "pattern", "pool"])[
        ["bound_share", "ct_share", "template_share", "true_share", "h_share"]].mean().reset_index()
    for row in table.itertuples():
        lines.append(f"| {row.mu} | {row.pattern} | {row.pool} | {row.bound_share:.3f} | {row.ct_share:.3f} | "
                     f"{row.template_share:.3f} | {row.bound_share / row.template_share:.2f} | {row.true_share:.3f} | "
                     f"{row.h_share:.2f} |")
    per_config = strong.bound_share / strong.template_share
    per_config_ct = strong.ct_share / strong.template_share
    lines += ["", f"Strong signal (mu = {STRONG}, {len(strong)} configurations with a selection): mean bound / size "
              f"{strong.bound_share.mean():.3f} shipped, {strong.ct_share.mean():.3f} closed testing alone, "
              f"{strong.template_share.mean():.3f} template; ratio shipped / template "
              f"{strong.bound_share.mean() / strong.template_share.mean():.2f} (per configuration: median "
              f"{per_config.median():.2f}, worst {per_config.max():.2f}, at most 0.9 in {int((per_config <= 0.9).sum())}, "
              f"at most 0.6 in {int((per_config <= 0.6).sum())}); closed testing alone / template "
              f"{strong.ct_share.mean() / strong.template_share.mean():.2f} (worst {per_config_ct.max():.2f}).", ""]
    return lines


def write_section(path: Path, lines: list[str]) -> None:
    """Replace (or append) the post-hoc section of ``path``, keeping the rest as the validity study wrote it."""
    text = path.read_text() if path.exists() else ""
    head = text.split(SECTION)[0].rstrip("\n")
    path.write_text((head + "\n\n" if head else "") + "\n".join(lines))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="three configurations, 30 tables each (seconds)")
    parser.add_argument("--tables", type=int, default=200, help="fresh tables per configuration (default 200)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=20261123)
    parser.add_argument("--markdown", type=Path, default=None, help="default docs/VALIDITY.md (none in --quick)")
    args = parser.parse_args(argv)
    jobs = configs(args.quick, args.seed, args.tables)
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        rows = []
        for i, row in enumerate(pool.map(run_config, jobs), 1):
            rows.append(row)
            if i % 32 == 0:
                print(f"{i}/{len(jobs)} configurations, {time.perf_counter() - start:.0f} s", flush=True)
        stress = list(pool.map(_stress, [(name, 60 if args.quick else 400, args.seed + i, DELTA)
                                         for i, name in enumerate(CASES)]))
    seconds = time.perf_counter() - start
    frame = pd.DataFrame(rows)
    frame.to_csv(ROOT / "benchmarks" / ("posthoc_study_quick.csv" if args.quick else "posthoc_study.csv"), index=False)
    lines = markdown(frame, seconds) + stress_lines(stress)
    print("\n".join(lines))
    target = args.markdown or (None if args.quick else ROOT / "docs" / "VALIDITY.md")
    if target is not None:
        write_section(target, lines)
    print(f"{len(jobs)} configurations in {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
