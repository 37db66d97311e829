"""The random part of the evaluation protocol: which items each repetition uses.

Paper appendix "Evaluation protocol": every repetition draws 80% of the
calibration set and 80% of the test set uniformly without replacement.
Repetition ``r`` draws from its own stream, child ``r`` of the seed's
:class:`numpy.random.SeedSequence`, so its items depend only on the seed and on
``r``: not on how repetitions are split across workers, and not on how many
repetitions are run (the first 100 of a 500-repetition run are a 100-repetition run).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._validation import check_fraction as shared_check_fraction
from .._validation import check_positive_int, check_seed

DEFAULT_DRAW_FRACTION = 0.8


def draw_size(total: int, fraction: float) -> int:
    """Items drawn per repetition: ``round(fraction * total)``, at least 1 and at most ``total``."""
    return int(min(total, max(1, math.floor(fraction * total + 0.5))))


def check_fraction(fraction, name: str = "draw_fraction") -> float:
    """``fraction`` as a float in (0, 1], or a ValueError naming ``name`` (the shared fraction check)."""
    return shared_check_fraction(fraction, name, include_zero=False)


@dataclass(frozen=True)
class Draws:
    """Row indices used by a run of repetitions (each row sorted ascending).

    Attributes
    ----------
    calibration : numpy.ndarray of int, shape (reps, m_drawn)
        Calibration rows of each repetition.
    test : numpy.ndarray of int, shape (reps, n_drawn)
        Test rows of each repetition.
    seed : int
        The entropy the draws were made from (reproduces them).
    """

    calibration: np.ndarray
    test: np.ndarray
    seed: int

    @property
    def reps(self) -> int:
        return int(self.test.shape[0])

    def chunk(self, start: int, stop: int) -> Draws:
        """Repetitions ``start:stop``."""
        return Draws(self.calibration[start:stop], self.test[start:stop], self.seed)


def _subset(rng: np.random.Generator, total: int, size: int) -> np.ndarray:
    """A uniform random ``size``-subset of ``range(total)``, sorted (the head of a random permutation)."""
    if size == total:
        return np.arange(total)
    return np.sort(rng.permutation(total)[:size])


@dataclass(frozen=True)
class DrawPlan:
    """How to draw every repetition's subsets, without holding them all in memory.

    Attributes
    ----------
    n_calibration, n_test : int
        Sizes of the full sets.
    reps : int
    fraction : float
        Share of each set drawn per repetition.
    seed : int
        Entropy of the root :class:`numpy.random.SeedSequence`.
    """

    n_calibration: int
    n_test: int
    reps: int
    fraction: float
    seed: int

    @property
    def m_drawn(self) -> int:
        return draw_size(self.n_calibration, self.fraction)

    @property
    def n_drawn(self) -> int:
        return draw_size(self.n_test, self.fraction)

    def draw(self, start: int = 0, stop: int | None = None) -> Draws:
        """The subsets of repetitions ``start:stop``."""
        stop = self.reps if stop is None else stop
        cal = np.empty((stop - start, self.m_drawn), dtype=np.intp)
        test = np.empty((stop - start, self.n_drawn), dtype=np.intp)
        for i, r in enumerate(range(start, stop)):
            rng = np.random.default_rng(np.random.SeedSequence(self.seed, spawn_key=(r,)))
            cal[i] = _subset(rng, self.n_calibration, self.m_drawn)
            test[i] = _subset(rng, self.n_test, self.n_drawn)
        return Draws(cal, test, self.seed)


def draw_plan(n_calibration: int, n_test: int, *, reps: int, fraction: float = DEFAULT_DRAW_FRACTION,
              seed: int | None = 0) -> DrawPlan:
    """A :class:`DrawPlan`; ``seed=None`` draws fresh entropy (kept in ``.seed``). Arguments as in :func:`draw_subsamples`."""
    sizes = [check_positive_int(size, name) for size, name in ((n_calibration, "n_calibration"), (n_test, "n_test"))]
    reps, fraction = check_positive_int(reps, "reps"), check_fraction(fraction, "fraction")
    return DrawPlan(*sizes, reps, fraction, int(np.random.SeedSequence(check_seed(seed)).entropy))


def draw_subsamples(n_calibration: int, n_test: int, *, reps: int, fraction: float = DEFAULT_DRAW_FRACTION,
                    seed: int | None = 0) -> Draws:
    """Draw the calibration and test subsets of every repetition.

    Parameters
    ----------
    n_calibration, n_test : int
        Sizes of the full calibration and test sets (at least 1).
    reps : int
        Number of repetitions (at least 1).
    fraction : float
        Share of each set drawn per repetition, in (0, 1] (the paper uses 0.8).
    seed : int or None
        Seed of the draws, a non-negative integer; ``None`` draws fresh entropy (recorded in the result).

    Returns
    -------
    Draws
        The same subsets :func:`jecs_core.evaluate.evaluate` uses for this seed.
    """
    return draw_plan(n_calibration, n_test, reps=reps, fraction=fraction, seed=seed).draw()
