"""The clean leaderboard: each model's mean result on the full benchmark and on the certified clean subset."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._validation import check_alpha, check_seed
from ..compare import compare_pvalues
from ..conformal import table_pvalues
from ..data import ScoreTable
from ..envelope import DEFAULT_LAMBDA_GRID
from ..posthoc import post_hoc_bound, post_hoc_calibration_size
from ..rules import get_rule
from .align import align_results, inflation_notes
from .intervals import (
    binary_clean_range,
    inflation_interval,
    mean_interval,
    newcombe_difference,
    truly_clean_range,
    wilson_interval,
)
from .pairwise import pairwise_table
from .results import ResultsTable, is_binary

LEADERBOARD_COLUMNS = (
    "model", "n_all", "accuracy_all", "n_clean", "accuracy_clean", "ci_low", "ci_high",
    "bound_low", "bound_high", "inflation", "inflation_low", "inflation_high", "rank_all", "rank_clean",
    "move",
)


class LeaderboardWarning(UserWarning):
    """Results that do not line up with the score table (counted; the leaderboard still runs)."""


@dataclass(frozen=True)
class Leaderboard:
    """The leaderboard on the clean subset.

    Attributes
    ----------
    frame : pandas.DataFrame
        One row per model (columns :data:`LEADERBOARD_COLUMNS`), in the score table's order.
    pairwise : pandas.DataFrame
        Every pair of models on their shared clean items (see :func:`pairwise_table`).
    selected : numpy.ndarray of bool, shape (n,)
        The clean subset over the score table's test items (``jecs select``'s selection).
    clean_ids : numpy.ndarray of str
        The selected test items' ids.
    alpha, method, delta, confidence, level
        The settings: target GCR, rule, post-hoc error level, interval level, pairwise FWER.
    metric : str
    binary : bool
        0/1 results on the ranked items (Wilson, exact McNemar) or not (bootstrap, sign-flip).
    max_contaminated : int
        With probability at least ``1 - delta`` the clean subset holds at most this many
        contaminated items (the post-hoc bound); ``bound_low`` and ``bound_high`` follow from it.
    warnings : tuple of str
        One line per mismatch between the results and the score table (counted).
    """

    frame: pd.DataFrame
    pairwise: pd.DataFrame
    selected: np.ndarray
    clean_ids: np.ndarray
    alpha: float
    method: str
    metric: str
    binary: bool
    delta: float
    max_contaminated: int
    confidence: float = 0.95
    level: float = 0.05
    warnings: tuple[str, ...] = field(default=())

    def __post_init__(self):
        for values in (self.selected, self.clean_ids):  # n_clean and the exports read them
            values.setflags(write=False)

    @property
    def n_clean(self) -> int:
        return int(self.selected.sum())


def by_rank(frame: pd.DataFrame) -> pd.DataFrame:
    """Leaderboard rows best clean rank first, ties by the rank on all items (the order every view shows)."""
    return frame.sort_values(["rank_clean", "rank_all"], kind="stable", na_position="last")


def _ranks(means: np.ndarray) -> pd.api.extensions.ExtensionArray:
    """Rank 1 = highest mean; ties share the best rank; a model without a mean has no rank (missing).

    Missing rather than last: with no clean item selected every model would otherwise share rank 1.
    """
    return pd.Series(means).rank(method="min", ascending=False, na_option="keep").astype("Int64").array


def _moves(all_means: np.ndarray, clean_means: np.ndarray) -> pd.api.extensions.ExtensionArray:
    """Places gained on the clean subset (positive: ranked higher there), among the models ranked on both.

    A model without one of the two ranks (no clean mean, or results on the clean items only) takes no
    part: it has no move, and it shifts no other model's, since a rank it holds on one side alone would
    read as a change of place that no comparison of the two rankings shows.
    """
    both = ~np.isnan(all_means) & ~np.isnan(clean_means)
    moves = pd.Series(pd.NA, index=range(all_means.shape[0]), dtype="Int64")
    if both.any():
        ranks_all = pd.Series(all_means[both]).rank(method="min", ascending=False).to_numpy()
        ranks_clean = pd.Series(clean_means[both]).rank(method="min", ascending=False).to_numpy()
        moves[np.flatnonzero(both)] = (ranks_all - ranks_clean).astype(int)
    return moves.array


def _unranked_last(ranks: pd.Series) -> np.ndarray:
    return ranks.fillna(len(ranks) + 1).to_numpy(dtype=int)


def _model_rows(values, selected, *, unknown, binary, confidence, max_contaminated, rng) -> dict[str, np.ndarray]:
    """Per model: means, intervals, the truly-clean range and the inflation (NaN where ``unknown``)."""
    present = ~np.isnan(values)
    x = np.where(present, values, 0.0)
    n_all, sum_all = present.sum(axis=0), x.sum(axis=0)
    n_clean, sum_clean = present[selected].sum(axis=0), x[selected].sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        acc_all, acc_clean = sum_all / n_all, sum_clean / n_clean
    n_rest, sum_rest = n_all - n_clean, sum_all - sum_clean
    K = values.shape[1]
    ci, infl, bound = np.full((K, 2), np.nan), np.full((K, 2), np.nan), np.full((K, 2), np.nan)
    for k in range(K):
        if binary:
            ci[k] = np.asarray(wilson_interval(sum_clean[k], n_clean[k], confidence=confidence), dtype=float)
            bound[k] = binary_clean_range(int(sum_clean[k]), int(n_clean[k]), max_contaminated)
            if n_rest[k] == 0 and n_clean[k]:
                infl[k] = np.nan if unknown[k] else 0.0  # every test item is clean: all and clean are one mean
            elif n_clean[k]:
                low, high = newcombe_difference(sum_rest[k], n_rest[k], sum_clean[k], n_clean[k], confidence=confidence)
                infl[k] = np.array([low, high], dtype=float) * (n_rest[k] / n_all[k])
        else:
            clean = values[selected & present[:, k], k]
            rest = values[~selected & present[:, k], k]
            ci[k] = mean_interval(clean, confidence=confidence, rng=rng)
            bound[k] = truly_clean_range(clean, max_contaminated)
            infl[k] = np.nan if unknown[k] else inflation_interval(clean, rest, confidence=confidence, rng=rng)
    return {"n_all": n_all, "accuracy_all": acc_all, "n_clean": n_clean, "accuracy_clean": acc_clean,
            "ci_low": ci[:, 0], "ci_high": ci[:, 1], "bound_low": bound[:, 0], "bound_high": bound[:, 1],
            "inflation": np.where(unknown, np.nan, acc_all - acc_clean), "inflation_low": infl[:, 0], "inflation_high": infl[:, 1]}


def leaderboard(table: ScoreTable, results: ResultsTable, *, alpha: float = 0.1, method: str | None = None,
                delta: float = 0.1, confidence: float = 0.95, level: float = 0.05, lam="auto", knn: int | None = None,
                lambda_grid=DEFAULT_LAMBDA_GRID, covariates=None, shift_method: str = "auto", seed: int = 0,
                pvalues=None, **options) -> Leaderboard:
    """Rank the models on the clean subset ``jecs select`` picks at the same settings, beside the full benchmark.

    Parameters
    ----------
    table : ScoreTable
        The detection scores the clean subset is selected from (test items are the benchmark).
    results : ResultsTable
        Per-item results of the table's models (see :func:`load_results`).
    alpha : float
        Target global contamination rate of the clean subset.
    method : str, optional
        Selection rule (default: :data:`jecs_core.DEFAULT_METHOD`).
    delta : float
        Error level of the post-hoc bound behind ``bound_low`` / ``bound_high``.
    confidence : float
        Level of the intervals (``ci_*``, ``inflation_*``).
    level : float
        Family-wise error rate of the pairwise table's ``significant`` (Holm).
    lam, knn, lambda_grid, covariates, shift_method
        As for ``jecs select`` (:func:`jecs_core.compare_methods`).
    **options
        Further declared rule options (e.g. ``storey_lam`` of the default rule), as for
        :func:`jecs_core.compare_pvalues`: the selection is the one ``jecs select`` makes with them.
    seed : int
        Seeds the bootstrap and sign-flip draws (non-0/1 metrics only).
    pvalues : numpy.ndarray, shape (n, K), optional
        The table's conformal p-values when already computed (:func:`jecs_core.table_pvalues`).

    Returns
    -------
    Leaderboard

    Examples
    --------
    >>> import numpy as np, pandas as pd, jecs_core as jc
    >>> rng = np.random.default_rng(0)
    >>> n_cal, n_test = 300, 300  # calibration items are known members (high scores)
    >>> member = np.r_[np.ones(n_cal), rng.random(n_test) < 0.3]
    >>> frame = pd.DataFrame({"item_id": [f"i{j}" for j in range(n_cal + n_test)],
    ...                       "split": ["calibration"] * n_cal + ["test"] * n_test,
    ...                       "score_a": rng.normal(4 * member), "score_b": rng.normal(4 * member)})
    >>> table = jc.table_from_frame(frame)
    >>> correct = np.c_[member[n_cal:], rng.random(n_test) < 0.5].astype(int)
    >>> results = jc.ResultsTable(models=("a", "b"), item_ids=table.test_ids, values=correct.astype(float))
    >>> board = leaderboard(table, results, alpha=0.1)
    >>> board.frame[["model", "accuracy_all", "accuracy_clean", "rank_all", "rank_clean"]]
      model  accuracy_all  accuracy_clean  rank_all  rank_clean
    0     a      0.253333        0.000000         2           2
    1     b      0.546667        0.540179         1           1
    >>> board.n_clean, board.max_contaminated
    (224, 28)
    """
    if not isinstance(table, ScoreTable):
        raise ValueError(f"table must be a ScoreTable (see jecs_core.load_scores), got {type(table).__name__}")
    if not isinstance(results, ResultsTable):
        raise ValueError(f"results must be a ResultsTable (see load_results), got {type(results).__name__}")
    alpha, delta = check_alpha(alpha), check_alpha(delta, "delta")
    confidence, level = check_alpha(confidence, "confidence"), check_alpha(level, "level")
    seed = check_seed(seed)
    name = get_rule(method).name
    values, notes = align_results(table, results)
    for line in notes:
        warnings.warn(line, LeaderboardWarning, stacklevel=2)
    if pvalues is None:
        pvalues = table_pvalues(table, covariates=covariates, shift_method=shift_method)
        pvalues.setflags(write=False)  # ours alone: the comparison keeps it without a copy
    elif np.shape(pvalues) not in ((table.n, table.K), (table.n,) if table.K == 1 else ()):
        raise ValueError(f"pvalues must have the shape (n, K) = ({table.n}, {table.K}) of the table's test items and "
                         f"models, got {np.shape(pvalues)}")
    comparison = compare_pvalues(pvalues, alpha=alpha, methods=[name], lam=lam, knn=knn,
                                 lambda_grid=lambda_grid, models=table.models, **options)
    selected = np.asarray(comparison.selected(name), dtype=bool)
    size = post_hoc_calibration_size(table, comparison=comparison)  # the urn only where no test items are copies
    bound = int(post_hoc_bound(comparison.pvalues, selected, delta=delta, calibration_size=size))
    # With test items left out of the clean subset, a model without a result on any of them (a re-run of the
    # clean items only) has nothing to compare its clean mean with: no inflation, and no rank among full means.
    partial = (~selected).any() & np.isnan(values[~selected]).all(axis=0)
    for line in inflation_notes(partial, int((~selected).sum()), table.models):
        warnings.warn(line, LeaderboardWarning, stacklevel=2)
        notes.append(line)
    binary = is_binary(values)  # the ranked results: a value on an unranked item changes no method
    rng = np.random.default_rng(seed)
    columns = _model_rows(values, selected, unknown=partial, binary=binary, confidence=confidence,
                          max_contaminated=bound, rng=rng)
    frame = pd.DataFrame({"model": list(table.models), **columns})
    full_means = np.where(partial, np.nan, frame["accuracy_all"].to_numpy(dtype=float))
    frame["rank_all"] = _ranks(full_means)
    frame["rank_clean"] = _ranks(frame["accuracy_clean"].to_numpy())
    frame["move"] = _moves(full_means, frame["accuracy_clean"].to_numpy(dtype=float))
    order = list(np.lexsort((_unranked_last(frame["rank_all"]), _unranked_last(frame["rank_clean"]))))
    pairs = pairwise_table(values[selected], table.models, order, binary=binary, level=level, rng=rng)
    return Leaderboard(frame=frame[list(LEADERBOARD_COLUMNS)], pairwise=pairs, selected=selected,
                       clean_ids=np.asarray(table.test_ids)[selected], alpha=alpha, method=name, metric=results.metric,
                       binary=binary, delta=delta, max_contaminated=bound, confidence=confidence, level=level,
                       warnings=tuple(notes))
