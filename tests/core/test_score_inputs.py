"""Score inputs from pandas: columns matched by name, missing values and text refused with the argument named."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jecs_core as jc


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), K=st.integers(1, 5))
def test_dataframe_columns_are_matched_by_name(seed, K):
    rng = np.random.default_rng(seed)
    names = [f"m{k}" for k in range(K)]
    test = pd.DataFrame(rng.normal(size=(20, K)), columns=names)
    cal = pd.DataFrame(rng.normal(size=(30, K)), columns=names)
    shuffled = cal[list(rng.permutation(names))]
    assert np.array_equal(jc.conformal_pvalues(test, shuffled), jc.conformal_pvalues(test.to_numpy(), cal.to_numpy()))


def test_dataframes_with_other_columns_are_refused():
    test = pd.DataFrame({"a": [1.0], "b": [2.0]})
    with pytest.raises(ValueError, match=r"same model columns, each once, got \['a', 'b'\] and \['a', 'c'\]"):
        jc.conformal_pvalues(test, pd.DataFrame({"a": [1.0], "c": [2.0]}))


@pytest.mark.parametrize("scores, message", [
    (pd.DataFrame({"a": pd.array([1.0, None], dtype="Float64")}), r"test_scores must be finite; found nan at row 1"),
    (pd.DataFrame({"a": pd.array([1, None], dtype="Int64")}), r"test_scores must be finite; found nan at row 1"),
    (pd.DataFrame({"a": ["x", "1"]}), r"test_scores must hold numbers only, got text \('x'\)"),
    (pd.DataFrame({"a": ["1.5", "1"]}, dtype=object), r"test_scores must hold numbers only, got text \('1.5'\)"),
    (pd.DataFrame({"a": [True, False]}), r"test_scores must hold numbers only, got booleans"),
    (np.array(["x", "y"]), r"test_scores must hold numbers only, got text"),
    (np.array(["1.5", "2"]), r"test_scores must hold numbers only, got text"),  # "1.5" is no score: text refused
    (np.array([1 + 2j, 3]), r"test_scores must hold numbers only, got complex numbers"),
    (np.array([True, False]), r"test_scores must hold numbers only, got booleans"),
    ([[1.0], [2.0, 3.0]], r"test_scores must be a rectangular array of numbers"),
    ({"a": 1.0}, r"test_scores must be an array of numbers, got dict"),
    (np.array([1.0, None], dtype=object), r"test_scores must be finite; found nan at row 1"),
])
def test_missing_values_and_text_name_the_argument(scores, message):
    with pytest.raises(ValueError, match=message):
        jc.conformal_pvalues(scores, np.ones(3))
