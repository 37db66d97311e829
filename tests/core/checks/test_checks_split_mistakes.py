"""Mistakes of assembling a table that the labels cannot show: splits on different scales, one-value
columns, test items that repeat a calibration item, and advice that names the right fix."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jecs_core as jc
from jecs_core.checks import calibration_copies, data_warnings, score_direction
from jecs_core.checks.splits import compare_splits


def _frame(rng, *, m=120, n=200, K=3, members=0.3, mu=3.0, member_spread=1.0, text=True):
    """Calibration members, and test items of which ``members`` are members too (scores larger = member)."""
    cal = rng.normal(mu, member_spread, (m, K))
    is_member = rng.random(n) < members
    test = np.where(is_member[:, None], rng.normal(mu, member_spread, (n, K)), rng.normal(0, 1, (n, K)))
    frame = pd.DataFrame({"item_id": [f"c{i}" for i in range(m)] + [f"t{i}" for i in range(n)],
                          "split": ["calibration"] * m + ["test"] * n})
    for k in range(K):
        frame[f"score_m{k}"] = np.r_[cal[:, k], test[:, k]]
    if text:
        frame["text"] = [f"passage {j} " + " ".join(map(str, rng.integers(0, 1000, 6))) for j in range(m + n)]
    return frame


def _scaled_calibration(frame, factor, columns=None):
    out = frame.copy()
    cal = out["split"] == "calibration"
    for column in columns or [c for c in out if c.startswith("score_")]:
        out.loc[cal, column] *= factor
    return out


def test_calibration_on_another_scale_is_named_and_the_direction_advice_points_to_it():
    frame = _frame(np.random.default_rng(0), m=300, members=0.6, mu=2.0)
    assert score_direction(jc.table_from_frame(frame)).warnings() == []
    check = score_direction(jc.table_from_frame(_scaled_calibration(frame, 1 / 100)))
    assert check.reversed_models == ("m0", "m1", "m2") and check.splits.rescaled_models == ("m0", "m1", "m2")
    (line,) = check.warnings()  # the reversed models are not named again as lying above every member
    assert "also differ in spread (m0 " in line and "or rescaled, fix that first" in line
    assert "--lower-is-member" in line  # a loss column's tight members differ in spread too: both causes are named
    # Following the direction advice anyway (lower = member) leaves the splits unlike, and says so.
    flipped = score_direction(jc.table_from_frame(_scaled_calibration(frame, 1 / 100), lower_is_member=True))
    assert flipped.reversed_models == () and flipped.splits.unlike_models == ("m0", "m1", "m2")
    (line,) = flipped.warnings()
    assert line.startswith("warning: the test and calibration scores look unlike for 3 of 3 model(s)")
    assert "the splits' spreads differ (test over calibration: m0 " in line and "no rule selects them" in line


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), factor=st.floats(0.01, 100), both=st.floats(0.01, 100))
def test_the_spread_ratio_follows_a_rescaled_split_exactly(seed, factor, both):
    frame = _frame(np.random.default_rng(seed), m=31, n=57, K=2, text=False)
    base = np.array(score_direction(jc.table_from_frame(frame)).splits.spread_ratio)
    rescaled = score_direction(jc.table_from_frame(_scaled_calibration(frame, factor))).splits.spread_ratio
    np.testing.assert_allclose(rescaled, base / factor, rtol=1e-9)
    scores = [c for c in frame if c.startswith("score_")]
    together = frame.assign(**{c: frame[c] * both for c in scores})
    np.testing.assert_allclose(score_direction(jc.table_from_frame(together)).splits.spread_ratio, base, rtol=1e-9)


def test_the_share_above_every_member_matches_a_direct_count():
    frame = _frame(np.random.default_rng(7), mu=0.5)
    table = jc.table_from_frame(frame)
    check = compare_splits(table)
    np.testing.assert_array_equal(check.above_all, (table.test > table.calibration.max(axis=0)).mean(axis=0))
    assert check.m == table.m and check.unlike_models == ()


def test_no_split_alarm_on_honest_tables_with_strong_signals_and_unequal_spreads():
    # Test members drawn like the calibration members, non-members lower: whatever the mix, signal and spreads,
    # the splits are alike and no check may say otherwise.
    rng = np.random.default_rng(1)
    for _ in range(300):
        frame = _frame(rng, m=int(rng.integers(20, 300)), n=int(rng.integers(20, 400)),
                       members=float(rng.uniform(0, 1)), mu=float(rng.uniform(0.5, 6)),
                       member_spread=float(rng.uniform(1 / 3, 3)), text=False)
        assert score_direction(jc.table_from_frame(frame)).warnings() == []


@pytest.mark.parametrize("path", ["sample_data/synthetic_k4.csv", "sample_data/real/wiki_smollm2_k8.csv",
                                  "sample_data/real/wiki_smollm2_exposure_k4.csv"])
def test_the_bundled_tables_raise_no_data_warning(path):
    assert data_warnings(jc.load_scores(path)) == []


def test_a_filled_in_split_and_a_one_value_model_are_named():
    frame = _frame(np.random.default_rng(2))
    filled = frame.assign(score_m2=np.where(frame["split"] == "test", 0.0, frame["score_m2"]))
    check = score_direction(jc.table_from_frame(filled))
    ((model, where, value, other),) = check.splits.constant
    assert (model, where, value, other) == ("m2", "test", 0.0, None)
    (line,) = check.warnings()
    assert "model m2: every test score is 0.0 while its calibration scores vary" in line
    flat = frame.assign(score_m0=5.0)
    (line,) = score_direction(jc.table_from_frame(flat)).warnings()
    assert "model m0: every score is 5.0" in line and "every max-p rule selects nothing" in line
    assert jc.select(jc.table_pvalues(jc.table_from_frame(flat)), alpha=0.2).n_selected == 0
    stepped = frame.assign(score_m1=np.where(frame["split"] == "test", 1.0, 2.0))
    (line,) = score_direction(jc.table_from_frame(stepped)).warnings()
    assert "model m1: every test score is 1.0 and every calibration score 2.0" in line
    cal_only = frame.assign(score_m0=np.where(frame["split"] == "test", frame["score_m0"], 7.0))
    assert score_direction(jc.table_from_frame(cal_only)).splits.constant[0][:2] == ("m0", "calibration")


def test_the_advice_for_some_reversed_models_names_their_columns():
    frame = _frame(np.random.default_rng(3))
    one = frame.assign(score_m1=-frame["score_m1"])
    (line,) = score_direction(jc.table_from_frame(one)).warnings()
    assert "negate the scores of m1 in the file (--lower-is-member turns every model)" in line
    (undo,) = score_direction(jc.table_from_frame(one, lower_is_member=True)).warnings()
    assert "if lower scores mean member for m1 only, leave that option out and negate the scores of m1" in undo
    # The share above the median under every model speaks only when every model is reversed.
    assert "under every model" not in line
    every = frame.assign(**{c: -frame[c] for c in frame if c.startswith("score_")})
    (all_line,) = score_direction(jc.table_from_frame(every)).warnings()
    assert "of test items score above the calibration median under every model" in all_line


def test_a_loss_column_read_the_wrong_way_keeps_the_switch_advice():
    # Members' losses packed tightly, non-members' spread wide: a spread gap from an honest table.
    rng = np.random.default_rng(8)
    frame = pd.DataFrame({"item_id": [f"i{j}" for j in range(400)], "split": ["calibration"] * 100 + ["test"] * 300,
                          "score_a": np.r_[rng.normal(1, 0.05, 100), rng.normal(3, 1, 300)]})
    (line,) = score_direction(jc.table_from_frame(frame)).warnings()
    assert "if lower scores mean member, tick" in line and "--lower-is-member" in line and "differ in spread" in line
    assert score_direction(jc.table_from_frame(frame, lower_is_member=True)).warnings() == []


def test_heavily_memorised_test_items_are_not_called_a_mistake():
    # Test items scored above every known member because they were memorised far more: contamination, not a slip.
    rng = np.random.default_rng(9)
    m, n = 1000, 2000
    memorised = rng.random(n) < 0.05
    test = np.where(memorised, rng.normal(8, 1, n), rng.normal(0, 1, n))
    frame = pd.DataFrame({"item_id": [f"i{j}" for j in range(m + n)], "split": ["calibration"] * m + ["test"] * n,
                          "score_a": np.r_[rng.normal(3, 1, m), test]})
    check = score_direction(jc.table_from_frame(frame))
    assert check.splits.above_all[0] > 20 / (m + 1) and check.warnings() == []


def _with_copies(frame, rows, *, shout=True):
    cal = frame[frame["split"] == "calibration"].iloc[rows].copy()
    cal["split"], cal["item_id"] = "test", cal["item_id"] + "_again"
    if shout and "text" in cal:
        cal["text"] = "  " + cal["text"].str.upper() + "\n"
    return pd.concat([frame, cal], ignore_index=True)


def test_test_items_repeating_a_calibration_item_are_found_by_text_and_by_score_row():
    frame = _frame(np.random.default_rng(4))
    assert calibration_copies(jc.table_from_frame(frame)).rows == 0
    copied = jc.table_from_frame(_with_copies(frame, [3, 7, 11]))
    found = calibration_copies(copied)
    assert (found.rows, found.text_rows, found.score_rows) == (3, 3, 3)
    assert found.examples == ("c3_again", "c7_again", "c11_again")
    (line,) = [w for w in data_warnings(copied) if "repeat a calibration item" in w]
    assert line.startswith("warning: 3 test item(s) repeat a calibration item") and "known members" in line
    texts_only = _with_copies(frame, [5])
    texts_only.loc[texts_only.index[-1], "score_m0"] += 0.5  # re-scored: only the text shows the copy
    assert calibration_copies(jc.table_from_frame(texts_only)).text_rows == 1
    no_text = calibration_copies(jc.table_from_frame(_with_copies(frame, [1, 2]).drop(columns="text")))
    assert (no_text.rows, no_text.text_rows, no_text.score_rows) == (2, None, 2)


def test_score_rows_are_not_compared_where_equal_rows_can_be_chance():
    frame = _frame(np.random.default_rng(5), text=False).round({"score_m0": 0, "score_m1": 0, "score_m2": 0})
    assert calibration_copies(jc.table_from_frame(frame)).score_rows is None  # rounded: rows repeat by chance
    one_model = _frame(np.random.default_rng(6), K=1, text=False)
    assert calibration_copies(jc.table_from_frame(_with_copies(one_model, [0]))).score_rows is None


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), copies=st.lists(st.integers(0, 39), max_size=8, unique=True))
def test_score_row_copies_match_a_brute_force_count(seed, copies):
    frame = _with_copies(_frame(np.random.default_rng(seed), m=40, n=30, K=2, text=False), copies)
    table = jc.table_from_frame(frame)
    brute = sum(any((row == cal).all() for cal in table.calibration) for row in table.test)
    assert calibration_copies(table).score_rows == brute == len(copies)
    assert calibration_copies(table, pvalues=jc.table_pvalues(table)) == calibration_copies(table)
