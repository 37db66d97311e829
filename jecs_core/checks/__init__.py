"""Label-free checks for the mistakes real audits make: scores that run the other way, duplicated items.

* :func:`score_direction` compares each model's test scores with its calibration members' scores.
* :func:`find_duplicates` counts identical score rows, identical texts and near-duplicate texts,
  and groups test items into clusters of copies.
* :func:`cluster_pvalues` / :func:`expand_clusters` give one hypothesis per cluster (the whole
  cluster kept or dropped), the option ``jecs select --cluster duplicates`` runs.
* :func:`data_warnings` is the one list of warning lines the CLI, the sidecar and the dashboard show.
"""

from __future__ import annotations

from ..contract import COVARIATE_PREFIX, MEMBER_PREFIX, SCORE_PREFIX
from .cluster import ClusterResult, cluster_comparison, cluster_pvalues, expand_clusters
from .direction import DirectionCheck, score_direction
from .duplicates import DuplicateReport, find_duplicates


def data_warnings(table, *, direction: DirectionCheck | None = None, duplicates: DuplicateReport | None = None,
                  near: bool = True, clustered: bool = False) -> list[str]:
    """One-line warnings about the table itself: reversed scores and duplicated items (empty when clean).

    ``clustered``: the selection keeps or drops each cluster of duplicates as one item.
    """
    direction = score_direction(table) if direction is None else direction
    duplicates = find_duplicates(table, near=near) if duplicates is None else duplicates
    return [*direction.warnings(), *duplicates.warnings(clustered=clustered), *role_lookalikes(table)]


ROLE_PREFIXES = {SCORE_PREFIX: "a model's scores", MEMBER_PREFIX: "a model's member labels", COVARIATE_PREFIX: "a covariate"}


def role_lookalikes(table) -> list[str]:
    """A warning for each carried column that would have a role but for its letter case (``Score_m0``)."""
    found = []
    for name in table.test_extra.columns:
        for prefix, role in ROLE_PREFIXES.items():
            if isinstance(name, str) and name.lower().startswith(prefix) and not name.startswith(prefix):
                found.append(f"warning: column {name!r} is carried to the export, not read as {role}: the prefix "
                             f"{prefix!r} is lower case; rename it {prefix + name[len(prefix):]!r} if it holds {role}")
    return found


__all__ = ["ClusterResult", "DirectionCheck", "cluster_comparison", "DuplicateReport", "cluster_pvalues", "data_warnings", "expand_clusters",
           "find_duplicates", "role_lookalikes", "score_direction"]
