"""Per-item results lined up with the score table's test items and models, and the notes on what does not line up."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..data import ScoreTable
from .results import ResultsTable


def _refuse_no_test_results(table: ScoreTable, results: ResultsTable, models: list[str]) -> None:
    """A model with no result on any test item cannot be ranked: most often the ids do not match."""
    # The first id the first such model has a result for: in results read from several files another
    # model's ids may match the table while this one's do not (0 against 000).
    has = ~np.isnan(results.values[:, results.models.index(models[0])])
    if has.any():
        first, theirs = str(results.item_ids[has][0]), str(table.test_ids[0])
        shown = ascii if not (first + theirs).isascii() else repr  # escapes tell apart ids that print alike
        hint = (f"{models[0]}'s first result is for item id {shown(first)} and the table's first test item id is "
                f"{shown(theirs)}" + _spelt_otherwise(results.item_ids[has].astype(str), table.test_ids))
    else:
        hint = f"the results have no value for {models[0]}"
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


def _spelt_otherwise(missing: np.ndarray, test_ids: np.ndarray) -> str:
    """A hint when ids missing from the table match test ids once Unicode forms are folded."""
    odd = [str(i) for i in missing if not str(i).isascii()]
    if not odd:
        return ""
    from .._roles import id_form

    table_forms = {i if i.isascii() else id_form(i) for i in map(str, test_ids)}
    alike = [i for i in odd if id_form(i) in table_forms]
    return (f"; {len(alike)} of them match a test id once Unicode forms and invisible characters are folded "
            f"(first: {ascii(alike[0])}): the two files spell those ids differently") if alike else ""


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
    notes = list(results.notes)
    rows = pd.Index(table.test_ids.astype(str)).get_indexer(results.item_ids.astype(str))
    outside = rows < 0
    if outside.any():
        calibration = np.isin(results.item_ids[outside].astype(str), table.calibration_ids.astype(str))
        if calibration.any():
            notes.append(f"{int(calibration.sum())} item(s) with results are calibration items; "
                         "they are not part of the benchmark and are not ranked")
        if (~calibration).any():
            missing = results.item_ids[outside][~calibration].astype(str)
            notes.append(f"{missing.size} item(s) with results are not in the score table "
                         f"(first: {str(missing[0])!r}); they are not ranked" + _spelt_otherwise(missing, table.test_ids))
    columns = [results.models.index(m) for m in table.models]
    matrix = np.full((table.n, table.K), np.nan)
    matrix[rows[~outside]] = results.values[~outside][:, columns]
    # Results the leaderboard does not rank (calibration items, unknown ids) neither make nor unmake a 0/1 metric.
    notes[len(results.notes):len(results.notes)] = (_stray_values_note(matrix, table.test_ids, table.models, results.metric)
                                                    + _scale_note(matrix, table.models, results.metric))
    missing = np.isnan(matrix).sum(axis=0)
    if table.n and (missing == table.n).any():
        _refuse_no_test_results(table, results, [m for m, c in zip(table.models, missing) if c == table.n])
    notes += _missing_notes(table.models, missing, table.n)
    return matrix, notes


def _missing_notes(models, missing: np.ndarray, n: int) -> list[str]:
    """One line per count of test items without a result, naming every model that lacks that many."""
    lines = []
    for count in sorted({int(c) for c in missing if c}):
        names = [m for m, c in zip(models, missing) if c == count]
        lines.append(f"model {names[0]!r} has no result for {count} of the {n} test items; its means are over the "
                     "items it has" if len(names) == 1 else
                     f"models {', '.join(map(repr, names))} each have no result for {count} of the {n} test items; "
                     "their means are over the items they have")
    return lines


def _stray_values_note(values: np.ndarray, item_ids, models, metric: str) -> list[str]:
    """A 0/1 metric with a few other values is most likely a slip: say so, rather than switch methods unnoticed."""
    present = ~np.isnan(values)
    stray = present & (values != 0) & (values != 1)
    count = int(stray.sum())
    if not count or count > 0.01 * present.sum():
        return []
    row, col = np.argwhere(stray)[0]
    # repr: the shortest text that reads back as this float, so 1.0000000001 is not shown as 1 (2.0 as 2).
    shown = repr(float(values[row, col])).removesuffix(".0")
    return [f"{metric!r} is 0/1 except {count} result(s) (first: {shown} for model "
            f"{models[col]!r}, item {str(item_ids[row])!r}); it is treated as a graded metric (bootstrap "
            "intervals, sign-flip tests): correct those cells if the metric is 0/1"]


def _scale_note(values: np.ndarray, models, metric: str) -> list[str]:
    """Some models' results within [0, 1] and others' above 1: percent beside fractions, most likely, which
    would rank the latter first by a factor of a hundred."""
    present = ~np.isnan(values)
    has = present.any(axis=0)
    low = np.where(present, values, np.inf).min(axis=0, initial=np.inf)
    high = np.where(present, values, -np.inf).max(axis=0, initial=-np.inf)
    within = has & (low >= 0) & (high <= 1) & (high > 0)
    over = has & (high > 1)
    if not (within.any() and over.any()):
        return []
    shown = ", ".join(f"{models[k]!r} ({low[k]:g} to {high[k]:g})" for k in np.flatnonzero(over)[:3])
    return [f"{metric!r} runs above 1 for {int(over.sum())} model(s) ({shown}{', ...' if over.sum() > 3 else ''}) "
            f"and within [0, 1] for {int(within.sum())}: percent beside fractions? the means are compared as they "
            "are; put every model's results on one scale"]


def inflation_notes(partial: np.ndarray, n_rest: int, models) -> list[str]:
    """Why the models flagged in ``partial`` (results on the clean items only) have no inflation and no full rank."""
    lacking = [m for m, flagged in zip(models, partial) if flagged]
    if not lacking:
        return []
    return [f"model(s) {lacking} have no result on any of the {n_rest} test items outside the clean subset "
            "(results of the clean items only?); their inflation is unknown (NaN), their accuracy_all is over "
            "the clean items, and they have no rank on the full benchmark"]
