"""Per-model exposure: fine-tunes that saw different shares of the test items.

The paper's split gives every model the same share ``rho`` of the remainder
block.  A leaderboard audit wants models that differ in how much of the
benchmark they saw, so here model k draws its own share ``rhos[k]`` of the
remainder (independently across models, as in the paper).

Models that saw fewer test items would also train on fewer texts, which makes
them weaker for a reason that has nothing to do with contamination.  With
``pad`` every model's training set is filled up to the largest one with texts
from the same corpus that are outside the pool (never scored, never in the
benchmark): all models get the same amount of in-domain training and differ
only in which of it was benchmark text.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

PADDING_FILE = "padding.csv"


def check_rhos(rhos, n_models: int) -> tuple:
    """``rhos`` as a tuple of floats in [0, 1], one per model (``ValueError`` naming ``--rhos``)."""
    values = tuple(float(r) for r in rhos)
    if len(values) != n_models:
        raise ValueError(f"--rhos needs one share per model ({n_models}), got {len(values)}")
    bad = [r for r in values if not 0.0 <= r <= 1.0]
    if bad:
        raise ValueError(f"--rhos shares must lie in [0, 1], got {bad[0]}")
    return values


def assign_exposure(plan: pd.DataFrame, models: list[str], rhos, rng: np.random.Generator) -> pd.DataFrame:
    """Set ``member_<model>`` on the remainder block to a fresh draw of ``floor(rhos[k] * n_remainder)`` items.

    ``plan`` is a three-block plan (calibration rows stay members of every
    model, clean rows stay non-members); a copy is returned.
    """
    out = plan.copy()
    remainder = np.flatnonzero(out["block"].to_numpy() == "remainder")
    for name, rho in zip(models, check_rhos(rhos, len(models))):
        column = out[f"member_{name}"].to_numpy(copy=True)
        column[remainder] = 0
        size = int(np.floor(rho * len(remainder) + 1e-9))
        column[rng.choice(remainder, size=size, replace=False)] = 1
        out[f"member_{name}"] = column
    return out


def padding_texts(corpus: pd.DataFrame, plan: pd.DataFrame, models: list[str], seed: int) -> pd.DataFrame:
    """Outside-pool texts that bring every model's training set to the largest one's size.

    Parameters
    ----------
    corpus : pandas.DataFrame
        The filtered corpus (``title, text``) the pool was drawn from.
    plan : pandas.DataFrame
        The membership plan (``text``, ``member_<model>``).
    models : list of str
    seed : int
        Seeds the draw; models draw from one shuffled list, each from its start,
        so padding texts are shared across models where counts allow.

    Returns
    -------
    pandas.DataFrame
        ``model, title, text``; empty when all models already train on equally many texts.
    """
    counts = {m: int(plan[f"member_{m}"].sum()) for m in models}
    target = max(counts.values())
    need = max(target - c for c in counts.values())
    outside = corpus[~corpus["text"].isin(set(plan["text"]))].reset_index(drop=True)
    if need > len(outside):
        raise ValueError(f"--pad-training: padding needs {need} texts outside the pool, the corpus has {len(outside)}; "
                         "use a larger corpus or a smaller --n-pool")
    order = np.random.default_rng(seed).permutation(len(outside))[:need]
    rows = []
    for m in models:
        picked = outside.iloc[order[: target - counts[m]]]
        rows.append(pd.DataFrame({"model": m, "title": picked["title"].to_numpy(), "text": picked["text"].to_numpy()}))
    return pd.concat(rows, ignore_index=True)
