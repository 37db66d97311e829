"""Duplicated items: realized GCR of item-level and cluster-level selection (docs/GUARANTEES.md, "Duplicated items").

Each table has m calibration members and a test set in which ``copies`` exact copies of each of
``clusters`` contaminated items appear (all contaminated), optionally beside ``clean`` distinct
non-members. Scores are N(0, 1) for members and N(-shift, 1) for non-members, K models, independent.
Item level runs the rule on every row; cluster level (``jecs select --cluster duplicates``) runs it on
one row per cluster of copies (:func:`jecs_core.checks.cluster_pvalues`) and keeps or drops the
whole cluster. GCR = mean over tables of (contaminated selected) / max(selected, 1).

    python benchmarks/cluster_study.py              # 10,000 tables per case (minutes)
    python benchmarks/cluster_study.py --tables 500 # seconds
    python benchmarks/cluster_study.py --cases --markdown docs/VALIDITY.md  # every case of CASES, as a section
                                                                            # of the validity study
                                                                            # (validity_study.py --duplicates)
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from jecs_core.checks import cluster_pvalues
from jecs_core.conformal import conformal_pvalues
from jecs_core.rules import select

ALPHAS = (0.05, 0.1, 0.2, 0.3)
METHODS = ("storey-maxp", "jmcs")
# "item": items as hypotheses; "cluster": clusters as hypotheses, share of selected *items* contaminated;
# "cluster-share": the same selections, share of selected *clusters* contaminated (the guaranteed quantity).
LEVELS = ("item", "cluster", "cluster-share")
LEVEL_WORDS = {"item": "items", "cluster": "clusters, item share", "cluster-share": "clusters, cluster share"}
# The validity study's duplicated-items configurations: the all-copies case that breaks item-level
# Storey-BH, copies beside clean items, and several models.
CASES = (
    {"clusters": 3, "copies": 10, "clean": 0, "K": 1},
    {"clusters": 3, "copies": 10, "clean": 60, "K": 1},
    {"clusters": 10, "copies": 5, "clean": 0, "K": 4},
    {"clusters": 5, "copies": 6, "clean": 100, "K": 4},
)
SECTION = "## Duplicated items: item-level and cluster-level selection"
NEXT_SECTION = "## Post-hoc bound ("


def draw(rng, *, m: int, K: int, clusters: int, copies: int, clean: int, shift: float):
    """One table's p-values, cluster labels and contamination flags."""
    cal = rng.normal(0.0, 1.0, (m, K))
    members = np.repeat(rng.normal(0.0, 1.0, (clusters, K)), copies, axis=0)
    test = np.vstack([members, rng.normal(-shift, 1.0, (clean, K))])
    labels = np.r_[np.repeat(np.arange(clusters), copies), clusters + np.arange(clean)]
    contaminated = np.r_[np.ones(clusters * copies, bool), np.zeros(clean, bool)]
    return conformal_pvalues(test, cal), labels, contaminated


def gcr(selected: np.ndarray, contaminated: np.ndarray) -> float:
    return float((selected & contaminated).sum() / max(int(selected.sum()), 1))


def study(*, tables: int, seed: int, m: int = 100, K: int = 1, clusters: int = 3, copies: int = 10, clean: int = 0,
          shift: float = 3.0) -> dict:
    """Mean GCR per (method, level, alpha) over ``tables`` fresh tables; level is "item" or "cluster"."""
    return {key: mean for key, (mean, _) in study_se(tables=tables, seed=seed, m=m, K=K, clusters=clusters,
                                                      copies=copies, clean=clean, shift=shift).items()}


def study_se(*, tables: int, seed: int, m: int = 100, K: int = 1, clusters: int = 3, copies: int = 10,
             clean: int = 0, shift: float = 3.0) -> dict:
    """(mean GCR, its standard error sd / sqrt(tables)) per (method, level, alpha)."""
    rng = np.random.default_rng(seed)
    values = {(method, level, alpha): np.empty(tables) for method in METHODS for level in LEVELS for alpha in ALPHAS}
    for t in range(tables):
        p, labels, con = draw(rng, m=m, K=K, clusters=clusters, copies=copies, clean=clean, shift=shift)
        grouped = cluster_pvalues(p, labels)
        cluster_con = np.zeros(len(grouped), bool)
        cluster_con[labels[con]] = True
        for method in METHODS:
            for alpha in ALPHAS:
                values[(method, "item", alpha)][t] = gcr(select(p, alpha=alpha, method=method).selected, con)
                chosen = select(grouped, alpha=alpha, method=method).selected
                values[(method, "cluster", alpha)][t] = gcr(chosen[labels], con)
                values[(method, "cluster-share", alpha)][t] = gcr(chosen, cluster_con)
    return {key: (float(v.mean()), float(v.std(ddof=1) / np.sqrt(tables)) if tables > 1 else float("nan"))
            for key, v in values.items()}


