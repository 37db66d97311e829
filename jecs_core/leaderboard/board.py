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
from ..posthoc import post_hoc_bound
from ..rules import get_rule
from .intervals import (
    binary_clean_range,
    inflation_interval,
    mean_interval,
    newcombe_difference,
    truly_clean_range,
    wilson_interval,
)
from .pairwise import pairwise_table
from .results import ResultsTable

LEADERBOARD_COLUMNS = (
    "model", "n_all", "accuracy_all", "n_clean", "accuracy_clean", "ci_low", "ci_high",
    "bound_low", "bound_high", "inflation", "inflation_low", "inflation_high", "rank_all", "rank_clean",
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
        0/1 results (Wilson, exact McNemar) or not (bootstrap, sign-flip).
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


def _refuse_no_test_results(table: ScoreTable, results: ResultsTable, models: list[str]) -> None:
    """A model with no result on any test item cannot be ranked: most often the ids do not match."""
    # The first id the first such model has a result for: in results read from several files another
    # model's ids may match the table while this one's do not (0 against 000).
    has = ~np.isnan(results.values[:, results.models.index(models[0])])
    hint = (f"{models[0]}'s first result is for item id {str(results.item_ids[has][0])!r} and the table's first test "
            f"item id is {str(table.test_ids[0])!r}" if has.any() else f"the results have no value for {models[0]}")
    raise ValueError(f"results: no result for any of the {table.n} test items for model(s) {models} ({hint}); "
                     "the results' item ids must be the score table's item_id values (for lm-eval logs, pick the "
                     "field of each sample's doc that holds them)")


def _another_metric(unknown: list[str], table: ScoreTable, results: ResultsTable) -> str:
    """A hint when every unknown model is ``<word>_<model>`` of one word: a wide table's longer metric."""
    parts = [u.partition("_") for u in unknown]
    words = {word for word, _, model in parts}
    if len(words) != 1 or not all(model in table.models for _, _, model in parts):
        return ""
    return f"; they look like the metric '{results.metric}_{words.pop()}' of the table's models: choose that metric"


def align_results(table: ScoreTable, results: ResultsTable) -> tuple[np.ndarray, list[str]]:
    """``results`` as an (n, K) matrix over the table's test items and models, and the mismatch lines.

    A results model the table lacks, or a table model without results, is an error; results for
    calibration items or for items the table does not have are counted and left out; test items a
    model has no result for are counted per model.
    """
    unknown = [m for m in results.models if m not in table.models]
    if unknown:
        from ..checks import printed_form
        alike = sorted(map(printed_form, results.models)) == sorted(map(printed_form, table.models))
        raise ValueError(f"results: model(s) {unknown} are not in the score table (its models are {list(table.models)})"
                         + ("; the names differ only in letter case, spaces, Unicode form or invisible characters" if alike
                            else _another_metric(unknown, table, results)))
    absent = [m for m in table.models if m not in results.models]
    if absent:
        raise ValueError(f"results: no results for model(s) {absent} of the score table ({results.source})"
                         + "".join(f"; {note}" for note in results.notes))
    notes = [*results.notes, *_stray_values_note(results)]
    rows = pd.Index(table.test_ids.astype(str)).get_indexer(results.item_ids.astype(str))
    outside = rows < 0
    if outside.any():
        calibration = np.isin(results.item_ids[outside].astype(str), table.calibration_ids.astype(str))
        if calibration.any():
            notes.append(f"{int(calibration.sum())} item(s) with results are calibration items; "
                         "they are not part of the benchmark and are not ranked")
        if (~calibration).any():
            first = results.item_ids[outside][~calibration][0]
            notes.append(f"{int((~calibration).sum())} item(s) with results are not in the score table "
                         f"(first: {first!r}); they are not ranked")
    columns = [results.models.index(m) for m in table.models]
    matrix = np.full((table.n, table.K), np.nan)
    matrix[rows[~outside]] = results.values[~outside][:, columns]
    missing = np.isnan(matrix).sum(axis=0)
    if table.n and (missing == table.n).any():
        _refuse_no_test_results(table, results, [m for m, c in zip(table.models, missing) if c == table.n])
    for name, count in zip(table.models, missing):
        if count:
            notes.append(f"model {name!r} has no result for {int(count)} of the {table.n} test items; "
                         "its means are over the items it has")
    return matrix, notes


def _stray_values_note(results: ResultsTable) -> list[str]:
    """A 0/1 metric with a few other values is most likely a slip: say so, rather than switch methods unnoticed."""
    present = ~np.isnan(results.values)
    stray = present & (results.values != 0) & (results.values != 1)
    count = int(stray.sum())
    if not count or count > 0.01 * present.sum():
        return []
    row, col = np.argwhere(stray)[0]
    return [f"{results.metric!r} is 0/1 except {count} result(s) (first: {results.values[row, col]:g} for model "
            f"{results.models[col]!r}, item {results.item_ids[row]!r}); it is treated as a graded metric (bootstrap "
            "intervals, sign-flip tests): correct those cells if the metric is 0/1"]


def _ranks(means: np.ndarray) -> pd.api.extensions.ExtensionArray:
    """Rank 1 = highest mean; ties share the best rank; a model without a mean has no rank (missing).

    Missing rather than last: with no clean item selected every model would otherwise share rank 1.
    """
    return pd.Series(means).rank(method="min", ascending=False, na_option="keep").astype("Int64").array


def _unranked_last(ranks: pd.Series) -> np.ndarray:
    return ranks.fillna(len(ranks) + 1).to_numpy(dtype=int)


def _model_rows(values, selected, *, binary, confidence, max_contaminated, rng) -> dict[str, np.ndarray]:
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
                infl[k] = 0.0
            elif n_clean[k]:
                low, high = newcombe_difference(sum_rest[k], n_rest[k], sum_clean[k], n_clean[k], confidence=confidence)
                infl[k] = np.array([low, high], dtype=float) * (n_rest[k] / n_all[k])
        else:
            clean = values[selected & present[:, k], k]
            rest = values[~selected & present[:, k], k]
            ci[k] = mean_interval(clean, confidence=confidence, rng=rng)
            bound[k] = truly_clean_range(clean, max_contaminated)
            infl[k] = inflation_interval(clean, rest, confidence=confidence, rng=rng)
    return {"n_all": n_all, "accuracy_all": acc_all, "n_clean": n_clean, "accuracy_clean": acc_clean,
            "ci_low": ci[:, 0], "ci_high": ci[:, 1], "bound_low": bound[:, 0], "bound_high": bound[:, 1],
            "inflation": acc_all - acc_clean, "inflation_low": infl[:, 0], "inflation_high": infl[:, 1]}


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
    bound = int(post_hoc_bound(comparison.pvalues, selected, delta=delta, calibration_size=table.m))
    binary = results.binary
    rng = np.random.default_rng(seed)
    columns = _model_rows(values, selected, binary=binary, confidence=confidence, max_contaminated=bound, rng=rng)
    frame = pd.DataFrame({"model": list(table.models), **columns})
    frame["rank_all"] = _ranks(frame["accuracy_all"].to_numpy())
    frame["rank_clean"] = _ranks(frame["accuracy_clean"].to_numpy())
    order = list(np.lexsort((_unranked_last(frame["rank_all"]), _unranked_last(frame["rank_clean"]))))
    pairs = pairwise_table(values[selected], table.models, order, binary=binary, level=level, rng=rng)
    return Leaderboard(frame=frame[list(LEADERBOARD_COLUMNS)], pairwise=pairs, selected=selected,
                       clean_ids=np.asarray(table.test_ids)[selected], alpha=alpha, method=name, metric=results.metric,
                       binary=binary, delta=delta, max_contaminated=bound, confidence=confidence, level=level,
                       warnings=tuple(notes))
