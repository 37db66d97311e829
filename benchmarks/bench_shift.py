"""Calibration shift: validity and power of covariate-aware selection, and the shift check.

On fresh tables of each shift scenario (``jecs_core.simulate.shift_scenarios``) it
computes four p-value matrices -- plain conformal (the baseline, same process),
weighted, residual, and the ``auto`` rule -- runs every registered rule that claims a
guarantee (the default ``jecs_core.DEFAULT_METHOD`` among them) on each, and scores them with
the member labels.  It also runs the shift check on every table and reports how often
it flags the table.

    python benchmarks/bench_shift.py [--reps 200] [--alpha 0.1] [--workers N] [--check-permutations 19] [--check-folds 2]

The check's settings are lighter than the library's defaults (5 folds, 199 permutations) to
keep 1000 tables affordable; its p-value is exact for any number of permutations (with 19 and
level 0.05 the exact level is 1/20).

Power ratios are against the plain p-values under the same rule on the same tables.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pandas as pd

import jecs_core as jc
from jecs_core.shift import shift_check, shift_pvalues
from jecs_core.simulate.shift_scenarios import SHIFT_SCENARIOS

PVALUES = ("plain", "weighted", "residual", "auto")
# Every registered rule that claims a guarantee (finite-sample or asymptotic), the default first.
RULES = tuple(dict.fromkeys([jc.DEFAULT_METHOD] + [name for name, rule in jc.REGISTRY.items()
                                                   if rule.guarantee is not jc.Guarantee.INVALID]))
# name -> (generator name, parameters)
CASES = {
    "shift_location": ("shift_location", {}),
    "shift_scale": ("shift_scale", {}),
    "shift_mixture": ("shift_mixture", {}),
    "shift_curved (linear model wrong)": ("shift_curved", {}),
    "none (covariate moves scores)": ("shift_none", {}),
    "none (irrelevant covariate)": ("shift_none", {"beta": 0.0}),
}


def _arrays(frame: pd.DataFrame):
    cal, test = frame[frame.split == "calibration"], frame[frame.split == "test"]
    sc = [c for c in frame if c.startswith("score_")]
    xc = [c for c in frame if c.startswith("x_")]
    mc = [c for c in frame if c.startswith("member_")]
    return (test[sc].to_numpy(), cal[sc].to_numpy(), test[xc].to_numpy(), cal[xc].to_numpy(),
            test[mc].to_numpy().any(axis=1), tuple(c[2:] for c in xc))


def one_table(job: tuple) -> list[dict]:
    """All p-value kinds x rules on one fresh table, plus the shift check."""
    case, seed, alpha, permutations, level, folds = job
    generator_name, params = CASES[case]
    rng = np.random.default_rng(seed)
    test, cal, tX, cX, contaminated, names = _arrays(SHIFT_SCENARIOS[generator_name][1](rng, **params))
    check = shift_check(tX, cX, names=names, n_folds=folds, n_permutations=permutations, level=level, rng=rng)
    rows = []
    for kind in PVALUES:
        result = shift_pvalues(test, cal, tX, cX, method="none" if kind == "plain" else kind)
        ess = result.ratio.ess_fraction if result.ratio is not None else np.nan
        for rule in RULES:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # JECS's fallback warning, counted elsewhere
                selected = jc.select(result.pvalues, alpha=alpha, method=rule).selected
            rows.append({"case": case, "seed": seed, "pvalues": kind, "rule": rule,
                         "used": result.method, "ess_fraction": ess, "gcp": jc.gcp(selected, contaminated),
                         "power": jc.power(selected, contaminated), "flagged": check.shifted, "check_auc": check.auc})
    return rows


def summarise(frame: pd.DataFrame, alpha: float) -> pd.DataFrame:
    grouped = frame.groupby(["case", "rule", "pvalues"], sort=False)
    out = grouped.agg(gcp=("gcp", "mean"), gcp_sd=("gcp", "std"), power=("power", "mean"), power_sd=("power", "std"),
                      reps=("gcp", "size"), ess_fraction=("ess_fraction", "mean"),
                      residual_share=("used", lambda u: float(np.mean(u == "residual")))).reset_index()
    out["gcp_se"] = out.pop("gcp_sd") / np.sqrt(out["reps"])
    out["power_se"] = out.pop("power_sd") / np.sqrt(out["reps"])
    out["over_alpha"] = out["gcp"] > alpha + 2 * out["gcp_se"]
    plain = out[out.pvalues == "plain"].set_index(["case", "rule"])["power"]
    out["power_vs_plain"] = [p / plain[(c, r)] if plain[(c, r)] > 0 else np.nan
                             for c, r, p in zip(out["case"], out["rule"], out["power"])]
    return out


def check_rates(frame: pd.DataFrame) -> pd.DataFrame:
    tables = frame.drop_duplicates(["case", "seed"])
    return tables.groupby("case", sort=False).agg(flag_rate=("flagged", "mean"), mean_auc=("check_auc", "mean"),
                                                  tables=("seed", "size")).reset_index()


def markdown(summary: pd.DataFrame, rates: pd.DataFrame) -> str:
    lines = ["| scenario | rule | p-values | GCP ± SE | power ± SE | power / plain | ESS share | residual used |",
             "|---|---|---|---|---|---|---|---|"]
    for r in summary.itertuples():
        flag = " †" if r.over_alpha else ""
        ess = "" if np.isnan(r.ess_fraction) else f"{r.ess_fraction:.2f}"
        used = f"{r.residual_share:.0%}" if r.pvalues == "auto" else ""
        lines.append(f"| {r.case} | {r.rule} | {r.pvalues} | {r.gcp:.3f} ± {r.gcp_se:.3f}{flag} | "
                     f"{r.power:.3f} ± {r.power_se:.3f} | {r.power_vs_plain:.2f} | {ess} | {used} |")
    lines += ["", "| scenario | shift check flags | mean cross-fitted AUC | tables |", "|---|---|---|---|"]
    lines += [f"| {r.case} | {r.flag_rate:.3f} | {r.mean_auc:.3f} | {r.tables} |" for r in rates.itertuples()]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--alpha", type=float, default=0.1)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--check-permutations", type=int, default=19)
    parser.add_argument("--check-folds", type=int, default=2)
    parser.add_argument("--check-level", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="also write the per-table rows (CSV)")
    args = parser.parse_args(argv)
    jobs = [(case, args.seed * 100_000 + i * 10_000 + r, args.alpha, args.check_permutations, args.check_level,
             args.check_folds)
            for i, case in enumerate(CASES) for r in range(args.reps)]
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        rows = []
        for done, batch in enumerate(pool.map(one_table, jobs, chunksize=4), start=1):
            rows.extend(batch)
            if done % 100 == 0:
                print(f"{done}/{len(jobs)} tables, {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    frame = pd.DataFrame(rows)
    if args.out:
        frame.to_csv(args.out, index=False)
    print(f"default rule = {jc.DEFAULT_METHOD}; rules = {', '.join(RULES)}; alpha = {args.alpha}; {args.reps} fresh tables per scenario; "
          f"shift check: {args.check_folds}-fold, {args.check_permutations} permutations, level {args.check_level}; "
          f"{time.perf_counter() - start:.0f} s on {args.workers} worker(s)\n")
    print(markdown(summarise(frame, args.alpha), check_rates(frame)))
    print("\n† = mean GCP above alpha + 2 SE; SE = std / sqrt(reps) (ddof = 1)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
