"""Member AUC on the Data page against a brute-force pair count (ties, NaN classes, shapes)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dashboard.data_summary import auc


def _brute(scores, labels) -> float:
    pos, neg = scores[labels], scores[~labels]
    return ((pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()) / (pos.size * neg.size)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 3), st.booleans()), min_size=2, max_size=40))
def test_auc_equals_the_pair_count_with_ties(pairs):
    scores = np.array([float(s) for s, _ in pairs])
    labels = np.array([b for _, b in pairs])
    if labels.all() or not labels.any():
        assert np.isnan(auc(scores, labels))
    else:
        assert auc(scores, labels) == pytest.approx(_brute(scores, labels))


def test_auc_edges():
    assert auc([0.0, 1.0], [0, 1]) == 1.0 and auc([1.0, 0.0], [0, 1]) == 0.0 and auc([1.0, 1.0], [0, 1]) == 0.5
    with pytest.raises(ValueError, match="same shape"):
        auc([1.0, 2.0], [1])


def test_auc_on_a_simulated_signal_matches_the_normal_theory():
    rng = np.random.default_rng(0)
    labels = rng.random(200_000) < 0.3
    scores = rng.normal(size=labels.size) + 1.0 * labels
    # For N(1, 1) vs N(0, 1) the AUC is Phi(1 / sqrt(2)) = 0.7602...
    assert auc(scores, labels) == pytest.approx(0.76025, abs=0.004)
