"""Conformal p-values of test items against a calibration set of known members: the array kernel.

Public through :mod:`jecs_core.conformal` (``conformal_pvalues``, ``ordered_keys``); it lives below
that module so the calibration-shift package, which :func:`jecs_core.conformal.table_pvalues`
calls, can use the same implementation without an import cycle.

For model k and test item i (paper, eq. prelim-model-p)::

    p_i^k = (1 + #{l in calibration : T_l^k <= T_i^k}) / (m + 1)

Scores are oriented so that larger means more member-like; a small p-value is
evidence that the item is *not* a member of model k.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ._blocks import row_blocks
from ._probe import scrambled_uniforms, shortcut_pays
from ._rank import at_most_counter, count_at_most, count_at_most_unsorted
from ._validation import check_score_matrix

# Below this many cells of work (test plus calibration, times K) the thread pool costs more
# than it saves (benchmarks/bench_pvalues.py times the serial and threaded paths side by side;
# the calibration sort or its ranking is as much of the work as the test look-ups).
# Sorting a test column to make its look-ups cache-friendly is not done: its argsort costs more than
# the cache misses it saves; the bucket table of jecs_core._rank saves them (the same benchmark times all three).
_PARALLEL_MIN_CELLS = 2_000_000
# From this many calibration rows per test row the test scores are ranked instead of the
# calibration column sorted, where numpy's sort is scalar code (benchmarks/bench_pvalues.py: 0.68x
# the binary search's time at m = 4n, 1.08x at m = 2n); where it is SIMD, sorting is faster at
# every shape measured (benchmarks/bench_rank.py), so a probe decides (ranking_pays).
_RANK_TEST_FROM = 3
# The probe: untied scores in no order, m = 16n.
_PROBE_TEST, _PROBE_CALIBRATION = 2048, 32768
_ranking_pays: bool | None = None


def ranking_pays() -> bool:
    """Whether ranking the test scores beats sorting the calibration column here: timed once per process.

    Both give the same counts; which is faster depends on numpy's sort (``jecs_core._probe``).
    """
    global _ranking_pays
    if _ranking_pays is None:
        test, cal = scrambled_uniforms(_PROBE_TEST, 1), scrambled_uniforms(_PROBE_CALIBRATION, 99_991)
        _ranking_pays = shortcut_pays(lambda: count_at_most_unsorted(cal, test),
                                      lambda: count_at_most(np.sort(cal), test))
    return _ranking_pays


def ordered_keys(values: np.ndarray) -> np.ndarray:
    """int64 keys that sort, and tie, exactly as the finite float64 ``values`` do.

    The IEEE bit pattern read as a signed integer orders non-negative floats; flipping the
    63 low bits of the negative ones reverses their order into place.  ``-0.0`` is mapped
    to ``+0.0`` first (adding zero does it) so the two zeros stay tied.
    """
    bits = np.add(values, 0.0).view(np.int64)
    bits ^= (bits >> 63) & np.int64(0x7FFF_FFFF_FFFF_FFFF)
    return bits


def _same_columns(test_scores, calibration_scores):
    """Two DataFrames are matched by column name, not position; other inputs pass unchanged."""
    names = [getattr(getattr(scores, "columns", None), "tolist", None) for scores in (test_scores, calibration_scores)]
    if names[0] is None or names[1] is None:
        return calibration_scores
    test_names, cal_names = names[0](), names[1]()
    if test_names == cal_names:
        return calibration_scores
    # Matched by the names as text: 0 and "0" (a CSV's header against a frame built in memory) are one model.
    by_name = {str(c): c for c in cal_names}
    if (sorted(map(str, test_names)) != sorted(by_name) or len(by_name) != len(cal_names)
            or len(set(map(str, test_names))) != len(test_names)):
        raise ValueError(f"test_scores and calibration_scores must have the same model columns, each once, got "
                         f"{test_names} and {cal_names}")
    return calibration_scores[[by_name[str(name)] for name in test_names]]


def conformal_pvalues(test_scores, calibration_scores, *, rng: np.random.Generator | None = None) -> np.ndarray:
    """Per-model conformal p-values.

    Parameters
    ----------
    test_scores : array_like, shape (n, K) or (n,)
        Detection scores of the test items, one column per model, larger = more member-like.
        A float32 pair (both arrays) is searched as float32, with the same result as in float64.
    calibration_scores : array_like, shape (m, K) or (m,)
        Scores of the calibration items (known members of every model), same columns.
    rng : numpy.random.Generator, optional
        If given, ties between a test score and calibration scores are broken at random
        (``p = (#{T_l < T_i} + U (1 + #{T_l = T_i})) / (m + 1)`` with ``U ~ Unif(0, 1)``),
        which makes the p-value exactly uniform under exchangeability.  By default the
        deterministic (conservative) form is used: the default rule's finite-sample guarantee is
        for that form only (docs/GUARANTEES.md, "Deterministic p-values only"); with randomized
        p-values and a small calibration set it measured above alpha, where ``jmcs`` did not.

    Returns
    -------
    numpy.ndarray, shape (n, K)
        p-values in ``{1/(m+1), ..., 1}`` (deterministic form) or in ``(0, 1]`` (randomized).

    Examples
    --------
    Three calibration members per model; a test item scoring below every member gets the
    smallest p-value, 1/(m+1):

    >>> import numpy as np
    >>> calibration = np.array([[2.0, 1.0], [3.0, 2.5], [4.0, 3.0]])
    >>> conformal_pvalues(np.array([[0.5, 0.1], [3.5, 2.8]]), calibration)
    array([[0.25, 0.25],
           [0.75, 0.75]])
    """
    calibration_scores = _same_columns(test_scores, calibration_scores)
    # float32 scores stay float32 (sorting and searching them moves half the bytes); the counts are
    # the same as after widening, since every comparison is. Mixed precisions, and the randomized
    # form's integer keys, work in float64.
    test = check_score_matrix(test_scores, "test_scores", keep_float32=True)
    cal = check_score_matrix(calibration_scores, "calibration_scores", keep_float32=True)
    if test.dtype != cal.dtype or rng is not None:
        test, cal = test.astype(float, copy=False), cal.astype(float, copy=False)
    if test.shape[1] != cal.shape[1]:
        raise ValueError(
            f"test_scores has {test.shape[1]} model column(s) but calibration_scores has {cal.shape[1]}"
        )
    m = cal.shape[0]
    if m == 0:
        raise ValueError("calibration_scores must have at least one row")
    if cal.shape[1] == 0:
        raise ValueError("test_scores and calibration_scores must have at least one column (model)")
    if rng is not None and not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator or None, got {type(rng).__name__}")

    n, n_models = test.shape
    # Column-major output: each worker fills one contiguous column.
    out = np.empty((n, n_models), dtype=float, order="F")
    # Draw the tie-breaking uniforms up front so the result does not depend on threading.
    uniforms = rng.random((n, n_models)) if rng is not None else None
    # Decided once here, not in the column workers: a first probe there would run in each thread at once.
    ranked = bool(rng is None and n and m >= _RANK_TEST_FROM * n and ranking_pays())

    def fill_column(k: int) -> None:
        target = out[:, k]
        if ranked:
            # Far fewer test items than calibration items: ranking the test scores is cheaper
            # than sorting the calibration column; the counts, and so the p-values, are the same.
            np.divide(count_at_most_unsorted(cal[:, k], test[:, k]), m + 1, out=target)
            return
        # Each worker sorts its own calibration column (a contiguous copy sorts faster than
        # numpy's strided sort along axis 0, and the sort runs in parallel with the others).
        ordered = np.sort(cal[:, k])
        if rng is None:
            # A bucket table answers most look-ups without a binary search (jecs_core._rank);
            # (1 + c) / (m + 1) is one division, rounded as the formula is. Row blocks keep the
            # look-up's buffers in cache and out of the peak memory.
            scores = test[:, k]
            count = at_most_counter(ordered, queries=scores)
            for rows in row_blocks(n):
                np.divide(count(scores[rows]), m + 1, out=target[rows])
            return
        # Both counts by binary search on order-preserving int64 keys (integer comparisons are
        # cheaper than numpy's NaN-aware float ones).  A leading key below every score makes
        # searchsorted return 1 + the count.
        reference = np.empty(m + 1, dtype=np.int64)
        reference[0] = np.iinfo(np.int64).min
        reference[1:] = ordered_keys(ordered)
        keys = ordered_keys(test[:, k])
        at_most = np.searchsorted(reference, keys, side="right")  # 1 + #{T_l <= T_i}
        below = np.searchsorted(reference, keys, side="left")  # 1 + #{T_l < T_i}
        np.add(1.0, at_most - below, out=target)
        target *= uniforms[:, k]
        target += below - 1
        target /= m + 1

    workers = min(n_models, os.cpu_count() or 1)
    if workers > 1 and (n + m) * n_models >= _PARALLEL_MIN_CELLS:
        # searchsorted and sort release the GIL, so threads use every core.
        with ThreadPoolExecutor(max_workers=workers) as pool:
            list(pool.map(fill_column, range(n_models)))
    else:
        for k in range(n_models):
            fill_column(k)
    return out
