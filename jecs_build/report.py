"""Summaries recorded in a real sample's provenance: AUCs, Monte-Carlo table, selection counts."""

from __future__ import annotations

import numpy as np
import pandas as pd


def rank_auc(scores, labels) -> float:
    """Area under the ROC curve from ranks (Mann-Whitney U / (n1 n0)); ties count one half.

    Parameters
    ----------
    scores : array-like of float
        Larger = more member-like.  NaN scores are dropped.
    labels : array-like of {0, 1}
        1 = member.

    Returns
    -------
    float
        NaN when either class is empty.
    """
    scores = np.asarray(scores, dtype=float)
    labels = np.asarray(labels).astype(bool)
    keep = ~np.isnan(scores)
    scores, labels = scores[keep], labels[keep]
    n1, n0 = int(labels.sum()), int((~labels).sum())
    if n1 == 0 or n0 == 0:
        return float("nan")
    ranks = pd.Series(scores).rank(method="average").to_numpy()  # average ranks give ties their half
    return float((ranks[labels].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def auc_table(long: pd.DataFrame, plan: pd.DataFrame) -> pd.DataFrame:
    """Member vs non-member AUC of every score for every model, on the test items.

    Parameters
    ----------
    long : pandas.DataFrame
        ``item_id, model, score_name, value``.
    plan : pandas.DataFrame
        ``item_id, split, member_<model>...``.

    Returns
    -------
    pandas.DataFrame
        Index = model, columns = score names.
    """
    test = plan.loc[plan["split"] == "test"].set_index("item_id")
    rows = {}
    for (model, score_name), group in long.groupby(["model", "score_name"], sort=False):
        values = group.set_index("item_id")["value"].reindex(test.index)
        rows.setdefault(model, {})[score_name] = rank_auc(values, test[f"member_{model}"])
    return pd.DataFrame.from_dict(rows, orient="index")


def mc_table(wide: pd.DataFrame, alphas, reps: int, seed: int = 0) -> pd.DataFrame:
    """The paper's Monte-Carlo protocol (``jecs_core.evaluate``) on a labelled wide table.

    Returns
    -------
    pandas.DataFrame
        ``method, alpha, gcp, gcp_se, power, power_se, mean_selected, within_2se``
        where ``within_2se`` is ``gcp <= alpha + 2 se`` (the check for JECS).
    """
    from jecs_core import table_from_frame
    from jecs_core.evaluate import evaluate

    table = table_from_frame(wide, source="real sample")
    found = evaluate(table, alphas=alphas, reps=reps, seed=seed).summary
    out = found[["method", "alpha", "gcp", "gcp_se", "power", "power_se", "mean_selected"]].copy()
    out["within_2se"] = out["gcp"] <= out["alpha"] + 2 * out["gcp_se"]
    return out.reset_index(drop=True)


def selection_counts(wide: pd.DataFrame, alpha: float = 0.1) -> dict:
    """Items each method selects on the full sample at ``alpha`` (``jecs_core.compare_methods``)."""
    from jecs_core import METHODS, compare_methods, table_from_frame

    comparison = compare_methods(table_from_frame(wide, source="real sample"), alpha=alpha)
    return {method: int(comparison.selected(method).sum()) for method in METHODS}


def format_auc(aucs: pd.DataFrame, digits: int = 3) -> str:
    """The AUC table as Markdown (models as rows, plus a mean row)."""
    frame = pd.concat([aucs, aucs.mean().to_frame("mean").T])
    header = "| model | " + " | ".join(frame.columns) + " |"
    lines = [header, "|" + "---|" * (len(frame.columns) + 1)]
    for model, row in frame.iterrows():
        lines.append(f"| {model} | " + " | ".join(f"{v:.{digits}f}" for v in row) + " |")
    return "\n".join(lines)


def format_mc(table: pd.DataFrame, digits: int = 3) -> str:
    """The Monte-Carlo table as Markdown: GCP ± SE and power ± SE per method and alpha."""
    lines = ["| method | alpha | GCP ± SE | power ± SE | mean selected |", "|---|---|---|---|---|"]
    for row in table.itertuples():
        lines.append(f"| {row.method} | {row.alpha:g} | {row.gcp:.{digits}f} ± {row.gcp_se:.{digits}f} | "
                     f"{row.power:.{digits}f} ± {row.power_se:.{digits}f} | {row.mean_selected:.1f} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    """``python -m jecs_build.report PROVENANCE.json``: print its AUC and Monte-Carlo tables as Markdown."""
    import argparse
    import json

    parser = argparse.ArgumentParser(prog="python -m jecs_build.report", description=main.__doc__)
    parser.add_argument("provenance", help="a <name>.provenance.json written by the build")
    args = parser.parse_args(argv)
    with open(args.provenance, encoding="utf-8") as handle:
        record = json.load(handle)
    print(format_auc(pd.DataFrame.from_dict(record["auc_test"]["per_model"], orient="index")))
    print()
    print(format_mc(pd.DataFrame(record["monte_carlo"]["rows"])))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
