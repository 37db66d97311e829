"""Duplicated items: realized GCR of item-level and cluster-level selection (docs/GUARANTEES.md, "Duplicated items").

Each table has m calibration members and a test set in which ``copies`` exact copies of each of
``clusters`` contaminated items appear (all contaminated), optionally beside ``clean`` distinct
non-members. Scores are N(0, 1) for members and N(-shift, 1) for non-members, K models, independent.
Item level runs the rule on every row; cluster level (``jecs select --cluster duplicates``) runs it on
one row per cluster of copies (:func:`jecs_core.checks.cluster_pvalues`) and keeps or drops the
whole cluster. GCR = mean over tables of (contaminated selected) / max(selected, 1).

    python benchmarks/cluster_study.py              # 10,000 tables per case (minutes)
    python benchmarks/cluster_study.py --tables 500 # seconds
"""

from __future__ import annotations

import argparse

import numpy as np

from jecs_core.checks import cluster_pvalues
from jecs_core.conformal import conformal_pvalues
from jecs_core.rules import select

ALPHAS = (0.05, 0.1, 0.2, 0.3)
METHODS = ("storey-maxp", "jmcs")


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
    rng = np.random.default_rng(seed)
    sums = {(method, level, alpha): 0.0 for method in METHODS for level in ("item", "cluster") for alpha in ALPHAS}
    for _ in range(tables):
        p, labels, con = draw(rng, m=m, K=K, clusters=clusters, copies=copies, clean=clean, shift=shift)
        grouped = cluster_pvalues(p, labels)
        for method in METHODS:
            for alpha in ALPHAS:
                sums[(method, "item", alpha)] += gcr(select(p, alpha=alpha, method=method).selected, con)
                chosen = select(grouped, alpha=alpha, method=method).selected[labels]
                sums[(method, "cluster", alpha)] += gcr(chosen, con)
    return {key: value / tables for key, value in sums.items()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=20261124)
    parser.add_argument("--clean", type=int, default=0, help="clean distinct test items beside the copies (default 0)")
    args = parser.parse_args(argv)
    found = study(tables=args.tables, seed=args.seed, clean=args.clean)
    print(f"{args.tables} tables, 3 contaminated items x 10 copies, {args.clean} clean items, m = 100, K = 1")
    print(f"{'method':<14}{'level':<9}" + "".join(f"{'a=' + format(a, 'g'):>9}" for a in ALPHAS))
    for method in METHODS:
        for level in ("item", "cluster"):
            print(f"{method:<14}{level:<9}" + "".join(f"{found[(method, level, a)]:>9.3f}" for a in ALPHAS))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
