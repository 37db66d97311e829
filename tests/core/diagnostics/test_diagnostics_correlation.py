"""Cross-model Spearman correlation: against scipy, and its invariances."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import spearmanr

from jecs_core import table_from_frame
from jecs_core.diagnostics import score_correlation, spearman_matrix
from jecs_core.simulate.synthetic import wide_table


@pytest.mark.parametrize("seed", range(5))
def test_matches_scipy_spearmanr_with_ties(seed):
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, 6, (50, 4)).astype(float) + rng.standard_normal((50, 1))  # ties and a shared part
    expected = spearmanr(scores).statistic
    np.testing.assert_allclose(spearman_matrix(scores), expected, rtol=1e-12, atol=1e-12)


def test_summary_is_the_off_diagonal_of_the_matrix():
    rng = np.random.default_rng(3)
    latent = rng.standard_normal((200, 1))
    cal = latent + 0.5 * rng.standard_normal((200, 3))
    table = table_from_frame(wide_table(cal, rng.standard_normal((20, 3)), np.zeros((20, 3), dtype=np.int8)))
    found = score_correlation(table)
    off = spearmanr(cal).statistic[~np.eye(3, dtype=bool)]
    assert found.mean == pytest.approx(off.mean()) and found.min == pytest.approx(off.min())
    assert found.max == pytest.approx(off.max()) and found.n_items == 200
    assert 0.6 < found.mean < 0.9  # correlation 0.8 in the generator, Spearman a little lower
    assert found.to_dict()["matrix"][0][0] == 1.0 and "Spearman" in found.lines()[0]


def test_one_model_has_no_cross_model_correlation():
    rng = np.random.default_rng(0)
    table = table_from_frame(wide_table(rng.standard_normal((30, 1)), rng.standard_normal((10, 1)),
                                        np.zeros((10, 1), dtype=np.int8)))
    found = score_correlation(table)
    assert np.isnan(found.mean) and found.to_dict()["mean"] is None and "n/a" in found.lines()[0]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(3, 40), k=st.integers(2, 5))
def test_symmetric_bounded_and_invariant_to_monotone_maps(seed, n, k):
    rng = np.random.default_rng(seed)
    scores = rng.standard_normal((n, k))
    matrix = spearman_matrix(scores)
    np.testing.assert_allclose(matrix, matrix.T, atol=1e-12)
    assert np.all(np.abs(matrix) <= 1.0) and np.allclose(np.diag(matrix), 1.0)
    warped = np.column_stack([np.exp(scores[:, 0]), scores[:, 1:] ** 3])  # strictly increasing per column
    np.testing.assert_allclose(spearman_matrix(warped), matrix, atol=1e-12)


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="scores"):
        spearman_matrix(np.zeros(5))
    with pytest.raises(ValueError, match="table"):
        score_correlation("scores.csv")
