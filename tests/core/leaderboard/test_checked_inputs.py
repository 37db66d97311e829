"""The public interval and test helpers refuse what they cannot compute, naming the argument, in one line."""

from __future__ import annotations

import numpy as np
import pytest

from jecs_core.leaderboard import (
    holm,
    mcnemar_exact,
    mean_interval,
    pairwise_table,
    sign_flip,
    truly_clean_range,
    wilson_interval,
)

RNG = np.random.default_rng  # a fresh generator per call


@pytest.mark.parametrize(("call", "message"), [
    (lambda: sign_flip([1.0, np.nan, 2.0], rng=RNG(0)), r"^differences must be finite numbers, got nan at position 1$"),
    (lambda: sign_flip([1.0, 2.0], rng=None), r"^rng must be a numpy.random.Generator"),
    (lambda: sign_flip([1.0, 2.0], rng=RNG(0), draws=0), r"^draws must be an integer >= 1, got 0$"),
    (lambda: truly_clean_range([[1, 0, 1]], 1), r"^values must be one-dimensional \(one value per item\), got shape \(1, 3\)$"),
    (lambda: truly_clean_range([1, np.inf], 1), r"^values must be finite numbers, got inf at position 1$"),
    (lambda: truly_clean_range([1, 0], -1), r"^max_contaminated must be an integer >= 0, got -1$"),
    (lambda: truly_clean_range([1, 0], 1.5), r"^max_contaminated must be an integer >= 0, got 1.5$"),
    (lambda: mcnemar_exact(-5, 3), r"^a_only must be an integer >= 0, got -5$"),
    (lambda: mcnemar_exact(5, 2.5), r"^b_only must be an integer >= 0, got 2.5$"),
    (lambda: holm([-1.0, 0.1]), r"^pvalues must be in \[0, 1\] \(NaN: no test\), got -1.0 at position 0$"),
    (lambda: holm([0.1, np.inf]), r"^pvalues must be in \[0, 1\] \(NaN: no test\), got inf at position 1$"),
    (lambda: holm([[0.1, 0.2]]), r"^pvalues must be one-dimensional \(one p-value per test\), got shape \(1, 2\)$"),
    (lambda: holm(0.1), r"^pvalues must be one-dimensional \(one p-value per test\), got shape \(\)$"),
    (lambda: wilson_interval(12, 10), r"^successes and n must be counts with 0 <= successes <= n, got successes=12.0, n=10.0$"),
    (lambda: wilson_interval([1, 5], [3, 4]), r"got successes=5.0, n=4.0$"),
    (lambda: wilson_interval(1, np.nan), r"got successes=1.0, n=nan$"),
    (lambda: wilson_interval(8, 10, confidence=1.5), r"^confidence must be in the open interval \(0, 1\), got 1.5 \(a percentage: 1.5% is 0.015\)$"),
    (lambda: mean_interval([1, 2, 3], rng=None), r"^rng must be a numpy.random.Generator, got NoneType$"),
    (lambda: mean_interval(3.0, rng=RNG(0)), r"^values must be one-dimensional \(one value per item\), got shape \(\)$"),
    (lambda: mean_interval([1, 2, 3], draws=0, rng=RNG(0)), r"^draws must be an integer >= 1, got 0$"),
    (lambda: mean_interval([1, np.inf, 3], rng=RNG(0)), r"^values must be finite numbers, got inf at position 1$"),
    (lambda: mean_interval([1, 2, 3], confidence=0, rng=RNG(0)), r"^confidence must be in the open interval \(0, 1\)"),
    (lambda: pairwise_table(np.ones((3, 2)), "ab", [0, 5], binary=True, rng=RNG(0)),
     r"^order must be distinct model indices in \[0, 2\), got \[0, 5\]$"),
    (lambda: pairwise_table(np.ones((3, 2)), "ab", [1, 1], binary=True, rng=RNG(0)), r"^order must be distinct model indices"),
    (lambda: pairwise_table(np.ones((3, 2)), "abc", [0, 1], binary=True, rng=RNG(0)),
     r"^models must name the 2 columns of values, got 3 name\(s\)$"),
    (lambda: pairwise_table(np.ones(3), "a", [0], binary=True, rng=RNG(0)), r"^values must be two-dimensional"),
    (lambda: pairwise_table(np.full((3, 2), 0.5), "ab", [0, 1], binary=True, rng=RNG(0)), r"^values must be 0/1 with binary=True"),
    (lambda: pairwise_table(np.ones((3, 2)), "ab", [0, 1], binary=True, level=2, rng=RNG(0)), r"^level must be in the open interval"),
])
def test_bad_input_is_one_line_naming_the_argument(call, message):
    with pytest.raises(ValueError, match=message) as caught:
        call()
    assert "\n" not in str(caught.value)


def test_good_input_gives_what_it_gave_before():
    assert truly_clean_range([1, 1, 1, 0, 0], 1) == (0.5, 0.75) and truly_clean_range([1, 0], np.int64(9)) == (0.0, 1.0)
    assert mcnemar_exact(np.int64(0), 0) == 1.0
    assert mcnemar_exact(9.0, np.float64(1)) == mcnemar_exact(9, 1) < 0.05  # whole floats: a float column's sums
    np.testing.assert_allclose(holm([0.01, np.nan, 0.03]), [0.02, np.nan, 0.03])
    assert holm([]).shape == (0,)
    low, high = wilson_interval(np.array([0, 3]), np.array([0, 3]))
    assert np.isnan(low[0]) and high[1] == 1.0
    assert sign_flip([0.0, 0.0], rng=RNG(0)) == 1.0
    table = pairwise_table(np.array([[1, np.nan], [0, 1.0]]), ["a", "b"], np.array([1, 0]), binary=True, rng=RNG(0))
    assert table[["model_a", "model_b", "n_shared"]].values.tolist() == [["b", "a", 1]]
