"""Validity study: unconditional GCR and power of every selection rule on fresh tables.

Grid (256 configurations): pool 300/800/1200/3000 x K 2/4/8/16 x contamination
(bernoulli / three-block / heterogeneous / single-model) x signal mu 2.1/4 x
cross-model noise correlation 0/0.9.  Each configuration draws fresh tables
(calibration set and test set new every time), computes conformal p-values and
runs every rule at alpha in {0.05, 0.1, 0.2, 0.3}.  GCR is the mean GCP over
tables (SE = sd / sqrt(tables)); power is the mean share of pure items selected.

Table generators (kept simple, vectorised over tables; calibration = 30% of the pool,
members of every model; scores ``T = mu M + e`` with ``e = sqrt(r) Z_item + sqrt(1-r) eps``):

* bernoulli: test labels ``M_ik ~ Bernoulli(0.3)`` i.i.d. (the paper's setup);
* three-block: clean block 30% (pure), remainder 40% where each model takes an
  independent 12.5% (the paper's evaluation split);
* heterogeneous: ``M_ik ~ Bernoulli(q_k)`` with ``q_k`` evenly spaced in [0.05, 0.5];
* single-model: only model 0 trained on test items, ``M_i0 ~ Bernoulli(0.3)``.

Rules: every registered rule (``jecs_core.REGISTRY``: Storey-BH on max-p with the corrected
cap (proposed default), the paper's JECS, JMCS, union, intersection) through ``Rule.prepare(...).select(alpha)``,
the unregistered windowed JECS (``jecs_core.rules.windowed``), ``storey-capped``:
Storey-BH on max-p with ``pi0 = min(1, (1 + #{p* > 0.5}) / (n 0.5))`` (the textbook cap), the reference,
``storey-capped-c``: the capped rule at ``alpha / cap_correction(n)`` (a research variant), and
``storey-uncapped``: the "+1" estimate with no cap (Storey, Taylor & Siegmund's finite-sample form).

Usage::

    python benchmarks/validity_study.py            # full grid -> benchmarks/validity_study.csv + docs/VALIDITY.md
    python benchmarks/validity_study.py --quick    # a few configs, seconds (CI; with --duplicates: 200 tables a case)
    python benchmarks/validity_study.py --post-hoc # the post-hoc bound on the same grid (benchmarks/posthoc_study.py)
    python benchmarks/validity_study.py --duplicates --markdown docs/VALIDITY.md  # duplicated items (cluster_study.py)
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
from scipy.stats import binom

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from jecs_core.rules import REGISTRY  # noqa: E402
from jecs_core.rules.windowed import RULE as WINDOWED  # noqa: E402

# Registered rules plus the windowed research variant (valid under convexity, not registered).
RULES = {**REGISTRY, WINDOWED.name: WINDOWED}

ALPHAS = (0.05, 0.1, 0.2, 0.3)
POOLS = (300, 800, 1200, 3000)
MODELS = (2, 4, 8, 16)
PATTERNS = ("bernoulli", "three-block", "heterogeneous", "single-model")
SIGNALS = (2.1, 4.0)
CORRELATIONS = (0.0, 0.9)
STOREY = "storey-capped"
CAPPED_C = "storey-capped-c"
UNCAPPED = "storey-uncapped"  # Storey, Taylor & Siegmund's finite-sample "+1" form, no cap


def labels(rng, tables: int, pool: int, n_models: int, pattern: str):
    """Membership labels (tables, n, K) and the calibration size."""
    m = int(round(0.3 * pool))
    if pattern == "three-block":
        clean, rest = m, pool - 2 * m
        members = np.zeros((tables, clean + rest, n_models), dtype=bool)
        members[:, clean:] = rng.random((tables, rest, n_models)) < 0.125
        return members, m
    n = pool - m
    if pattern == "bernoulli":
        return rng.random((tables, n, n_models)) < 0.3, m
    if pattern == "heterogeneous":
        return rng.random((tables, n, n_models)) < np.linspace(0.05, 0.5, n_models), m
    if pattern == "single-model":
        members = np.zeros((tables, n, n_models), dtype=bool)
        members[:, :, 0] = rng.random((tables, n)) < 0.3
        return members, m
    raise ValueError(f"pattern must be one of {PATTERNS}, got {pattern!r}")


def conformal_batch(cal: np.ndarray, test: np.ndarray) -> np.ndarray:
    """Conformal p-values ``(1 + #{cal <= test}) / (m + 1)`` for a batch of tables."""
    tables, m, n_models = cal.shape
    n = test.shape[1]
    # One global searchsorted: shift each (table, model) block far apart so the
    # concatenation of the sorted calibration columns is itself sorted.
    block = (np.arange(tables)[:, None] * n_models + np.arange(n_models)[None, :]).astype(float)
    span = 2.0 * (np.abs(cal).max() + np.abs(test).max() + 1.0)
    ref = (np.sort(cal, axis=1) + span * block[:, None, :]).transpose(0, 2, 1).ravel()
    query = (test + span * block[:, None, :]).transpose(0, 2, 1).ravel()
    counts = np.searchsorted(ref, query, side="right").reshape(tables, n_models, n)
    counts = counts - (block * m).astype(np.int64)[:, :, None]
    return ((counts + 1.0) / (m + 1)).transpose(0, 2, 1)


def draw_tables(rng, tables: int, pool: int, n_models: int, pattern: str, mu: float, corr: float):
    """(p-values (tables, n, K), contaminated mask (tables, n))."""
    members, m = labels(rng, tables, pool, n_models, pattern)

    def noise(rows: int) -> np.ndarray:
        shared = rng.standard_normal((tables, rows, 1))
        return np.sqrt(corr) * shared + np.sqrt(1 - corr) * rng.standard_normal((tables, rows, n_models))

    cal = mu + noise(m)
    test = mu * members + noise(members.shape[1])
    return conformal_batch(cal, test), members.any(axis=2)


def batch_step_up(values: np.ndarray, alpha: float, multiplier: np.ndarray) -> np.ndarray:
    """BH-type step-up along axis 1 of ``values`` (tables, n, ...), cut-offs ``alpha r multiplier``."""
    n = values.shape[1]
    ordered = np.sort(values, axis=1)
    shape = (1, n) + (1,) * (values.ndim - 2)
    passing = ordered <= alpha * np.arange(1, n + 1).reshape(shape) * multiplier[:, None]
    r_star = np.where(passing.any(axis=1), n - np.argmax(passing[:, ::-1], axis=1), 0)
    cut = np.take_along_axis(ordered, np.maximum(r_star - 1, 0)[:, None], axis=1)[:, 0]
    return np.where(r_star[:, None] > 0, values <= cut[:, None], False)


def batch_rules(p_all: np.ndarray, alpha: float) -> dict[str, np.ndarray]:
    """Vectorised over tables: JMCS, union, intersection and storey-capped (selections (tables, n))."""
    tables, n, n_models = p_all.shape
    p_star = p_all.max(axis=2)
    per_model = batch_step_up(p_all, alpha, np.full((tables, n_models), 1.0 / n))
    pi0 = np.minimum(1.0, (1 + (p_star > 0.5).sum(axis=1)) / (n * 0.5))
    return {"jmcs": batch_step_up(p_star, alpha, np.full(tables, 1.0 / n)),
            "union": per_model.any(axis=2), "intersection": per_model.all(axis=2),
            STOREY: batch_step_up(p_star, alpha, 1.0 / (n * pi0)),
            CAPPED_C: batch_step_up(p_star, alpha, 1.0 / (n * pi0 * cap_correction(n))),
            UNCAPPED: batch_step_up(p_star, alpha, 1.0 / ((1 + (p_star > 0.5).sum(axis=1)) * 2.0))}


def cap_correction(n: int, lam: float = 0.5) -> float:
    """``E[max(n (1 - lam) / (1 + B), 1)]``, ``B ~ Binomial(n - 1, 1 - lam)``.

    The factor by which capping Storey's estimate at 1 can inflate the GCR bound when
    every item is null with uniform max-p (the worst case found numerically for n <= 2100);
    ``storey-capped-c`` runs the capped rule at ``alpha / cap_correction(n)``.
    """
    k = np.arange(n)
    return float((binom.pmf(k, n - 1, 1 - lam) * np.maximum(n * (1 - lam) / (1 + k), 1.0)).sum())


# Checked against the registry on the first tables of every configuration.
BATCHED = ("jmcs", "union", "intersection")
CHECKED_TABLES = 3


def run_config(config: dict) -> list[dict]:
    """All rules x alphas on ``config['tables']`` fresh tables of one configuration."""
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(config["seed"])
    p_all, bad = draw_tables(rng, config["tables"], config["pool"], config["K"],
                             config["pattern"], config["mu"], config["corr"])
    per_table = [name for name in RULES if name not in BATCHED]
    selections = {a: batch_rules(p_all, a) for a in ALPHAS}
    for name in per_table:
        for a in ALPHAS:
            selections[a][name] = np.zeros(bad.shape, dtype=bool)
    for t in range(p_all.shape[0]):
        for name in per_table:
            fit = RULES[name].prepare(p_all[t])
            for a in ALPHAS:
                selections[a][name][t] = fit.select(a).selected
    for t in range(min(CHECKED_TABLES, p_all.shape[0])):
        for name in BATCHED:
            for a in ALPHAS:
                if not np.array_equal(RULES[name].run(p_all[t], alpha=a).selected, selections[a][name][t]):
                    raise AssertionError(f"batched {name} disagrees with the registry at alpha={a}")
    n_pure = np.maximum(1, (~bad).sum(axis=1))
    rows = []
    for a, chosen in selections.items():
        for name, sel in chosen.items():
            g = (sel & bad).sum(axis=1) / np.maximum(1, sel.sum(axis=1))
            rows.append({**{k: v for k, v in config.items() if k != "seed"}, "rule": name, "alpha": a,
                         "gcr": g.mean(), "gcr_se": g.std(ddof=1) / np.sqrt(g.size),
                         "power": float(((sel & ~bad).sum(axis=1) / n_pure).mean()), "pi0": float(bad.mean())})
    return rows


def configs(quick: bool, seed: int) -> list[dict]:
    grid = list(itertools.product(POOLS, MODELS, PATTERNS, SIGNALS, CORRELATIONS))
    if quick:
        grid = [(300, 4, "single-model", 4.0, 0.9), (300, 8, "bernoulli", 2.1, 0.0), (800, 2, "three-block", 4.0, 0.9)]
    out = []
    for i, (pool, k, pattern, mu, corr) in enumerate(grid):
        # Smaller pools are cheap and noisier: give them more tables (never fewer than 300).
        tables = 40 if quick else {300: 600, 800: 300, 1200: 300, 3000: 300}[pool]
        out.append({"pool": pool, "K": k, "pattern": pattern, "mu": mu, "corr": corr, "tables": tables,
                    "seed": seed * 100_003 + i})
    return out


def summarise(frame: pd.DataFrame) -> pd.DataFrame:
    """Per rule and alpha: configs over alpha + 2SE / + 3SE, worst excess, mean power, gap to JECS."""
    frame = frame.assign(over2=frame.gcr > frame.alpha + 2 * frame.gcr_se,
                         over3=frame.gcr > frame.alpha + 3 * frame.gcr_se)
    out = frame.groupby(["rule", "alpha"]).agg(
        configs=("gcr", "size"), over_2se=("over2", "sum"), over_3se=("over3", "sum"),
        worst_excess=("gcr", lambda s: float((s - frame.loc[s.index, "alpha"]).max())),
        mean_power=("power", "mean")).reset_index()
    # The orientation table averages power over configurations where JMCS finds something.
    key = ["pool", "K", "pattern", "mu", "corr", "alpha"]
    live = frame[(frame.rule == "jmcs") & (frame.power > 0.05)][key]
    live_power = frame.merge(live, on=key).groupby(["rule", "alpha"]).power.mean().rename("power_jmcs_live")
    out = out.merge(live_power.reset_index(), on=["rule", "alpha"], how="left")
    jecs = out[out.rule == "jecs"].set_index("alpha")["mean_power"]
    out["power_gap_to_jecs"] = out.mean_power - out.alpha.map(jecs)
    return out


def write_markdown(summary: pd.DataFrame, frame: pd.DataFrame, path: Path, seconds: float) -> None:
    n_cfg = frame.groupby(["pool", "K", "pattern", "mu", "corr"]).ngroups
    tables = frame.drop_duplicates(["pool", "K", "pattern", "mu", "corr"]).tables
    lines = [
        "# Validity study (generated by `benchmarks/validity_study.py`; do not edit by hand)", "",
        f"{n_cfg} configurations (pool {'/'.join(map(str, POOLS))}, K {'/'.join(map(str, MODELS))}, "
        f"contamination {' / '.join(PATTERNS)}, signal mu {'/'.join(map(str, SIGNALS))}, "
        f"cross-model correlation {'/'.join(map(str, CORRELATIONS))}); {tables.min()}-{tables.max()} fresh tables "
        f"per configuration ({int(tables.sum())} in all)"
        + ("." if seconds != seconds else f"; run time {seconds / 60:.1f} min on 2 processes (shared machine)."),
        "GCR = mean GCP over tables, SE = sd / sqrt(tables). Power = mean share of pure items selected, averaged "
        "over all configurations. `storey-maxp` (proposed default) is Storey-BH on max-p, lambda = 0.5, +1, pi0 capped at 1/w(n), w(n) = 1 - 1.5/sqrt(n), and multiplied by the exact correction c(n); `storey-capped` caps at 1 (the textbook form, not finite-sample valid); `storey-capped-c` is the cap at 1 with its own correction; `storey-uncapped` is the +1 estimate with no cap (Storey, Taylor & Siegmund's finite-sample form); `jecs-windowed` is the unregistered research variant (docs/GUARANTEES.md).",
        "A rule sitting exactly at alpha would exceed alpha + 2 SE in about 2.3% of configurations by chance.", "",
    ]
    for alpha, block in summary.groupby("alpha"):
        lines += [f"## alpha = {alpha}", "", "| rule | over α+2SE | over α+3SE | worst GCR − α | mean power | "
                  "gap to JECS | power where JMCS > 0.05 |", "|---|---|---|---|---|---|---|"]
        for row in block.sort_values("mean_power", ascending=False).itertuples():
            lines.append(f"| {row.rule} | {row.over_2se} / {row.configs} | {row.over_3se} / {row.configs} | "
                         f"{row.worst_excess:+.3f} | {row.mean_power:.4f} | {row.power_gap_to_jecs:+.4f} | "
                         f"{row.power_jmcs_live:.4f} |")
        lines.append("")
    power = summary.pivot(index="alpha", columns="rule", values="mean_power")
    if {"storey-maxp", STOREY, "jecs"} <= set(power.columns):
        lines += ["## The proposed default against the references", "",
                  "| alpha | storey-maxp | minus storey-capped | minus JECS (paper) |", "|---|---|---|---|"]
        for alpha, row in power.iterrows():
            lines.append(f"| {alpha} | {row['storey-maxp']:.4f} | {row['storey-maxp'] - row[STOREY]:+.4f} | "
                         f"{row['storey-maxp'] - row['jecs']:+.4f} |")
        lines.append("")
    # The duplicated-items and post-hoc sections are written by cluster_study.py and posthoc_study.py; keep them.
    old = path.read_text() if path.exists() else ""
    marker = next((m for m in ("## Duplicated items: ", "## Post-hoc bound (") if m in old), None)
    kept = old[old.index(marker):] if marker else ""
    path.write_text("\n".join(lines) + ("\n" + kept if kept else ""))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="three configurations, 40 tables each (seconds)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--csv", type=Path, default=None, help="results CSV (default benchmarks/validity_study[_quick].csv)")
    parser.add_argument("--markdown", type=Path, default=None, help="summary (default docs/VALIDITY.md; none in --quick)")
    parser.add_argument("--from-csv", type=Path, default=None, help="re-summarise a results CSV without running")
    parser.add_argument("--run-seconds", type=float, default=float("nan"), help="run time to report with --from-csv")
    parser.add_argument("--post-hoc", action="store_true", help="the post-hoc bound's study instead (posthoc_study.py)")
    parser.add_argument("--duplicates", action="store_true", help="the duplicated items' cases instead (cluster_study.py)")
    args = parser.parse_args(argv)
    if args.post_hoc:  # the sibling studies sit in this directory, on sys.path for a script
        return __import__("posthoc_study").main(["--quick"] if args.quick else [])
    if args.duplicates:
        out = ["--tables", "200"] if args.quick else ["--markdown", str(args.markdown or ROOT / "docs" / "VALIDITY.md")]
        return __import__("cluster_study").main(["--cases", *out])
    if args.from_csv is not None:
        frame = pd.read_csv(args.from_csv)
        write_markdown(summarise(frame), frame, args.markdown or ROOT / "docs" / "VALIDITY.md", args.run_seconds)
        return 0
    jobs = configs(args.quick, args.seed)
    start = time.perf_counter()
    rows = []
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for i, part in enumerate(pool.map(run_config, jobs), 1):
            rows.extend(part)
            if not args.quick and i % 16 == 0:
                print(f"{i}/{len(jobs)} configurations, {time.perf_counter() - start:.0f} s", flush=True)
    seconds = time.perf_counter() - start
    frame = pd.DataFrame(rows)
    csv = args.csv or ROOT / "benchmarks" / ("validity_study_quick.csv" if args.quick else "validity_study.csv")
    frame.to_csv(csv, index=False)
    summary = summarise(frame)
    with pd.option_context("display.width", 160, "display.max_rows", 200):
        print(summary.to_string(index=False))
    markdown = args.markdown or (None if args.quick else ROOT / "docs" / "VALIDITY.md")
    if markdown is not None:
        write_markdown(summary, frame, markdown, seconds)
    print(f"{len(jobs)} configurations in {seconds:.1f} s -> {csv}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
