"""A ScoreTable's fields as given: a real bool for lower_is_member, distinct model names, 0/1 labels,
lists converted at construction, and one string never split into names."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jecs_core as jc

CSV = b"item_id,split,score_a,score_b\nc1,calibration,2.0,1.0\nc2,calibration,3.0,2.5\nt1,test,0.5,0.1\n"
FRAME = pd.DataFrame({"item_id": ["c1", "c2", "t1"], "split": ["calibration"] * 2 + ["test"],
                      "score_a": [2.0, 3.0, 0.5], "score_b": [1.0, 2.5, 0.1]})


def _table(**fields):
    base = dict(models=("a", "b"), calibration=np.ones((2, 2)), test=np.zeros((3, 2)),
                calibration_ids=np.array(["c1", "c2"]), test_ids=np.array(["t1", "t2", "t3"]))
    return jc.ScoreTable(**{**base, **fields})


not_a_bool = st.one_of(st.text(max_size=5), st.integers().filter(lambda i: i not in (0, 1)),
                       st.floats(allow_nan=False), st.none(), st.lists(st.booleans(), max_size=2))


@settings(max_examples=30, deadline=None)
@given(flag=not_a_bool)
def test_lower_is_member_must_be_a_bool_in_every_loader(tmp_path_factory, flag):
    path = tmp_path_factory.mktemp("scores") / "s.csv"
    path.write_bytes(CSV)
    for load in (lambda: jc.table_from_frame(FRAME, lower_is_member=flag),
                 lambda: jc.load_scores(path, lower_is_member=flag),
                 lambda: jc.load_scores_bytes(CSV, "s.csv", lower_is_member=flag)):
        with pytest.raises(TypeError, match=r"^lower_is_member must be True or False, got "):
            load()


def test_lower_is_member_takes_python_and_numpy_bools_and_the_integers_1_and_0():
    for flag in (True, np.bool_(True), 1, np.int64(1)):
        table = jc.table_from_frame(FRAME, lower_is_member=flag)
        assert table.flipped is True and table.test[0, 0] == -0.5
    assert jc.load_scores_bytes(CSV, "s.csv", lower_is_member=np.False_).flipped is False
    assert jc.load_scores_bytes(CSV, "s.csv", lower_is_member=np.int8(0)).flipped is False


def test_a_hand_built_table_of_lists_is_converted_at_construction():
    table = jc.ScoreTable(models=("a",), calibration=[[1.0]], test=[[2.0], [0.5]], calibration_ids=["c"],
                          test_ids=["t1", "t2"], test_members=[[1], [0]])
    assert (table.n, table.m, table.K) == (2, 1, 1)
    assert isinstance(table.test, np.ndarray) and table.test_ids[np.array([True, False])].tolist() == ["t1"]
    assert table.contaminated.tolist() == [True, False]
    with pytest.raises(ValueError, match=r"^ScoreTable.test must hold numbers only, got text"):
        jc.ScoreTable(models=("a",), calibration=[[1.0]], test=[["x"]], calibration_ids=["c"], test_ids=["t"])


@pytest.mark.parametrize("labels", [[[0.5, 0], [0, 0], [1, 1]], [[2, 0], [0, 0], [1, 1]], [[-1, 0], [0, 0], [1, 1]],
                                    [[np.nan, 0], [0, 0], [1, 1]], [["1", "0"], ["0", "0"], ["1", "1"]]])
def test_member_labels_other_than_0_and_1_are_refused(labels):
    for dtype in (None, np.int8) if np.asarray(labels).dtype.kind in "iu" else (None,):
        members = np.asarray(labels) if dtype is None else np.asarray(labels, dtype=dtype)
        with pytest.raises(ValueError, match=r"^ScoreTable.test_members must hold 0/1 labels"):
            _table(test_members=members)


def test_member_labels_as_0_1_or_booleans_are_kept():
    for members in (np.array([[1, 0], [0, 0], [1, 1]], dtype=np.int8), np.array([[1.0, 0], [0, 0], [1, 1]]),
                    np.array([[True, False], [False, False], [True, True]])):
        assert _table(test_members=members).contaminated.tolist() == [True, False, True]


@pytest.mark.parametrize("models", [("a", "a"), ["b", "b"]])
def test_duplicate_model_names_are_refused(models):
    with pytest.raises(ValueError, match=r"^ScoreTable.models must be distinct names, got \['\w'\] more than once$"):
        _table(models=models)


@settings(max_examples=30, deadline=None)
@given(names=st.text(min_size=1, max_size=4))
def test_subset_models_refuses_one_string(names):
    table = _table()
    with pytest.raises(TypeError, match=r"^models must be a sequence of names \(pass a list of names\)"):
        table.subset_models(names)


def test_subset_models_takes_a_list_and_refuses_repeats():
    table = _table(test_members=np.array([[1, 0], [0, 0], [0, 1]], dtype=np.int8))
    sub = table.subset_models(["b"])
    assert sub.models == ("b",) and sub.test_members[:, 0].tolist() == [0, 0, 1]
    with pytest.raises(ValueError, match=r"^models must be distinct names"):
        table.subset_models(["a", "a"])
    with pytest.raises(ValueError, match=r"^models \['z'\] are not in this table"):
        table.subset_models(["z"])


def test_a_file_keeps_its_own_messages_for_labels_and_repeated_columns():
    with pytest.raises(jc.ScoreTableError, match="member labels must be 0 or 1"):
        jc.load_scores_bytes(b"item_id,split,score_a,member_a\nc1,calibration,2,1\nt1,test,0.5,2\n", "x.csv")
    with pytest.raises(jc.ScoreTableError, match="appears twice"):
        jc.load_scores_bytes(b"item_id,split,score_a,score_a\nc1,calibration,2,1\nt1,test,0.5,2\n", "x.csv")
