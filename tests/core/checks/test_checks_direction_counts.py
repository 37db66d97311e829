"""The reversed-score check's pair counts, on both of its paths, against the all-pairs definition."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from jecs_core.checks.direction import _BUCKETS_FROM, _aucs


def _pairs(test, calibration):
    t, c = test[:, None], calibration[None, :]
    return ((t > c) + 0.5 * (t == c)).mean()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), m=st.sampled_from([1, 7, _BUCKETS_FROM - 1, _BUCKETS_FROM, 3000]),
       n=st.integers(1, 300), decimals=st.sampled_from([0, 1, 3]))
def test_aucs_equal_the_share_of_pairs_on_ties_and_both_paths(seed, m, n, decimals):
    rng = np.random.default_rng(seed)
    calibration = rng.normal(size=(m, 2)).round(decimals)
    test = np.r_[rng.normal(0.5, 1, size=(n, 2)).round(decimals), calibration[: min(n, m) // 2]]
    got = _aucs(test, np.sort(calibration.T, axis=1))
    for k in range(2):
        assert got[k] == _pairs(test[:, k], calibration[:, k])


def test_scores_beyond_the_calibration_range_and_infinite_queries():
    calibration = np.linspace(-1, 1, 2000)
    test = np.array([-np.inf, -5.0, 0.0, 5.0, np.inf])
    got = _aucs(test[:, None], calibration[None, :])[0]
    assert got == _pairs(test, calibration)
