"""compare_pvalues keeps its own copy of the labels and takes model names as a list of distinct names."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jecs_core as jc

P = np.random.default_rng(0).uniform(size=(100, 3))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), as_int=st.booleans())
def test_a_comparison_keeps_the_labels_it_was_given(seed, as_int):
    rng = np.random.default_rng(seed)
    p, labels = rng.random((60, 2)) ** 3, rng.random(60) < 0.3
    given_labels = labels.astype(np.int8) if as_int else labels.copy()
    comparison = jc.compare_pvalues(p, alpha=0.3, contaminated=given_labels)
    before = {name: comparison.metrics(name) for name in comparison.methods}
    given_labels[:] = 1 - given_labels if as_int else ~given_labels  # the caller reuses its array
    np.testing.assert_array_equal(comparison.contaminated, labels)
    assert not comparison.contaminated.flags.writeable
    assert {name: comparison.metrics(name) for name in comparison.methods} == before


def test_a_table_comparison_keeps_its_labels_read_only():
    table = jc.load_scores_bytes(b"item_id,split,score_a,member_a\nc1,calibration,2,1\nc2,calibration,3,1\n"
                                 b"t1,test,0.5,0\nt2,test,2.5,1\n", "x.csv")
    comparison = jc.compare_methods(table, alpha=0.3)
    assert comparison.contaminated.tolist() == [False, True] and not comparison.contaminated.flags.writeable


@settings(max_examples=25, deadline=None)
@given(models=st.text(min_size=3, max_size=3))
def test_one_string_of_model_names_is_refused(models):
    with pytest.raises(TypeError, match=r"^models must be a sequence of names \(pass a list of names\), got the string"):
        jc.compare_pvalues(P, alpha=0.3, models=models)


def test_model_names_must_be_distinct():
    with pytest.raises(ValueError, match=r"^models must be distinct names, got \['a'\] more than once$"):
        jc.compare_pvalues(P, alpha=0.3, models=["a", "a", "b"])
    with pytest.raises(TypeError, match=r"^models must be a sequence of names, got 3$"):
        jc.compare_pvalues(P, alpha=0.3, models=3)
    assert jc.compare_pvalues(P, alpha=0.3, models=["a", "b", "c"]).models == ("a", "b", "c")
