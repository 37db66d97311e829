"""The data contract: all problems listed, covariates and carried columns kept, nothing renamed."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jecs_core import ScoreTableError, load_scores, table_from_frame
from jecs_core.contract import MIN_CALIBRATION, calibration_reach, calibration_warnings, validate_frame

from .test_data_contract import wide, write


def test_validate_frame_lists_every_problem():
    frame = wide()
    frame.loc[1, "item_id"] = "i0"
    frame.loc[5, "split"] = "train"
    frame["p_value"] = 1.0
    problems = validate_frame(frame, source="t.csv")
    assert problems == [
        "t.csv: column 'item_id': duplicate id 'i0' at rows 1, 2; ids must be unique",
        "t.csv: column 'split': unknown value 'train' at row 6; expected one of ['calibration', 'test']",
        "t.csv: column 'p_value': the name is reserved for the selection export (selected, selected_<method>, p_max, "
        "p_tilde, p_<model>); rename the column",
    ]
    assert validate_frame(wide()) == []


def test_one_message_names_every_repeated_id():
    # The dashboard lists each problem once: a second or third repeated id must not need another upload.
    frame = wide()
    frame.loc[1, "item_id"], frame.loc[3, "item_id"], frame.loc[4, "item_id"] = "i0", "i2", "i2"
    assert validate_frame(frame, source="t.csv")[0] == (
        "t.csv: column 'item_id': duplicate id 'i0' at rows 1, 2 (also repeated: 'i2'); ids must be unique")
    frame["item_id"] = [f"d{j // 2}" for j in range(len(frame))]  # every id twice
    message = validate_frame(frame, source="t.csv")[0]
    assert message.startswith("t.csv: column 'item_id': duplicate id 'd0' at rows 1, 2 (also repeated: 'd1', 'd2', 'd3' and ")


def test_first_problem_raised_and_all_attached():
    frame = wide()
    frame["score_a"] = frame["score_a"].astype(object)
    frame.loc[2, "score_a"] = "x"
    frame.loc[7, "score_b"] = np.nan
    with pytest.raises(ScoreTableError) as info:
        table_from_frame(frame, source="mem")
    assert str(info.value) == "mem: column 'score_a': non-numeric value 'x' at row 3; scores must be numbers"
    assert info.value.problems == [str(info.value), "mem: column 'score_b': missing score (empty or NaN) at row 8"]


def test_file_messages_add_the_spreadsheet_row(tmp_path):
    frame = wide()
    frame.loc[6, "score_b"] = np.inf
    with pytest.raises(ScoreTableError) as info:
        load_scores(write(frame, tmp_path))
    assert str(info.value).endswith("column 'score_b': non-finite score (inf) at row 7 (spreadsheet row 8)")


def test_covariates_are_accepted_and_carried(tmp_path):
    frame = wide()
    frame.insert(3, "x_len", np.arange(10.0))
    frame["x_year"] = np.arange(10) + 2000
    table = load_scores(write(frame, tmp_path))
    assert table.covariate_names == ("len", "year")
    np.testing.assert_array_equal(table.covariates, frame[["x_len", "x_year"]].to_numpy(dtype=float)[4:])
    np.testing.assert_array_equal(table.calibration_covariates, frame[["x_len", "x_year"]].to_numpy(dtype=float)[:4])
    assert list(table.test_extra.columns) == ["x_len", "text", "x_year"]
    assert list(table.calibration_extra["text"]) == [f"text {j}" for j in range(4)]
    again = table_from_frame(table.to_frame())
    np.testing.assert_array_equal(again.covariates, table.covariates)
    assert table.subset_models(["b"]).covariate_names == ("len", "year")


@pytest.mark.parametrize(
    "value, message",
    [("big", "column 'x_len': non-numeric value 'big' at row 3; covariates must be numbers"),
     (np.nan, "column 'x_len': missing covariate (empty or NaN) at row 3")],
)
def test_bad_covariates_are_refused(value, message):
    frame = wide()
    frame["x_len"] = pd.Series(np.arange(10.0), dtype=object)
    frame.loc[2, "x_len"] = value
    with pytest.raises(ScoreTableError, match=re.escape(message)):
        table_from_frame(frame)


def test_tables_without_covariates_have_empty_blocks():
    table = table_from_frame(wide())
    assert table.covariate_names == () and table.covariates.shape == (6, 0) and table.calibration_covariates.shape == (4, 0)


def test_long_layout_carries_per_item_columns_and_checks_them(tmp_path):
    frame = wide(text=False)
    long = frame.melt(id_vars=["item_id", "split"], value_vars=["score_a", "score_b"], var_name="model", value_name="score")
    long["model"] = long["model"].str.removeprefix("score_")
    long["text"] = long["item_id"] + " text"
    long["x_len"] = long["item_id"].str.len()
    table = load_scores(write(long, tmp_path))
    assert list(table.test_extra.columns) == ["text", "x_len"] and table.test_extra["text"].iloc[0] == "i4 text"
    assert table.covariate_names == ("len",)
    long.loc[3, "text"] = "changed"
    with pytest.raises(ScoreTableError, match="column 'text': item 'i3' has more than one text value across its rows"):
        load_scores(write(long, tmp_path))


def test_long_layout_cell_errors_name_the_file_row(tmp_path):
    long = pd.DataFrame({"item_id": ["a", "a", "b", "b", "c", "c"], "split": ["calibration"] * 4 + ["test"] * 2,
                         "model": ["m", "n"] * 3, "score": ["1", "2", "3", "oops", "5", "6"]})
    with pytest.raises(ScoreTableError) as info:
        load_scores(write(long, tmp_path))
    assert str(info.value).endswith("column 'score': non-numeric value 'oops' at row 4 (spreadsheet row 5); scores must be numbers")


def test_minimum_calibration_size():
    # One calibration row loads (with a warning naming 1/(m+1)); the default rule then selects
    # nothing at alpha below 1/2 (tests/core/rules/test_rule_storey_maxp.py), so refusing it is not needed.
    assert MIN_CALIBRATION == 1
    with pytest.raises(ScoreTableError, match=r"column 'split': no calibration rows"):
        table_from_frame(wide(n_cal=0))
    table = table_from_frame(wide(n_cal=1))
    assert table.m == 1 and "1/(m+1) = 0.5" in table.warnings(0.1)[0]


@pytest.mark.parametrize("m, alpha, warns", [(4, 0.1, "none"), (9, 0.1, "few"), (8, 0.1, "none"), (19, 0.05, "few"),
                                             (18, 0.05, "none"), (19, 0.1, "few"), (29, 0.1, ""),
                                             (99, 0.1, "")])
def test_calibration_warning_names_the_smallest_pvalue(m, alpha, warns):
    found = calibration_warnings(m, 100, alpha)
    assert bool(found) == bool(warns)
    if warns == "none":
        assert f"smallest reachable conformal p-value is 1/(m+1) = {1 / (m + 1):.4g}" in found[0]
    if warns == "few":
        assert f"every conformal p-value is at least 1/(m+1) = {1 / (m + 1):.4g}" in found[0]
        assert f"selects either nothing or at least {calibration_reach(m, 100, alpha)['fewest_selectable']} of" in found[0]
    if warns:
        assert f"alpha = {alpha:g}" in found[0] and "\n" not in found[0]
    assert table_from_frame(wide(n_cal=4)).warnings(0.1) == calibration_warnings(4, 6, 0.1)


@settings(max_examples=60, deadline=None)
@given(m=st.integers(1, 60), n=st.integers(2, 300), alpha=st.floats(0.01, 0.5), seed=st.integers(0, 2**32 - 1))
def test_bh_on_conformal_pvalues_selects_nothing_or_at_least_the_fewest_the_reach_names(m, n, alpha, seed):
    from jecs_core import benjamini_hochberg

    counts = np.random.default_rng(seed).integers(0, m + 1, size=n)  # calibration scores at or below each item
    fewest = calibration_reach(m, n, alpha)["fewest_selectable"]
    selected = benjamini_hochberg((1 + counts) / (m + 1), alpha=alpha).n_selected
    assert selected == 0 or (fewest is not None and selected >= fewest)


@pytest.mark.parametrize(
    "column, values, message",
    [
        ("score_a", [True, False] * 5, "column 'score_a': boolean values (True/False) are not scores (column type bool)"),
        ("score_a", pd.date_range("2020-01-01", periods=10), "column 'score_a': dates/times are not scores"),
        ("score_a", np.arange(10) * (1 + 1j), "column 'score_a': complex numbers are not scores"),
        ("score_a", pd.Categorical(["1", "2"] * 5), "column 'score_a': categories are not scores"),
        ("score_a", pd.Series([1.5, True] * 5, dtype=object), "column 'score_a': boolean values (True/False) such as True at rows 2, 4"),
        ("score_b", pd.timedelta_range(0, periods=10, freq="s"), "column 'score_b': time spans are not scores"),
        ("x_t", pd.date_range("2020-01-01", periods=10), "column 'x_t': dates/times are not covariates"),
    ],
)
def test_non_number_score_types_are_refused(column, values, message):
    frame = wide()
    frame[column] = values
    with pytest.raises(ScoreTableError) as info:
        table_from_frame(frame, source="f.parquet")
    assert message in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda f: f.rename(columns={"score_a": "score_max", "member_a": "member_max"}),
         "column 'score_max': model name 'max' is reserved (the export writes 'p_max' itself); rename the model"),
        (lambda f: f.rename(columns={"score_a": "score_tilde", "member_a": "member_tilde"}), "model name 'tilde' is reserved"),
        (lambda f: f.assign(selected=1), "column 'selected': the name is reserved for the selection export"),
        (lambda f: f.assign(p_max=0.5), "column 'p_max': the name is reserved"),
        (lambda f: f.assign(p_a=0.5), "column 'p_a': the name is reserved"),
        (lambda f: f.assign(selected_jmcs=1), "column 'selected_jmcs': the name is reserved"),
        (lambda f: f.rename(columns={"score_a": "score_", "member_a": "member_"}), "column 'score_': no name after 'score_'"),
        (lambda f: f.assign(x_=1.0), "column 'x_': no name after 'x_'"),
    ],
)
def test_reserved_names_are_refused_at_load(edit, message):
    with pytest.raises(ScoreTableError, match=re.escape(message)):
        table_from_frame(edit(wide()))


def test_in_memory_duplicate_columns_are_refused():
    frame = pd.concat([wide(), wide()[["score_a"]]], axis=1)
    assert validate_frame(frame, source="m") == ["m: column 'score_a' appears twice (columns 3 and 8); column names must be unique"]
    frame = wide()
    frame.columns = [*frame.columns[:-1], 0]
    assert table_from_frame(frame).test_extra.columns.tolist() == ["0"]


def test_ids_that_look_like_na_are_ids(tmp_path):
    frame = wide()
    frame.loc[5, "item_id"] = "NA"
    frame.loc[6, "item_id"] = "null"
    table = load_scores(write(frame, tmp_path))
    assert list(table.test_ids[1:3]) == ["NA", "null"]
    frame.loc[7, "item_id"] = " "
    with pytest.raises(ScoreTableError, match=r"column 'item_id': empty id at row 8 \(spreadsheet row 9\)"):
        load_scores(write(frame, tmp_path))


@pytest.mark.parametrize("m, n, alpha", [(360, 840, 0.1), (5, 100, 0.1), (9, 50, 0.1), (100, 1, 0.5), (2, 1000, 0.9)])
def test_calibration_reach_matches_a_brute_force_step_up(m, n, alpha):
    reach = calibration_reach(m, n, alpha)
    # Brute force: the smallest r with r p-values equal to 1/(m+1) passing the cut alpha*r/n.
    fewest = next((r for r in range(1, n + 1) if 1 / (m + 1) <= alpha * r / n), None)
    assert reach == {"m": m, "smallest_pvalue": 1 / (m + 1), "bh_first_cut": alpha / n, "fewest_selectable": fewest}


@pytest.mark.parametrize("cell", [None, np.nan, "", "  "])
def test_a_missing_split_cell_is_refused_at_its_row(cell):
    frame = pd.DataFrame({"item_id": [f"i{j}" for j in range(6)],
                          "split": ["calibration"] * 3 + [" Test", cell, "TEST"],
                          "score_a": np.arange(6.0)})
    (problem,) = validate_frame(frame, source="t.csv")
    assert problem.startswith("t.csv: column 'split': empty value at row 5")


def test_split_words_are_matched_after_trimming_and_case():
    frame = pd.DataFrame({"item_id": [f"i{j}" for j in range(6)],
                          "split": [" Calibration", "calibration ", "CALIBRATION", "test", " Test ", "tEsT"],
                          "score_a": np.arange(6.0)})
    table = table_from_frame(frame)
    assert (table.m, table.n) == (3, 3)


def _long_rows() -> pd.DataFrame:
    frame = wide()
    scores = [c for c in frame.columns if c.startswith("score_")]
    return pd.concat([pd.DataFrame({"item_id": frame["item_id"], "split": frame["split"], "model": c[6:],
                                    "score": frame[c]}) for c in scores], ignore_index=True)


@pytest.mark.parametrize(("change", "hint"), [
    (lambda f: f.rename(columns={"model": "Model"}), "a long table's columns are named 'model' and 'score' exactly, found ['Model']"),
    (lambda f: f.rename(columns={"score": " score"}), "a long table's columns are named 'model' and 'score' exactly, found [' score']"),
    (lambda f: f.assign(score_extra=1.0), "a long table holds its scores in 'score' only: drop the score_<model> columns"),
    (lambda f: f.drop(columns="score"), "a long table needs a 'score' column"),
])
def test_a_long_table_read_as_wide_says_why(change, hint):
    # Auto-detection reads these as wide, where every item repeats: the duplicate-id line says what looked long.
    problems = validate_frame(change(_long_rows()), source="l.csv")
    assert any("duplicate id" in p and f"(one row per item and model? {hint})" in p for p in problems), problems
    assert validate_frame(_long_rows(), source="l.csv") == []
    frame = wide()
    frame.loc[1, "item_id"] = "i0"
    assert "one row per item" not in validate_frame(frame, source="t.csv")[0]  # a wide table with a repeat: no hint
