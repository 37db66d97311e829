"""The score-table path: table_pvalues(covariates=...), covariate selection, the table shift check."""

from __future__ import annotations

import numpy as np
import pytest

import jecs_core as jc
from jecs_core.shift import parse_covariates, shift_pvalues, table_shift_check, table_shift_pvalues
from jecs_core.simulate.shift_scenarios import location_shift, mixture_shift


@pytest.fixture(scope="module")
def table():
    frame = mixture_shift(np.random.default_rng(0), pool_size=500)
    # Texts whose length follows the source, so the text features see the shift too.
    frame["text"] = ["word " * (5 + 20 * int(s)) for s in frame["x_src"]]
    return jc.table_from_frame(frame)


def test_default_path_is_unchanged(table):
    assert np.array_equal(jc.table_pvalues(table), jc.conformal_pvalues(table.test, table.calibration))
    assert np.array_equal(jc.table_pvalues(table, covariates="all", shift_method="none"),
                          jc.conformal_pvalues(table.test, table.calibration))
    with pytest.raises(ValueError, match="shift_method"):
        jc.table_pvalues(table, shift_method="magic")
    for bogus in ("bogus", ["x_age"]):  # unused with "none", yet a misspelt covariate is still refused
        with pytest.raises(ValueError, match="covariates"):
            jc.table_pvalues(table, covariates=bogus, shift_method="none")


@pytest.mark.parametrize("method", ["auto", "weighted", "residual"])
def test_covariate_path_matches_the_array_function(table, method):
    expected = shift_pvalues(table.test, table.calibration, table.covariates, table.calibration_covariates, method=method)
    got = jc.table_pvalues(table, covariates=["x_src", "len"], shift_method=method)
    # Equal up to rounding: the classifier's BLAS calls may round differently on a column-sliced copy.
    np.testing.assert_allclose(got, expected.pvalues, rtol=0, atol=1e-12)
    np.testing.assert_allclose(jc.table_pvalues(table, covariates="all", shift_method=method), got, rtol=0, atol=1e-12)


def test_covariate_names_are_checked(table):
    with pytest.raises(ValueError, match=r"x_age.*not in the table"):
        table_shift_pvalues(table, covariates=["age"])
    with pytest.raises(ValueError, match="sequence of names"):
        table_shift_pvalues(table, covariates="len")
    bare = jc.table_from_frame(location_shift(np.random.default_rng(1), pool_size=100).drop(columns="x_len"))
    with pytest.raises(ValueError, match="no x_<name> covariate"):
        table_shift_pvalues(bare, covariates="all")


def test_table_shift_check_uses_covariates_and_text(table):
    result = table_shift_check(table, n_permutations=19)
    assert result.features[:2] == ("src", "len") and "t_words" in result.features
    assert result.shifted
    text_only = table_shift_check(table, covariates=None, n_permutations=19)
    assert text_only.features[0] == "t_words" and text_only.shifted
    again = table_shift_check(table, n_permutations=19)
    assert again.pvalue == result.pvalue and again.auc == result.auc  # seeded by default


def test_parse_covariates():
    assert parse_covariates("all") == "all"
    assert parse_covariates("x_len, src") == ("x_len", "src")
    for bad in ("", "x_len,", "x_"):
        with pytest.raises(ValueError, match="covariates"):
            parse_covariates(bad)
