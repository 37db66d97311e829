"""Public functions refuse what they cannot use, naming the argument, and fitted objects stay true to their input."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

import jecs_core as jc
from jecs_core import ResultsTable
from jecs_core.multitest import bh_adjusted, storey_bh


@pytest.fixture()
def p():
    values = np.random.default_rng(5).uniform(size=(50, 2))
    values[:15] *= 0.001
    return values


@pytest.mark.parametrize(("values", "message"), [
    ([[0.5 + 5j, 0.01]], "pvalues must hold numbers only, got complex numbers"),
    (np.array([[True, False]] * 20), "pvalues must hold numbers only, got booleans"),
    (["0.01", "0.5"], "pvalues must hold numbers only, got text"),
    (pd.DataFrame({"a": ["0.1", "0.2"]}, dtype=object), r"pvalues must hold numbers only, got text \('0.1'\)"),
    (pd.DataFrame({"a": [0.1, 0.2], "b": [True, False]}), "pvalues must hold numbers only, got booleans"),
    (pd.DataFrame({"a": pd.array([0.1, None], dtype="Float64")}), r"pvalues must hold finite values in \[0, 1\]"),
    ({"a": 0.1}, "pvalues must be an array of numbers, got dict"),
    ([[0.1], [0.2, 0.3]], "pvalues must be a rectangular array of numbers"),
])
def test_pvalues_that_are_no_numbers_are_refused_by_every_entry_point(values, message):
    for call in (jc.max_p, lambda v: jc.select(v, alpha=0.1), lambda v: jc.compare_pvalues(v, alpha=0.1),
                 lambda v: jc.get_rule("union").prepare(v)):
        with pytest.raises(ValueError, match=message):
            call(values)


def test_numbers_in_every_numeric_dtype_and_container_give_one_answer(p):
    expected = jc.select(p, alpha=0.1).selected
    for same in (p.tolist(), pd.DataFrame(p), np.asfortranarray(p), p.astype(np.float32).astype(float)):
        assert np.array_equal(jc.select(same, alpha=0.1).selected, expected)
    assert jc.max_p(np.array([[1, 0]])).tolist() == [1.0]  # integers are numbers


@pytest.mark.parametrize("p_max", [[-5, 0.1, 0.7, 2.0, 3.0], [np.nan, 0.6, 0.7], [0.6, np.inf]])
def test_the_envelope_refuses_values_outside_the_unit_interval(p_max):
    with pytest.raises(ValueError, match=r"p_max must hold finite values in \[0, 1\]"):
        jc.fit_envelope(p_max, 0.5)
    with pytest.raises(ValueError, match="p_max must be one-dimensional, got shape"):
        jc.fit_envelope(np.full((2, 2), 0.6), 0.5)


def test_a_wrong_sorted_values_is_refused_not_used(p):
    values = p[:, 0]
    assert storey_bh(values, alpha=0.1, sorted_values=np.sort(values)).n_selected == storey_bh(values, alpha=0.1).n_selected
    for wrong in (np.zeros(50), np.sort(values)[::-1], np.sort(values)[:10]):
        with pytest.raises(ValueError, match=r"sorted_values must be numpy.sort\(pvalues\)"):
            storey_bh(values, alpha=0.1, sorted_values=wrong)


@pytest.mark.parametrize("pi0", ["0.5", True, None, 0.5 + 0j, np.array([0.1]), 0, 1.5, np.nan])
def test_pi0_must_be_a_number_in_the_half_open_unit_interval(pi0, p):
    for call in (lambda: storey_bh(p[:, 0], alpha=0.1, pi0=pi0), lambda: bh_adjusted(p[:, 0], pi0=pi0)):
        with pytest.raises(ValueError, match=r"pi0 must be (a number )?in \(0, 1\]"):
            call()


def test_a_fit_is_not_changed_by_writes_into_its_results_or_its_input(p):
    fit = jc.get_rule("jecs").prepare(p)
    first = fit.select(0.1)
    with pytest.raises(ValueError, match="read-only"):
        first.p_tilde[:] = 1.0
    for rule in ("union", "intersection"):
        q = p.copy()
        fit = jc.get_rule(rule).prepare(q)
        before = fit.select(0.1).selected.copy()
        q[:] = 0.9
        assert np.array_equal(fit.select(0.1).selected, before)


def test_compare_checks_its_labels_and_the_fits_it_is_given(p):
    for labels in (["0", "1"] * 25, [0.5] * 50, np.arange(50)):
        with pytest.raises(ValueError, match=r"contaminated must be a boolean mask \(True/False or 0/1\) of length 50"):
            jc.compare_pvalues(p, alpha=0.1, contaminated=labels)
    other = jc.get_rule("jmcs").prepare(np.random.default_rng(1).uniform(size=(12, 2)))
    with pytest.raises(ValueError, match=r"fits\['jmcs'\] was prepared on 12 items, not on these 50"):
        jc.compare_pvalues(p, alpha=0.1, methods=["jmcs"], fits={"jmcs": other})
    with pytest.raises(ValueError, match=r"^fits\['jmcs'\] must be get_rule\('jmcs'\).prepare\(p\), got int$"):
        jc.compare_pvalues(p, alpha=0.1, methods=["jmcs"], fits={"jmcs": 3})


@pytest.mark.parametrize(("args", "message"), [
    ((100, 100, 0), r"alpha must be in the open interval \(0, 1\), got 0"),
    ((100, 100, None), r"alpha must be a number in \(0, 1\), got None"),
    ((-1, 100, 0.1), "m must be an integer >= 0, got -1"),
    (("5", 100, 0.1), "m must be an integer >= 0, got '5'"),
    ((10, 1.5, 0.1), "n must be an integer >= 0, got 1.5"),
])
def test_the_calibration_advice_checks_its_arguments(args, message):
    with pytest.raises(ValueError, match=message):
        jc.calibration_warnings(*args)


def test_a_hand_built_table_whose_blocks_disagree_is_refused_naming_the_field():
    table = jc.load_scores("sample_data/synthetic_k4.csv")
    for change, message in (({"test_ids": table.test_ids[:30]}, f"ScoreTable.test_ids must hold one id per row \\({table.n}\\)"),
                            ({"test": table.test[:, :3]}, r"ScoreTable.test must have shape \(rows, 4\)"),
                            ({"test_members": np.zeros((10, 2))}, r"ScoreTable.test_members must have the test scores' shape"),
                            ({"calibration": table.calibration[:, 0]}, r"ScoreTable.calibration must have shape \(rows, 4\)")):
        with pytest.raises(ValueError, match=message):
            dataclasses.replace(table, **change)
    for call in (jc.table_pvalues, lambda t: jc.compare_methods(t, alpha=0.1)):
        with pytest.raises(ValueError, match=r"table must be a ScoreTable \(from load_scores or table_from_frame\), got ndarray"):
            call(np.ones((3, 3)))


def test_results_tables_name_what_is_missing():
    with pytest.raises(ValueError, match="models must be a sequence of model names, got None"):
        ResultsTable(models=None, item_ids=["a"], values=[[1]])
    with pytest.raises(ValueError, match="item_ids must be a one-dimensional sequence of ids, got NoneType"):
        ResultsTable(models=("a",), item_ids=None, values=[1])
    assert ResultsTable(models=("a",), item_ids=["x", "y"], values=np.array([True, False])).values.tolist() == [[1.0], [0.0]]


def test_scores_without_a_model_column_are_refused():
    with pytest.raises(ValueError, match=r"must have at least one column \(model\)"):
        jc.conformal_pvalues(np.empty((5, 0)), np.empty((5, 0)))
