"""Label-free checks for the mistakes real audits make: scores that run the other way, duplicated items.

* :func:`score_direction` compares each model's test scores with its calibration members' scores
  (their direction, their scales, one-value columns).
* :func:`calibration_copies` finds test items that repeat a calibration item.
* :func:`find_duplicates` counts identical score rows, identical texts and near-duplicate texts,
  and groups test items into clusters of copies.
* :func:`cluster_pvalues` / :func:`expand_clusters` give one hypothesis per cluster (the whole
  cluster kept or dropped), the option ``jecs select --cluster duplicates`` runs.
* :func:`data_warnings` is the one list of warning lines the CLI, the sidecar and the dashboard show.
"""

from __future__ import annotations

import numpy as np

from .._roles import ROLE_PREFIXES, SCORE_PREFIX, id_form, printed_form, role_lookalike
from .across import CalibrationCopies, calibration_copies
from .cluster import ClusterResult, cluster_comparison, cluster_pvalues, expand_clusters
from .direction import DirectionCheck, score_direction
from .duplicates import DuplicateReport, find_duplicates


def data_warnings(table, *, direction: DirectionCheck | None = None, duplicates: DuplicateReport | None = None,
                  near: bool = True, clustered: bool = False, pvalues=None) -> list[str]:
    """One-line warnings about the table itself (empty when clean): reversed scores, test and calibration
    scores on different scales, one-value columns, test items repeating a calibration item, duplicated items,
    look-alike column and model names.

    ``clustered``: the selection keeps or drops each cluster of duplicates as one item. ``pvalues``: the
    table's plain conformal p-values when the caller has them (as :func:`score_direction` takes them).
    """
    direction = score_direction(table, pvalues=pvalues) if direction is None else direction
    duplicates = find_duplicates(table, near=near) if duplicates is None else duplicates
    copies = calibration_copies(table, pvalues=pvalues)
    return [*direction.warnings(), *copies.warnings(), *duplicates.warnings(clustered=clustered),
            *role_lookalikes(table)]


def role_lookalikes(table) -> list[str]:
    """A warning for each carried column that would have a role but for its spelling (``Score_m0``,
    `` score_m0``, ``score-m0``, ``scores_m0``), and for each model whose name has spaces at its ends."""
    found = []
    for name in table.test_extra.columns:
        hit = role_lookalike(name) if isinstance(name, str) else None
        if hit is not None:
            prefix, suggested = hit
            role = ROLE_PREFIXES[prefix]
            found.append(f"warning: column {name!r} is carried to the export, not read as {role}: roles come from "
                         f"the exact prefix {prefix!r} (lower case, no spaces, '_' not '-'); rename it {suggested!r} "
                         f"if it holds {role}")
    for model in table.models:
        if model != model.strip():
            found.append(f"warning: model {model!r} (column {SCORE_PREFIX + model!r}) has spaces at its ends; results "
                         f"and model names elsewhere must match it exactly: rename the column {SCORE_PREFIX + model.strip()!r}")
    return found + look_alike_models(table.models) + look_alike_ids(table)


def look_alike_ids(table) -> list[str]:
    """A warning when item ids differ only in spaces around them, Unicode form or invisible characters
    (``a1`` and ``a1 ``, ``café`` composed and decomposed, ``ab`` and ``a\u200bb``): two items to jecs
    that print as one. Letter case is not compared: ``a1`` and ``A1`` may well be two items."""
    splits, joined = [], []
    for ids in (np.asarray(table.calibration_ids).tolist(), np.asarray(table.test_ids).tolist()):
        try:
            joined.append("".join(ids))
        except TypeError:  # ids built by hand may be numbers, or text and numbers mixed
            ids = [str(i) for i in ids]
            joined.append("".join(ids))
        splits.append(ids)
    # The common case, one scan per split: ids with no white space and only ASCII cannot look alike.
    if all(text.isascii() and not any(space in text for space in " \t\n\r\x0b\x0c") for text in joined):
        return []
    if all(text.isascii() for text in joined) and not _padded_ids(splits):
        return []
    ids = [i for split in splits for i in split]
    forms: dict[str, set[str]] = {}
    for item in ids:
        forms.setdefault(item.strip() if item.isascii() else id_form(item).strip(), set()).add(item)
    groups = [sorted(group) for group in forms.values() if len(group) > 1]
    if not groups:
        return []
    shown = "; ".join(" and ".join(ascii(i) for i in group) for group in groups[:3])
    return [f"warning: {len(groups)} group(s) of item ids differ only in spaces around them, Unicode form or "
            "invisible characters and "
            f"print alike ({shown}{'; ...' if len(groups) > 3 else ''}); each is a separate item here: spell each "
            "item's id one way in every file"]


def _padded_ids(splits) -> bool:
    """Whether any id has white space before or after it (one vectorised pass per split)."""
    import pandas as pd

    return any(bool((text.str.strip() != text).any()) for text in (pd.Series(ids, dtype="str") for ids in splits))


def look_alike_models(models) -> list[str]:
    """A warning for each group of model names that differ only in letter case, spaces, Unicode form or
    invisible characters (``m1`` and ``M1``, ``ab`` and ``a\u200bb``): printed, they read as one model."""
    groups: dict[str, list[str]] = {}
    for model in models:
        groups.setdefault(printed_form(model), []).append(model)
    found = []
    for names in (group for group in groups.values() if len(group) > 1):
        # 'é' and 'é' (composed, decomposed) or 'ｍ1' and 'm1': only escapes tell them apart
        shown = [ascii(name) if any(not n.isascii() for n in names) else repr(name) for name in names]
        found.append(f"warning: models {', '.join(shown)} differ only in letter case, spaces, Unicode form or "
                     f"invisible characters and print alike; results must name each exactly: check that they are "
                     f"{len(names)} models")
    return found


__all__ = ["CalibrationCopies", "calibration_copies", "ClusterResult", "DirectionCheck", "cluster_comparison", "DuplicateReport", "cluster_pvalues", "data_warnings", "expand_clusters",
           "find_duplicates", "look_alike_ids", "look_alike_models", "printed_form", "role_lookalikes", "score_direction"]
