"""Numbers behind the Learn page's lesson on conformal granularity.

With ``m`` calibration rows no conformal p-value is below ``1 / (m + 1)``, so the Simes thresholds
``delta k / n`` under that value can never be reached, and the textbook Simes template keeps a
floor of about ``n / (delta (m + 1))`` contaminated items however clean a set is.  Here: the bound
of the default rule's set as ``m`` grows, three ways (the library's shipped bound, closed testing
alone, the textbook template), against the true contamination.  Every bound comes from
:mod:`jecs_core.posthoc`; nothing is re-derived.  Pure numpy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from jecs_core import fit_post_hoc
from jecs_core.posthoc import simes_template_bound
from jecs_core.rules import DEFAULT_METHOD, get_rule

from .lesson_looking import simulate_audit

# Calibration sizes the lesson's curves are drawn at (the page adds the slider's own m).
M_GRID = (20, 50, 100, 200, 500, 1000, 2000)


def unreachable_thresholds(n_items: int, calibration_size: int, delta: float) -> int:
    """How many Simes thresholds ``delta k / n`` (k >= 1) lie at or below ``1 / (m + 1)``.

    A threshold ``t`` is reached by a p-value ``p`` when ``p < t`` in the template's count, and no
    conformal p-value is below ``1 / (m + 1)``; this is the template's bound for a set of ``n``
    perfectly clean items (capped at ``n``).

    Parameters
    ----------
    n_items : int
        n, the items the thresholds are spread over.
    calibration_size : int
        m.
    delta : float
        Error level in (0, 1).

    Returns
    -------
    int
        ``min(n, floor(n / (delta (m + 1))))``.
    """
    return int(min(n_items, np.floor(n_items / (delta * (calibration_size + 1)) + 1e-9)))


@dataclass(frozen=True)
class GranularityPoint:
    """Mean bounds of the default rule's set at one calibration size, over ``reps`` fresh tables.

    Attributes
    ----------
    calibration_size : int
        m.
    shipped, closed, template, truth : float
        Mean share of the set: the library's bound (closed testing and the calibration urn, each at
        delta / 2), closed testing alone at delta, the textbook Simes template at delta, and the
        true contaminated share (labels).  Tables with an empty set are left out.
    selected : float
        Mean set size over the tables with a set.
    tables : int
        Tables with a non-empty set.
    clean_template, clean_shipped : int
        Bound of a set of n perfectly clean items (every p-value ``1 / (m + 1)``): the template's
        floor and the library's bound.
    """

    calibration_size: int
    shipped: float
    closed: float
    template: float
    truth: float
    selected: float
    tables: int
    clean_template: int
    clean_shipped: int


def granularity_point(*, calibration_size: int, n_items: int = 500, n_models: int = 4, share: float = 0.3,
                      mu: float = 3.0, delta: float = 0.1, alpha: float = 0.1, reps: int = 20,
                      seed: int = 0) -> GranularityPoint:
    """Bounds of the default rule's set at ``alpha`` on ``reps`` fresh tables with ``m`` calibration rows.

    Parameters
    ----------
    calibration_size : int
        m (>= 1).
    n_items, n_models : int
        Test items n and models K.
    share, mu : float
        Contaminated share of the test items, signal.
    delta, alpha : float
        Error level of the bounds; level of the default rule.
    reps : int
        Fresh tables.
    seed : int

    Returns
    -------
    GranularityPoint
    """
    m = int(calibration_size)
    if m < 1:
        raise ValueError(f"calibration_size must be an integer >= 1, got {calibration_size!r}")
    if int(reps) < 1:
        raise ValueError(f"reps must be an integer >= 1, got {reps!r}")
    rng = np.random.default_rng([seed, m])
    rule = get_rule(DEFAULT_METHOD)
    rows = []
    for _ in range(int(reps)):
        pvalues, contaminated = simulate_audit(rng, n_items=n_items, n_models=n_models, share=share, mu=mu,
                                               calibration_size=m)
        mask = np.asarray(rule.run(pvalues, alpha=alpha).selected, dtype=bool)
        size = int(mask.sum())
        if size == 0:
            continue
        shipped = fit_post_hoc(pvalues, delta=delta, calibration_size=m).bound(mask)
        closed = fit_post_hoc(pvalues, delta=delta).bound(mask)
        template = simes_template_bound(pvalues, mask, delta=delta)
        rows.append((shipped / size, closed / size, template / size, np.count_nonzero(mask & contaminated) / size, size))
    means = np.mean(rows, axis=0) if rows else np.full(5, np.nan)
    clean = np.full(int(n_items), 1.0 / (m + 1))
    everything = np.ones(int(n_items), dtype=bool)
    return GranularityPoint(
        m, *(float(v) for v in means[:4]), float(means[4]), len(rows),
        simes_template_bound(clean, everything, delta=delta),
        fit_post_hoc(clean, delta=delta, calibration_size=m).bound(everything),
    )


@dataclass(frozen=True)
class GranularityLesson:
    """The bounds against m: one :class:`GranularityPoint` per calibration size, ascending.

    Attributes
    ----------
    points : tuple of GranularityPoint
    chosen : int
        The m the page's slider picked (one of the points).
    n_items : int
    delta, alpha : float
    """

    points: tuple
    chosen: int
    n_items: int
    delta: float
    alpha: float

    def series(self, name: str) -> np.ndarray:
        """One attribute of every point, in order of m (``"calibration_size"``, ``"shipped"``, ...)."""
        return np.array([getattr(point, name) for point in self.points], dtype=float)

    @property
    def at_chosen(self) -> GranularityPoint:
        return next(point for point in self.points if point.calibration_size == self.chosen)


def granularity_lesson(points, *, chosen: int, n_items: int, delta: float, alpha: float) -> GranularityLesson:
    """Assemble computed points (any order, the chosen m among them) into the lesson.

    Parameters
    ----------
    points : iterable of GranularityPoint
    chosen : int
        The slider's m.
    n_items : int
    delta, alpha : float

    Returns
    -------
    GranularityLesson
    """
    ordered = tuple(sorted(points, key=lambda point: point.calibration_size))
    if chosen not in {point.calibration_size for point in ordered}:
        raise ValueError(f"chosen must be the calibration size of one of the points, got {chosen!r}")
    return GranularityLesson(ordered, int(chosen), int(n_items), float(delta), float(alpha))