def case_name(case: dict) -> str:
    clean = f" + {case['clean']} clean items" if case["clean"] else ""
    return f"{case['clusters']} contaminated items x {case['copies']} copies{clean}, K = {case['K']}"


def section(results: list[tuple[dict, dict]], tables: int, seconds: float) -> list[str]:
    """The validity study's duplicated-items section: GCR (SE) per case, rule, level and alpha."""
    lines = [f"{SECTION} (`benchmarks/validity_study.py --duplicates`)", "",
             f"{tables:,} fresh tables per case; m = 100 calibration members; every copy of a contaminated item is "
             "contaminated for every model; clean items score N(-3, 1), members N(0, 1), models independent. "
             "*items*: every row is a hypothesis; *clusters*: one hypothesis per cluster of copies "
             "(`jecs select --cluster duplicates`, the cluster's p-values are its members' largest), kept or dropped "
             "whole, with the contaminated share counted over the selected items (*item share*) or over the selected "
             "clusters (*cluster share*, the quantity the rule's guarantee covers with clusters as units). "
             "GCR = mean over tables of contaminated selected / max(selected, 1); SE = sd / sqrt(tables); "
             "**bold** = above alpha + 2 SE" + ("." if seconds != seconds else f"; run time {seconds / 60:.1f} min."),
             "", "| case | rule | level | " + " | ".join(f"alpha = {a:g}" for a in ALPHAS) + " |",
             "|---|---|---|" + "---|" * len(ALPHAS)]
    for case, found in results:
        for method in METHODS:
            for level in LEVELS:
                cells = []
                for alpha in ALPHAS:
                    mean, se = found[(method, level, alpha)]
                    cell = f"{mean:.3f} ({se:.3f})"
                    cells.append(f"**{cell}**" if mean > alpha + 2 * se else cell)
                lines.append(f"| {case_name(case)} | `{method}` | {LEVEL_WORDS[level]} | " + " | ".join(cells) + " |")
    lines += ["", "The guarantee (docs/GUARANTEES.md, \"Duplicated items\"): with clusters as the units, the rule's "
              "own guarantee holds for the cluster share; with clusters of one size the item share equals it, and "
              "with copies beside single items the item share can reach s_max / s_min times it (the cases with "
              "clean items above: one cluster of ten copies weighs ten times a clean item).", ""]
    return lines


def write_section(path: Path, lines: list[str]) -> None:
    """Put ``lines`` in place of this section of ``path`` (before the post-hoc section, else at the end)."""
    text = path.read_text() if path.exists() else ""
    if SECTION in text:
        head, rest = text.split(SECTION, 1)
        tail = rest[rest.index(NEXT_SECTION):] if NEXT_SECTION in rest else ""
    elif NEXT_SECTION in text:
        head, tail = text[:text.index(NEXT_SECTION)], text[text.index(NEXT_SECTION):]
    else:
        head, tail = text, ""
    head = head.rstrip("\n")
    path.write_text((head + "\n\n" if head else "") + "\n".join(lines) + ("\n" + tail if tail else ""))


def run_cases(*, tables: int, seed: int, markdown: Path | None) -> list[tuple[dict, dict]]:
    """Every case of CASES; the section printed, and written into ``markdown`` when given."""
    start = time.perf_counter()
    results = [(case, study_se(tables=tables, seed=seed + i, **case)) for i, case in enumerate(CASES)]
    lines = section(results, tables, time.perf_counter() - start)
    print("\n".join(lines))
    if markdown is not None:
        write_section(markdown, lines)
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=20261124)
    parser.add_argument("--clean", type=int, default=0, help="clean distinct test items beside the copies (default 0)")
    parser.add_argument("--cases", action="store_true", help="every case of CASES, printed as a markdown section")
    parser.add_argument("--markdown", type=Path, default=None, help="with --cases: write the section into this file")
    args = parser.parse_args(argv)
    if args.cases:
        run_cases(tables=args.tables, seed=args.seed, markdown=args.markdown)
        return 0
    found = study(tables=args.tables, seed=args.seed, clean=args.clean)
    print(f"{args.tables} tables, 3 contaminated items x 10 copies, {args.clean} clean items, m = 100, K = 1")
    print(f"{'method':<14}{'level':<9}" + "".join(f"{'a=' + format(a, 'g'):>9}" for a in ALPHAS))
    for method in METHODS:
        for level in ("item", "cluster"):
            print(f"{method:<14}{level:<9}" + "".join(f"{found[(method, level, a)]:>9.3f}" for a in ALPHAS))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
