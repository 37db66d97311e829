"""The shift check: can a classifier tell calibration items from test items by their covariates?

No detection model is involved: only covariates (``x_<name>`` columns, and simple
features of a ``text`` column when one is given) and which split each item is in.
The statistic is the cross-fitted AUC of a logistic regression on the standardised
covariates and their squares; its p-value comes from refitting on permuted split
labels (same folds), so under exchangeability of calibration and test items it is
exact: ``P(p <= a) <= a``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validation import check_alpha, check_positive_int, check_rng
from ._crossfit import auc, make_folds, oof_probabilities, predict_folds
from ._features import Design, feature_names, pair, text_features


@dataclass(frozen=True)
class ShiftCheck:
    """Result of :func:`shift_check`.

    Attributes
    ----------
    auc : float
        Cross-fitted AUC of P(test | covariates), test against calibration (0.5 = chance).
    pvalue : float
        Permutation p-value ``(1 + #{null AUC >= auc}) / (B + 1)``.
    level : float
        The level at which :attr:`shifted` is decided.
    features : tuple of str
        Covariate names, in column order.
    feature_auc : tuple of float
        Each covariate alone: AUC of its value, test against calibration (0.5 = no shift;
        below 0.5 means the test items have smaller values).
    importance : tuple of float
        Drop in the cross-fitted AUC when that covariate is shuffled across rows in the
        held-out folds (fold models kept): how much the classifier leans on it.
    null_auc : numpy.ndarray
        The permutation distribution (for a histogram).
    test_prob, cal_prob : numpy.ndarray
        Out-of-fold P(test | x) of the test and calibration items (for a plot).
    n_test, n_calibration, n_folds, n_permutations : int
    """

    auc: float
    pvalue: float
    level: float
    features: tuple[str, ...]
    feature_auc: tuple[float, ...]
    importance: tuple[float, ...]
    null_auc: np.ndarray
    test_prob: np.ndarray
    cal_prob: np.ndarray
    n_test: int
    n_calibration: int
    n_folds: int
    n_permutations: int

    @property
    def shifted(self) -> bool:
        """True when the permutation p-value is at most :attr:`level`."""
        return self.pvalue <= self.level

    def drivers(self, top: int = 3) -> list[str]:
        """Names of the covariates with the largest importance (positive ones only)."""
        order = np.argsort(self.importance)[::-1]
        return [self.features[j] for j in order[:top] if self.importance[j] > 0]

    def plot_data(self) -> dict[str, pd.DataFrame]:
        """Tidy frames for figures: ``scores`` (out-of-fold P(test | x) per item and split),
        ``null`` (the permutation AUCs, with the observed one in ``attrs["observed"]``),
        ``covariates`` (per-covariate AUC and importance)."""
        scores = pd.DataFrame({"split": ["test"] * self.n_test + ["calibration"] * self.n_calibration,
                               "p_test": np.r_[self.test_prob, self.cal_prob]})
        null = pd.DataFrame({"null_auc": self.null_auc})
        null.attrs["observed"] = self.auc
        covariates = pd.DataFrame({"covariate": self.features, "auc_alone": self.feature_auc,
                                   "importance": self.importance})
        return {"scores": scores, "null": null, "covariates": covariates}

    def to_dict(self) -> dict:
        """A JSON-ready record for the selection sidecar (no per-item arrays)."""
        return {
            "auc": self.auc,
            "pvalue": self.pvalue,
            "level": self.level,
            "shifted": self.shifted,
            "features": list(self.features),
            "feature_auc": dict(zip(self.features, self.feature_auc)),
            "importance": dict(zip(self.features, self.importance)),
            "drivers": self.drivers(),
            "n_test": self.n_test,
            "n_calibration": self.n_calibration,
            "n_folds": self.n_folds,
            "n_permutations": self.n_permutations,
        }

    def lines(self) -> list[str]:
        """Plain-text lines for ``jecs select``."""
        verdict = "SHIFT: calibration and test items differ" if self.shifted else "no shift detected"
        head = (f"shift check: AUC = {self.auc:.3f} (0.5 = chance), permutation p = {self.pvalue:.3g} "
                f"({self.n_permutations} permutations, {self.n_folds}-fold cross-fit) -> {verdict} at level {self.level:g}")
        width = max(len("covariate"), *(len(name) for name in self.features))
        out = [head, f"  {'covariate':<{width}}  AUC alone  importance"]
        out += [f"  {name:<{width}}  {a:9.3f}  {imp:+10.3f}"
                for name, a, imp in zip(self.features, self.feature_auc, self.importance)]
        if self.shifted and self.drivers():
            out.append("  driven by: " + ", ".join(self.drivers()))
        if self.shifted:
            out.append("  harmful direction: calibration members scoring HIGHER than the benchmark's members (their "
                       "p-values come out too small and contaminated items are selected); scoring lower only costs "
                       "power; --covariates corrects either (docs/CALIBRATION-SHIFT.md)")
        return out


def _importance(models, design: Design, X: np.ndarray, y: np.ndarray, folds: np.ndarray,
                base: float, rng: np.random.Generator) -> tuple[float, ...]:
    drops = []
    for j in range(X.shape[1]):
        shuffled = X.copy()
        shuffled[:, j] = rng.permutation(shuffled[:, j])
        drops.append(base - auc(predict_folds(models, design(shuffled), y, folds), y))
    return tuple(float(d) for d in drops)


def shift_check(test_X, cal_X, *, names=None, test_text=None, cal_text=None, n_folds: int = 5,
                n_permutations: int = 199, level: float = 0.05, C: float = 1.0,
                rng: np.random.Generator | None = None) -> ShiftCheck:
    """Test whether calibration items and test items differ in their covariates.

    Parameters
    ----------
    test_X, cal_X : array_like, shape (n, d) and (m, d)
        Covariates of the test and calibration items (e.g. the ``x_<name>`` columns).
        ``d`` may be 0 columns only when texts are given.
    names : sequence of str, optional
        Covariate names (default ``x0, x1, ...``).
    test_text, cal_text : sequence of str, optional
        Texts; when both are given their simple features (:func:`text_features`) are
        added as covariates.
    n_folds : int
        Cross-fitting folds (>= 2).
    n_permutations : int
        Label permutations for the p-value (each refits every fold).
    level : float
        Level in (0, 1) for :attr:`ShiftCheck.shifted`.
    C : float
        Inverse L2 penalty of the logistic regression.
    rng : numpy.random.Generator, optional
        Folds, permutations and importance shuffles.

    Returns
    -------
    ShiftCheck
    """
    level = check_alpha(level, "level")
    n_permutations = check_positive_int(n_permutations, "n_permutations")
    rng = check_rng(rng)
    test, cal, names = _covariates(test_X, cal_X, names, test_text, cal_text)
    X = np.vstack([test, cal])
    y = np.r_[np.ones(len(test), dtype=int), np.zeros(len(cal), dtype=int)]
    folds = make_folds(len(y), n_folds, rng)
    design = Design.fit(X)
    Z = design(X)
    prob, models = oof_probabilities(Z, y, folds, C=C)
    observed = auc(prob, y)
    null = np.array([auc(oof_probabilities(Z, yb, folds, C=C)[0], yb)
                     for yb in (rng.permutation(y) for _ in range(n_permutations))])
    pvalue = (1.0 + np.count_nonzero(null >= observed)) / (n_permutations + 1.0)
    return ShiftCheck(
        auc=observed, pvalue=float(pvalue), level=level, features=names,
        feature_auc=tuple(auc(X[:, j], y) for j in range(X.shape[1])),
        importance=_importance(models, design, X, y, folds, observed, rng),
        null_auc=null, test_prob=prob[: len(test)], cal_prob=prob[len(test):],
        n_test=len(test), n_calibration=len(cal), n_folds=int(folds.max()) + 1, n_permutations=n_permutations,
    )


def _covariates(test_X, cal_X, names, test_text, cal_text):
    if (test_text is None) != (cal_text is None):
        raise ValueError("test_text and cal_text must be given together")
    blocks_test, blocks_cal, all_names = [], [], []
    if test_X is not None or cal_X is not None:
        test, cal = pair(test_X, cal_X)
        blocks_test.append(test)
        blocks_cal.append(cal)
        all_names.extend(feature_names(names, test.shape[1]))
    if test_text is not None:
        ft, fc = text_features(test_text), text_features(cal_text)
        blocks_test.append(ft.to_numpy())
        blocks_cal.append(fc.to_numpy())
        all_names.extend(ft.columns)
    if not blocks_test:
        raise ValueError("shift_check needs covariates (test_X, cal_X) or texts (test_text, cal_text)")
    return np.hstack(blocks_test), np.hstack(blocks_cal), tuple(all_names)
