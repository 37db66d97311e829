"""Pairwise tests: exact McNemar against scipy's binomial test, sign-flip against full enumeration, Holm by its
definition, and the family-wise error on fresh null data."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from jecs_core.leaderboard import PAIRWISE_COLUMNS, holm, mcnemar_exact, pairwise_table, sign_flip


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 60), st.integers(0, 60))
def test_mcnemar_is_the_two_sided_binomial_test_on_discordant_pairs(a_only, b_only):
    expected = 1.0 if a_only + b_only == 0 else stats.binomtest(a_only, a_only + b_only, 0.5).pvalue
    assert mcnemar_exact(a_only, b_only) == pytest.approx(expected, rel=1e-9, abs=1e-12)


def _holm_by_definition(p):
    m, order = len(p), np.argsort(p, kind="stable")
    adjusted = np.empty(m)
    for rank, i in enumerate(order):
        adjusted[i] = min(1.0, max((m - r) * p[order[r]] for r in range(rank + 1)))
    return adjusted


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=12))
def test_holm_matches_its_definition(p):
    np.testing.assert_allclose(holm(p), _holm_by_definition(np.array(p)), atol=1e-15)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.floats(0, 1), st.just(float("nan"))), min_size=1, max_size=12))
def test_holm_leaves_untested_pairs_out_of_the_family(p):
    p = np.array(p)
    tested = ~np.isnan(p)
    adjusted = holm(p)
    assert np.isnan(adjusted[~tested]).all()
    np.testing.assert_allclose(adjusted[tested], _holm_by_definition(p[tested]), atol=1e-15)


@pytest.mark.parametrize("binary", [True, False])
def test_a_pair_with_no_shared_item_has_no_test(binary):
    # a and b never answer the same item; c overlaps both.
    a = np.r_[np.ones(10), np.full(10, np.nan)]
    b = np.r_[np.full(10, np.nan), np.zeros(10)]
    c = np.r_[np.zeros(10), np.ones(10)]
    table = pairwise_table(np.c_[a, b, c], ("a", "b", "c"), [0, 1, 2], binary=binary, rng=np.random.default_rng(0))
    none = table[(table.model_a == "a") & (table.model_b == "b")].iloc[0]
    assert none.n_shared == 0 and np.isnan(none.p_value) and np.isnan(none.p_holm) and not none.significant
    tested = table[table.n_shared > 0]
    np.testing.assert_allclose(tested.p_holm, holm(tested.p_value))  # a family of two, not three


def test_sign_flip_monte_carlo_is_close_to_full_enumeration():
    d = np.array([0.4, 0.1, 0.7, -0.2, 0.3, 0.5, 0.05, 0.6, -0.1, 0.2, 0.0])
    flips = np.array(list(itertools.product([-1, 1], repeat=10)))
    nonzero = d[d != 0]
    exact = np.mean(np.abs(flips @ nonzero) >= abs(nonzero.sum()) - 1e-12)
    assert sign_flip(d, rng=np.random.default_rng(0)) == pytest.approx(exact, abs=0.01)
    assert sign_flip(np.zeros(5), rng=np.random.default_rng(0)) == 1.0


def test_pairwise_table_on_known_counts():
    # a beats b on 12 items, b beats a on 2, both right on 20, both wrong on 6; c never has a result on item 0.
    a = np.r_[np.ones(12), np.zeros(2), np.ones(20), np.zeros(6)]
    b = np.r_[np.zeros(12), np.ones(2), np.ones(20), np.zeros(6)]
    c = a.copy()
    c[0] = np.nan
    table = pairwise_table(np.c_[a, b, c], ("a", "b", "c"), [0, 2, 1], binary=True, rng=np.random.default_rng(0))
    assert list(table.columns) == list(PAIRWISE_COLUMNS)
    assert list(zip(table.model_a, table.model_b)) == [("a", "c"), ("a", "b"), ("c", "b")]
    row = table.iloc[1]
    assert row.n_shared == 40 and row.mean_a == pytest.approx(32 / 40) and row.mean_b == pytest.approx(22 / 40)
    assert row.p_value == pytest.approx(stats.binomtest(2, 14, 0.5).pvalue)
    assert table.iloc[0].n_shared == 39 and table.iloc[0].p_value == 1.0
    assert table.iloc[2].n_shared == 39
    np.testing.assert_allclose(table.p_holm, holm(table.p_value))


def test_the_family_wise_error_stays_at_the_level_on_fresh_null_data():
    """Five models of equal skill: Holm keeps the chance of any significant pair near or below 5%."""
    rng = np.random.default_rng(21)
    any_binary = any_mean = 0
    runs = 200
    for _ in range(runs):
        shared = rng.random((150, 1)) < 0.6  # correlated answers, as on one benchmark
        values = np.where(rng.random((150, 5)) < 0.5, shared, rng.random((150, 5)) < 0.6).astype(float)
        any_binary += pairwise_table(values, "abcde", range(5), binary=True, rng=rng)["significant"].any()
        scores = rng.normal(size=(150, 1)) + rng.normal(size=(150, 5))
        any_mean += pairwise_table(scores, "abcde", range(5), binary=False, rng=rng)["significant"].any()
    assert any_binary / runs <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / runs)
    assert any_mean / runs <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / runs)


def test_a_real_difference_is_found():
    rng = np.random.default_rng(22)
    values = np.c_[rng.random(400) < 0.7, rng.random(400) < 0.5].astype(float)
    assert pairwise_table(values, "ab", [0, 1], binary=True, rng=rng)["significant"].all()
    scores = np.c_[rng.normal(0.3, 1, 400), rng.normal(0, 1, 400)]
    assert pairwise_table(scores, "ab", [0, 1], binary=False, rng=rng)["significant"].all()
