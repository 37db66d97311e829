"""Whether a table's test and calibration scores can be compared at all, model by model.

Conformal p-values compare each test score with the calibration members' scores directly, so the
two splits must come from the same model, score and run. Two signs that they do not, neither of
which needs labels:

* **Test items above every calibration member, and spreads far apart.** A test member scored like
  a calibration member lands above all m of them with chance 1/(m+1); a non-member scores lower. A
  share many times 1/(m+1) (``ABOVE_FACTOR``; the calibration maximum is itself random, and the
  share exceeds c/(m+1) with chance about e^-c when every test item is a member) has an honest
  cause too: test items memorised far more than the known members. So it is named only together
  with spreads (interquartile ranges) that differ more than ``SCALE_RATIO`` times, as a split
  rescaled to percent (100x) or scored another way does. Those items get p-value 1 and are never
  selected.
* **One value over a whole split** (missing scores filled in with 0, say): the model gives every
  test item one p-value and the selection cannot reflect what it saw.

* **Test items below every calibration member for one model alone, and spreads far apart.** The
  mirror of the first: a perfect detector on a clean benchmark puts every test item below every
  member too, but for every model at once; one model doing so while the others overlap
  (``BELOW_SHARE`` of its test items, under half for the median other model), with spreads more
  than ``MIRROR_RATIO`` times apart, is likely a split on another scale; a far stronger detector
  than the others, with tightly packed members, is the honest cause the warning names too. Its p-values then call every
  test item unlike its members, the max-p rules lean on the other models alone and select its members.
* **A fill value**: one value on many rows (``FILL_SHARE`` of a split, ``FILL_MIN_ROWS`` at least)
  of a column whose other values almost never repeat, as a placeholder for items that failed to
  score (-999, 0) is. Those items get one p-value from that model whatever it saw.

The spread ratio alone is no warning: a mix of non-members and tightly scored members (a loss
column) can differ 10x or more in an honest table. What no check can see: a split scored on
another scale that puts the calibration members above every test item for every model looks like
a perfect detector on a clean benchmark.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

ABOVE_FACTOR = 20.0
ABOVE_MIN_ITEMS = 10
SCALE_RATIO = 10.0  # spreads that differ more than this many times (either way) are named in the hints
BELOW_SHARE = 0.9
MIRROR_RATIO = 50.0  # spreads this far apart for the mirrored sign: an honest strong loss column measured 31x
FILL_SHARE, FILL_MIN_ROWS = 0.05, 10
_DISTINCT = 0.9  # the other values of a column with a fill value: at least this share distinct
_FILL_ROWS = 20_000  # test rows a fill value is looked for in (evenly spaced): a 5% one shows ~1,000 times
_SPREAD_ROWS = 100_000  # test rows the quartiles are taken from (evenly spaced): within a few per cent


@dataclass(frozen=True)
class SplitCheck:
    """Per model: the splits' spread ratio, the share of test items above every calibration member, one-value splits.

    Attributes
    ----------
    models : tuple of str
    spread_ratio : tuple of float or None
        Test scores' interquartile range over the calibration scores' (None when either is 0).
    above_all : tuple of float
        Share of test items scoring above every calibration member.
    m : int
        Calibration rows (1/(m+1) is the share a test member has).
    unlike_models : tuple of str
        Models whose ``above_all`` is at least ``ABOVE_FACTOR``/(m+1) and ``ABOVE_MIN_ITEMS`` items, and
        whose spreads differ more than ``SCALE_RATIO`` times (either way).
    constant : tuple of (str, str, float or None, float or None)
        ``(model, split, test value, calibration value)`` for a model whose scores are one value over
        the test split, the calibration split, or ``"both"`` (None for a split that varies).
    below_all : tuple of float
        Share of test items scoring below every calibration member.
    mirrored_models : tuple of str
        Models alone in putting ``BELOW_SHARE`` of the test items below every member, with spreads apart.
    fill_values : tuple of (str, str, float, int, int)
        ``(model, split, value, rows holding it, rows of the split)`` for a fill value (module docstring).
    """

    models: tuple[str, ...]
    spread_ratio: tuple[float | None, ...]
    above_all: tuple[float, ...]
    m: int
    unlike_models: tuple[str, ...] = ()
    constant: tuple[tuple[str, str, float | None, float | None], ...] = ()
    below_all: tuple[float, ...] = ()
    mirrored_models: tuple[str, ...] = ()
    fill_values: tuple[tuple[str, str, float, int, int], ...] = ()

    @property
    def rescaled_models(self) -> tuple[str, ...]:
        return tuple(model for model, r in zip(self.models, self.spread_ratio)
                     if r is not None and (r > SCALE_RATIO or r < 1 / SCALE_RATIO))

    def spread_text(self, models) -> str:
        """``"m0 231x, m1 0.01x"``: how many times the test scores' spread is the calibration scores'."""
        return ", ".join(f"{m} {r:.3g}x" for m, r in zip(self.models, self.spread_ratio) if m in models)

    def warnings(self, *, reversed_models=()) -> list[str]:
        """One line per finding; models already named as reversed are not named again for lying above."""
        return [*self._unlike_lines(reversed_models), *self._mirrored_lines(), *self._constant_lines(),
                *self._fill_lines()]

    def _mirrored_lines(self) -> list[str]:
        if not self.mirrored_models:
            return []
        shares = ", ".join(f"{m} {s:.1%}" for m, s in zip(self.models, self.below_all) if m in self.mirrored_models)
        return [f"warning: model(s) {', '.join(self.mirrored_models)} score almost every test item below every "
                f"calibration member ({shares}) while the other models do not, and the splits' spreads differ (test "
                f"over calibration: {self.spread_text(self.mirrored_models)}): either it tells members apart far "
                "better than the others, or its splits were scored on two scales (one in percent, or probabilities "
                "beside logs); in the second case it calls every test item unlike its members, so the rules lean on "
                "the other models alone and can select its members: check that both splits were scored alike"]

    def _fill_lines(self) -> list[str]:
        effect = {"test": "those items get one p-value from this model whatever it saw",
                  "calibration": "the calibration set then misstates this model's member scores, and every p-value "
                                 "against it moves"}
        return [f"warning: model {model}: {count:,} of its {rows:,} {split} scores are {value!r}, a value its other "
                f"scores almost never repeat (a placeholder for items that failed to score?); {effect[split]}: score "
                "those items or leave them out" for model, split, value, count, rows in self.fill_values]

    def _unlike_lines(self, reversed_models) -> list[str]:
        named = [m for m in self.unlike_models if m not in reversed_models]
        if not named:
            return []
        shares = ", ".join(f"{m} {s:.1%}" for m, s in zip(self.models, self.above_all) if m in named)
        return [f"warning: the test and calibration scores look unlike for {len(named)} of {len(self.models)} "
                f"model(s): test items score above every calibration member ({shares}; a test member does so with "
                f"chance 1/(m+1) = {1 / (self.m + 1):.2%}, a non-member less often) and the splits' spreads differ "
                f"(test over calibration: {self.spread_text(named)}), as a rescaled split's would: were both splits "
                "scored by the same model, score and run, and do larger scores mean member? Those items get p-value "
                "1 and no rule selects them"]

    def _constant_lines(self) -> list[str]:
        found = []
        for model, where, test_value, cal_value in self.constant:
            if where == "both" and test_value == cal_value:
                found.append(f"warning: model {model}: every score is {test_value!r}, so it cannot tell members from "
                             "non-members and every max-p rule selects nothing; score its items or leave the model out")
            elif where == "both":
                found.append(f"warning: model {model}: every test score is {test_value!r} and every calibration score "
                             f"{cal_value!r}, so it gives every test item one p-value and the selection cannot reflect "
                             "what it saw; score its items or leave the model out")
            else:
                value, other = (test_value, "calibration") if where == "test" else (cal_value, "test")
                found.append(f"warning: model {model}: every {where} score is {value!r} while its {other} scores vary "
                             "(were missing scores filled in?); the model then gives every test item one p-value and "
                             "the selection cannot reflect what it saw: score those items or leave the model out")
        return found

    def to_dict(self) -> dict:
        return {"spread_ratio": dict(zip(self.models, self.spread_ratio)),
                "above_all": dict(zip(self.models, self.above_all)), "unlike_models": list(self.unlike_models),
                "constant": [{"model": m, "split": w, "test_value": t, "calibration_value": c}
                             for m, w, t, c in self.constant],
                "below_all": dict(zip(self.models, self.below_all)), "mirrored_models": list(self.mirrored_models),
                "fill_values": [{"model": m, "split": w, "value": v, "rows": c, "of": r}
                                for m, w, v, c, r in self.fill_values]}


def _spread_ratios(test: np.ndarray, ordered: np.ndarray) -> np.ndarray:
    m = ordered.shape[1]
    # Scores near the float limit (1e308) overflow the differences: those ratios are left out (nan), silently.
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        cal = ordered[:, (3 * (m - 1)) // 4] - ordered[:, (m - 1) // 4]  # quartiles of the sorted calibration rows
        quartiles = np.quantile(test[:: max(1, test.shape[0] // _SPREAD_ROWS)], [0.25, 0.75], axis=0)
        ratio = (quartiles[1] - quartiles[0]) / cal
    return np.where(np.isfinite(ratio) & (ratio > 0), ratio, np.nan)


def _constant(table, ordered: np.ndarray) -> tuple[tuple[str, str, float | None, float | None], ...]:
    cal_one = ordered[:, 0] == ordered[:, -1] if table.m >= 2 else np.zeros(table.K, bool)
    low = table.test[0].copy() if table.n else np.zeros(table.K)
    test_one = np.zeros(table.K, bool)
    for k in range(table.K) if table.n >= 2 else ():
        # The first rows rule out almost every column at once: the whole column is read only if they agree.
        head = table.test[:1024, k]
        test_one[k] = bool((head == low[k]).all()) and bool((table.test[:, k] == low[k]).all())
    names = {(True, True): "both", (True, False): "test", (False, True): "calibration"}
    found = []
    for k, model in enumerate(table.models):
        where = names.get((bool(test_one[k]), bool(cal_one[k])))
        if where is not None:
            found.append((model, where, float(low[k]) if test_one[k] else None,
                          float(ordered[k, 0]) if cal_one[k] else None))
    return tuple(found)


def compare_splits(table, ordered: np.ndarray | None = None) -> SplitCheck:
    """Check whether ``table``'s test and calibration scores are comparable, model by model.

    Parameters
    ----------
    table : ScoreTable
    ordered : numpy.ndarray, shape (K, m), optional
        Each model's calibration scores sorted, one row per model, when the caller has them.

    Returns
    -------
    SplitCheck

    Examples
    --------
    >>> import numpy as np, pandas as pd, jecs_core as jc
    >>> rng = np.random.default_rng(0)
    >>> scores = np.r_[rng.normal(3, 1, 100) / 100, rng.normal(0, 1, 200)]  # calibration rescaled by mistake
    >>> frame = pd.DataFrame({"item_id": [f"i{j}" for j in range(300)], "split": ["calibration"] * 100 + ["test"] * 200,
    ...                       "score_a": scores})
    >>> check = compare_splits(jc.table_from_frame(frame))
    >>> check.unlike_models, check.rescaled_models
    (('a',), ('a',))
    """
    n, m, K = table.n, table.m, table.K
    if not (n and m):
        return SplitCheck(tuple(table.models), (None,) * K, (0.0,) * K, m)
    if ordered is None:
        ordered = np.sort(np.ascontiguousarray(table.calibration.T), axis=1)
    above = (table.test > ordered[:, -1]).sum(axis=0)
    below = (table.test < ordered[:, 0]).sum(axis=0) / n
    constant = _constant(table, ordered)
    one_value = {entry[0] for entry in constant}
    ratios = _spread_ratios(table.test, ordered) if n >= 2 and m >= 2 else np.full(K, np.nan)
    apart = (ratios > SCALE_RATIO) | (ratios < 1 / SCALE_RATIO)  # False for nan
    unlike = tuple(model for model, count, far in zip(table.models, above, apart) if model not in one_value and far
                   and count >= ABOVE_MIN_ITEMS and count / n >= ABOVE_FACTOR / (m + 1))
    mirrored = _mirrored(table.models, below, (ratios > MIRROR_RATIO) | (ratios < 1 / MIRROR_RATIO), one_value)
    return SplitCheck(tuple(table.models), tuple(None if np.isnan(r) else float(r) for r in ratios),
                      tuple(float(c / n) for c in above), m, unlike, constant, tuple(float(b) for b in below),
                      mirrored, _fill_values(table, ordered, one_value))


def _mirrored(models, below: np.ndarray, apart: np.ndarray, skip) -> tuple[str, ...]:
    """Models alone in scoring ``BELOW_SHARE`` of the test items below every member, with spreads apart."""
    found = []
    for k, model in enumerate(models):
        others = np.delete(below, k)
        if model not in skip and apart[k] and below[k] >= BELOW_SHARE and others.size and np.median(others) < 0.5:
            found.append(model)
    return tuple(found)


def _fill_values(table, ordered: np.ndarray, skip) -> tuple[tuple[str, str, float, int, int], ...]:
    """Each model's fill value per split (module docstring); the test split is read on an even sample first."""
    found = []
    sample = table.test[:: max(1, table.n // _FILL_ROWS)]
    for k, model in enumerate(table.models):
        if model in skip:
            continue
        for split, values, scores in (("calibration", ordered[k], table.calibration),
                                      ("test", np.sort(sample[:, k]), table.test)):
            value = _repeated(values)
            if value is None:
                continue
            rows = np.flatnonzero(scores[:, k] == value)
            if rows.size < max(FILL_MIN_ROWS, FILL_SHARE * scores.shape[0]):
                continue
            if table.K >= 2 and bool((scores[rows] == scores[rows[0]]).all()):
                continue  # one score row repeated under every model: copied items, which the duplicate check names
            found.append((model, split, float(value), int(rows.size), int(scores.shape[0])))
    return tuple(found)


def _repeated(ordered: np.ndarray) -> float | None:
    """The most repeated value of sorted ``ordered`` when the others almost never repeat and it stands apart
    from them, else ``None``. Standing apart: other values on both sides of it (no honest score piles up
    inside its range), or a gap of at least the others' interquartile range beside it. A pile at the edge
    with no gap is a clipped or censored score (probabilities of 1.0, losses of 0 for very short texts)."""
    if ordered.size < FILL_MIN_ROWS:
        return None
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    counts = np.diff(np.r_[starts, ordered.size])
    top = int(counts.argmax())
    rest = ordered.size - counts[top]
    if counts[top] < max(FILL_MIN_ROWS, FILL_SHARE * ordered.size) or (starts.size - 1) < _DISTINCT * rest:
        return None
    value = float(ordered[starts[top]])
    others = np.r_[ordered[:starts[top]], ordered[starts[top] + counts[top]:]]
    if others.size < 2 or (others[0] < value < others[-1]):
        return value if others.size >= 2 else None
    low, high = np.quantile(others, [0.25, 0.75])
    gap = others[0] - value if value < others[0] else value - others[-1]
    return value if gap >= (high - low) else None
