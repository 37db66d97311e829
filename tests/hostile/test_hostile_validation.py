"""jecs_core._validation: one validator per kind of value; hostile values give one ValueError naming the argument."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jecs_core._validation import (
    check_alpha,
    check_fraction,
    check_knn,
    check_lam,
    check_lambda,
    check_lambda_grid,
    check_positive_int,
    check_pvalue_matrix,
    check_rng,
    check_seed,
)

HOSTILE = [None, True, "0.5", b"1", float("nan"), float("inf"), -1, 2, [0.5], object(), 1e400]


@pytest.mark.parametrize("value", HOSTILE)
@pytest.mark.parametrize("check, name", [(check_alpha, "alpha"), (check_lambda, "lam")])
def test_open_unit_interval_refuses_hostile_values(check, name, value):
    with pytest.raises(ValueError, match=rf"^{name} must be"):
        check(value, name)


def test_fraction_ends():
    assert check_fraction(0, "f") == 0.0 and check_fraction(1, "f") == 1.0
    with pytest.raises(ValueError, match=r"^draw_fraction must be in \(0, 1\], got 0$"):
        check_fraction(0, "draw_fraction", include_zero=False)
    with pytest.raises(ValueError, match=r"^rho must be in \[0, 1\], got 1.5$"):
        check_fraction(1.5, "rho")
    with pytest.raises(ValueError, match=r"^rho must be a number in \[0, 1\], got 'x'$"):
        check_fraction("x", "rho")


def test_lam_knn_grid_seed_rng():
    assert check_lam("auto") == "auto" and check_lam(0.7) == 0.7
    with pytest.raises(ValueError, match=r"^lam must be 'auto' or a number in \(0, 1\), got 'high'$"):
        check_lam("high")
    assert check_knn(None) is None and check_knn("auto") is None and check_knn(4) == 4 and check_knn(4.0) == 4 and check_knn(np.int64(3)) == 3
    for bad in (0, -2, 2.5, True, "3", float("nan"), float("inf")):
        with pytest.raises(ValueError, match=r"^knn must be a positive integer or 'auto' \(automatic\)"):
            check_knn(bad)
    assert check_lambda_grid([0.2, 0.5]) == (0.2, 0.5)
    for bad in ([], "0.5", [0.5, 1.0], 0.5):
        with pytest.raises(ValueError, match=r"^lambda_grid"):
            check_lambda_grid(bad)
    assert check_seed(None) is None and check_seed(np.int64(7)) == 7 and check_seed(1.0) == 1  # counts' one rule
    for bad in (-1, 1.5, True, "1"):
        with pytest.raises(ValueError, match=r"^seed must be a non-negative integer or None"):
            check_seed(bad)
    assert isinstance(check_rng(None), np.random.Generator)
    with pytest.raises(ValueError, match=r"^rng must be a numpy.random.Generator, got int$"):
        check_rng(3, allow_none=False)
    with pytest.raises(ValueError, match=r"^rng must be a numpy.random.Generator or None, got RandomState$"):
        check_rng(np.random.RandomState(0))
    with pytest.raises(ValueError, match=r"^reps must be an integer >= 1, got 0$"):
        check_positive_int(0, "reps")


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_lambda_accepts_exactly_the_open_interval(value):
    if np.isfinite(value) and 0 < value < 1:
        assert check_lambda(value) == value
    else:
        with pytest.raises(ValueError, match="^lam must be"):
            check_lambda(value)


@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1, max_size=6))
def test_pvalue_matrix_refuses_values_outside_the_unit_interval(values):
    ok = all(np.isfinite(v) and 0 <= v <= 1 for v in values)
    if ok:
        assert check_pvalue_matrix(values).shape == (len(values), 1)
    else:
        with pytest.raises(ValueError, match="^pvalues must hold finite values in"):
            check_pvalue_matrix(values)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.floats(0, 1)),
                         min_size=2, max_size=2), min_size=1, max_size=20))
def test_pvalue_matrix_accepts_exactly_finite_values_in_the_unit_interval(rows):
    values = np.asarray(rows, dtype=float)
    usable = bool(np.all(np.isfinite(values)) and values.min() >= 0.0 and values.max() <= 1.0)
    try:
        check_pvalue_matrix(values)
        accepted = True
    except ValueError as exc:
        assert "must hold finite values in [0, 1]" in str(exc)
        accepted = False
    assert accepted == usable


def test_counts_take_every_spelling_of_a_whole_number_and_nothing_else():
    import decimal

    for whole in (5, np.int64(5), 5.0, np.float32(5.0), np.array(5), decimal.Decimal(5)):
        assert check_knn(whole) == 5 and check_positive_int(whole, "reps") == 5
    for bad in (decimal.Decimal("5.5"), decimal.Decimal("NaN"), np.array([5]), np.array(5.5), np.bool_(True)):
        with pytest.raises(ValueError, match=r"^knn must be a positive integer"):
            check_knn(bad)


def test_alphas_come_in_any_ordered_form_and_a_table_of_them_is_named():
    from jecs_core._validation import check_alphas

    for spelt in ((0.1, 0.2), [0.1, 0.2], np.array([0.1, 0.2]), (a for a in (0.1, 0.2)), {1: 0.1, 2: 0.2}.values()):
        assert check_alphas(spelt) == (0.1, 0.2)
    for bad in (np.array([[0.1, 0.2]]), np.array([[0.1], [0.2]])):
        with pytest.raises(ValueError, match=r"^alphas must be a 1-D sequence of numbers in \(0, 1\), got shape"):
            check_alphas(bad)


@pytest.mark.parametrize("check", [
    lambda m: __import__("jecs_core._validation", fromlist=["x"]).real_array(m, "correct", booleans=True),
    lambda m: __import__("jecs_core._validation", fromlist=["x"]).check_mask(m, 3, "correct"),
])
def test_a_masked_boolean_column_is_refused_on_every_path(check):
    masked = np.ma.masked_array([True, False, True], mask=[0, 1, 0])
    with pytest.raises(ValueError, match=r"^correct has masked values; fill or drop the masked values first$"):
        check(masked)


def test_a_level_takes_the_number_spellings_a_count_takes():
    import decimal

    from jecs_core._validation import check_alpha

    for spelt in (0.1, np.float32(0.1), np.array(0.1), decimal.Decimal("0.1")):
        assert abs(check_alpha(spelt) - 0.1) < 1e-7
    for bad in (decimal.Decimal("NaN"), np.array([0.1]), np.bool_(True), "0.1", True):
        with pytest.raises(ValueError, match=r"^alpha must be a number in \(0, 1\)"):
            check_alpha(bad)
