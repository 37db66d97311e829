"""Test items that repeat a calibration item: a known member of every model counted as a test item.

Calibration items are known members of every model; a test item with a calibration item's text
is one too, and a copy the rules may select as clean (its scores look like a member's only as
far as the detectors see it). Texts are compared with runs of white space made one space and
letter case folded. Without texts, a test row whose every score equals a calibration row's
counts too, where such equality cannot be chance: at least two models, and scores with few ties
(rounded scores repeat by chance and are not compared).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .duplicates import TEXT_COLUMN, normalised, normalised_test_texts, row_hashes

# Scores count as continuous when this share of a model's calibration scores (a sample) are distinct.
DISTINCT_SHARE = 0.99
_SAMPLE = 20_000
_SHOWN = 3


@dataclass(frozen=True)
class CalibrationCopies:
    """Test items repeating a calibration item, by text and by score row (``None``: not compared), with a few ids."""

    rows: int
    text_rows: int | None
    score_rows: int | None
    examples: tuple[str, ...] = ()

    def warnings(self) -> list[str]:
        if not self.rows:
            return []
        parts = [f"{count} by {what}" for what, count in (("their text", self.text_rows),
                                                          ("an identical score row", self.score_rows)) if count]
        shown = ", ".join(map(repr, self.examples)) + (", ..." if self.rows > len(self.examples) else "")
        return [f"warning: {self.rows} test item(s) repeat a calibration item ({', '.join(parts)}; {shown}): "
                "calibration items "
                "are known members of every model, so these test items are contaminated for all of them and a rule "
                "may still select them; drop them from the test split or move them to calibration"]

    def to_dict(self) -> dict:
        return {"rows": self.rows, "text_rows": self.text_rows, "score_rows": self.score_rows}


def _folded(texts: pd.Series) -> pd.Series:
    """Normalised texts (:func:`normalised_test_texts`) with letter case folded; missing ones left out."""
    present = texts.dropna()
    return present.str.casefold()


def _continuous(calibration: np.ndarray) -> bool:
    rows = calibration[:: max(1, calibration.shape[0] // _SAMPLE)]
    return all(np.unique(rows[:, k]).size >= DISTINCT_SHARE * rows.shape[0] for k in range(rows.shape[1]))


def _same_rows(test: np.ndarray, calibration: np.ndarray, pvalues: np.ndarray | None) -> np.ndarray:
    """Test rows equal (``==`` in every column) to some calibration row.

    The first column narrows the search: a test score equal to a calibration score is the largest
    calibration score at or below it, found from the plain p-values' counts when given (their
    first column: ``p (m + 1) - 1`` calibration scores are at or below the test score), else by
    binary search. Only those rows are hashed whole and matched to the calibration rows' hashes.
    """
    first = np.sort(calibration[:, 0])
    if pvalues is None:
        below = np.searchsorted(first, test[:, 0], side="right")
    else:
        below = np.rint(pvalues[:, 0] * (len(first) + 1)).astype(np.int64) - 1  # exact: p = (1 + count) / (m + 1)
    candidates = np.flatnonzero((below > 0) & (first[np.maximum(below - 1, 0)] == test[:, 0]))
    if candidates.size == 0:
        return candidates
    cal_hashes = row_hashes(calibration)
    order = np.argsort(cal_hashes, kind="stable")
    ordered = cal_hashes[order]
    test_hashes = row_hashes(test[candidates])
    where = np.minimum(np.searchsorted(ordered, test_hashes), len(ordered) - 1)
    hashed_alike = ordered[where] == test_hashes
    # Equal hashes point at one calibration row each; rows that collide without being equal are not counted.
    rows, partner = candidates[hashed_alike], order[where[hashed_alike]]
    return rows[(test[rows] == calibration[partner]).all(axis=1)]


def calibration_copies(table, *, text_column: str = TEXT_COLUMN, pvalues: np.ndarray | None = None) -> CalibrationCopies:
    """Test items of ``table`` (a :class:`jecs_core.ScoreTable`) that repeat a calibration item.

    ``pvalues``: the table's plain conformal p-values (:func:`jecs_core.table_pvalues` without
    covariates or ``rng``) when the caller has them; their counts spare a search. Others give wrong
    counts: leave them out.

    Examples
    --------
    >>> import numpy as np, pandas as pd, jecs_core as jc
    >>> rng = np.random.default_rng(0)
    >>> frame = pd.DataFrame({"item_id": [f"i{j}" for j in range(40)], "split": ["calibration"] * 20 + ["test"] * 20,
    ...                       "score_a": rng.normal(size=40), "text": [f"passage {j}" for j in range(40)]})
    >>> frame.loc[25, "text"] = "  PASSAGE 3 "
    >>> calibration_copies(jc.table_from_frame(frame)).text_rows
    1
    """
    if not (table.n and table.m):
        return CalibrationCopies(0, None, None)
    hits = np.empty(0, dtype=np.intp)  # test rows, sorted
    text_rows = None
    if text_column in table.test_extra.columns and text_column in table.calibration_extra.columns:
        test_texts = _folded(normalised_test_texts(table, text_column))
        found = test_texts.isin(set(_folded(normalised(table.calibration_extra[text_column].to_numpy()))))
        hits = test_texts.index.to_numpy()[found.to_numpy()]
        text_rows = int(hits.size)
    score_rows = None
    if table.K >= 2 and _continuous(table.calibration):
        same = _same_rows(table.test, table.calibration, pvalues)
        score_rows = int(same.size)
        hits = np.union1d(hits, same)
    examples = tuple(str(i) for i in np.asarray(table.test_ids)[np.sort(hits)[:_SHOWN]])
    return CalibrationCopies(int(hits.size), text_rows, score_rows, examples)
