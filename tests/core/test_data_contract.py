"""Loading and validating score tables: every error names file, column and rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from jecs_core import ScoreTableError, load_scores, table_from_frame


def wide(n_cal=4, n_test=6, models=("a", "b"), labels=True, text=True):
    rng = np.random.default_rng(0)
    rows = n_cal + n_test
    frame = pd.DataFrame({"item_id": [f"i{j}" for j in range(rows)], "split": ["calibration"] * n_cal + ["test"] * n_test})
    for m in models:
        frame[f"score_{m}"] = rng.standard_normal(rows)
    if labels:
        for m in models:
            frame[f"member_{m}"] = [1] * n_cal + list(rng.integers(0, 2, n_test))
    if text:
        frame["text"] = [f"text {j}" for j in range(rows)]
    return frame


def write(frame, tmp_path, name="scores.csv"):
    path = tmp_path / name
    if name.endswith(".parquet"):
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, index=False)
    return path


def test_wide_csv_and_parquet_roundtrip(tmp_path):
    frame = wide()
    for name in ("s.csv", "s.parquet"):
        table = load_scores(write(frame, tmp_path, name))
        assert (table.n, table.m, table.K) == (6, 4, 2)
        assert table.models == ("a", "b") and table.has_labels
        np.testing.assert_array_equal(table.test[:, 0], frame["score_a"].to_numpy()[4:])
        assert list(table.test_extra.columns) == ["text"]
        assert table.source_sha256 and len(table.source_sha256) == 64


def test_ids_kept_as_text(tmp_path):
    frame = wide()
    frame["item_id"] = [f"{j:03d}" for j in range(len(frame))]
    table = load_scores(write(frame, tmp_path))
    assert table.test_ids[0] == "004"


def test_long_layout_pivots_to_wide(tmp_path):
    frame = wide(text=False)
    long = frame.melt(id_vars=["item_id", "split"], value_vars=["score_a", "score_b"], var_name="model", value_name="score")
    long["model"] = long["model"].str.removeprefix("score_")
    members = frame.melt(id_vars=["item_id"], value_vars=["member_a", "member_b"], var_name="model", value_name="member")
    long["member"] = members["member"].to_numpy()
    table = load_scores(write(long, tmp_path))
    ref = table_from_frame(frame)
    np.testing.assert_array_equal(table.test, ref.test)
    np.testing.assert_array_equal(table.test_members, ref.test_members)
    assert table.models == ("a", "b")


def test_lower_is_member_negates(tmp_path):
    frame = wide()
    path = write(frame, tmp_path)
    np.testing.assert_array_equal(load_scores(path, lower_is_member=True).test, -load_scores(path).test)
    assert load_scores(path, lower_is_member=True).flipped


def test_to_frame_roundtrip():
    table = table_from_frame(wide())
    again = table_from_frame(table.to_frame())
    np.testing.assert_array_equal(again.test, table.test)
    np.testing.assert_array_equal(again.calibration, table.calibration)


@pytest.mark.parametrize(
    "mutate, pattern",
    [
        (lambda f: f.drop(columns="item_id"), r"missing required column 'item_id'"),
        (lambda f: f.drop(columns="split"), r"missing required column 'split'"),
        (lambda f: f.drop(columns=["score_a", "score_b", "member_a", "member_b"]), r"no score columns"),
        (lambda f: f.assign(item_id=["x"] * 2 + [f"i{j}" for j in range(2, 10)]), r"column 'item_id': duplicate id 'x' at rows 1, 2"),
        (lambda f: f.assign(split=["calibration"] * 4 + ["train"] + ["test"] * 5), r"column 'split': unknown value 'train' at row 5"),
        (lambda f: f.assign(score_a=f.score_a.astype(object).where(f.index != 6, "high")), r"column 'score_a': non-numeric value 'high' at row 7"),
        (lambda f: f.assign(score_b=f.score_b.where(f.index != 2, np.nan)), r"column 'score_b': missing score .* at row 3"),
        (lambda f: f.assign(score_b=f.score_b.where(f.index != 8, np.inf)), r"column 'score_b': non-finite score .* at row 9"),
        (lambda f: f.assign(split="test"), r"no calibration rows"),
        (lambda f: f.assign(split="calibration"), r"no test rows"),
        (lambda f: f.assign(score_b=f.score_b.where(f.split == "test", np.nan)), r"column 'score_b': model has no calibration rows"),
        (lambda f: f.assign(score_a=f.score_a.where(f.split == "calibration", np.nan)), r"column 'score_a': model has no test rows"),
        (lambda f: f.assign(member_a=[1] * 4 + [0, 1, 2, 0, 1, 0]), r"column 'member_a': label 2 at row 7"),
        (lambda f: f.assign(member_a=[1] * 4 + [0, 1, None, 0, 1, 0]), r"column 'member_a': label .* at row 7"),
        (lambda f: f.drop(columns="member_b"), r"member columns do not match score columns: score_ without member_: \['b'\]"),
        (lambda f: f.assign(member_c=0), r"member_ without score_: \['c'\]"),
    ],
)
def test_errors_name_file_column_and_row(tmp_path, mutate, pattern):
    path = write(mutate(wide()), tmp_path)
    with pytest.raises(ScoreTableError, match=pattern) as info:
        load_scores(path)
    assert str(path) in str(info.value)


def test_long_table_errors(tmp_path):
    long = pd.DataFrame({"item_id": ["a", "a", "b"], "split": ["test", "test", "calibration"], "model": ["m", "m", "m"], "score": [1, 2, 3]})
    with pytest.raises(ScoreTableError, match="duplicate pair"):
        load_scores(write(long, tmp_path))
    long = pd.DataFrame({"item_id": ["a", "a", "b"], "split": ["test", "test", "calibration"], "model": ["m", "n", "m"], "score": [1, 2, 3]})
    with pytest.raises(ScoreTableError, match="no row for item 'b' and model 'n'"):
        load_scores(write(long, tmp_path))
    long = pd.DataFrame({"item_id": ["a", "a"], "split": ["test", "calibration"], "model": ["m", "n"], "score": [1, 2]})
    with pytest.raises(ScoreTableError, match="more than one split"):
        load_scores(write(long, tmp_path))


def test_unreadable_files(tmp_path):
    with pytest.raises(ScoreTableError, match="file not found"):
        load_scores(tmp_path / "nope.csv")
    bad = tmp_path / "x.parquet"
    bad.write_bytes(b"not parquet")
    with pytest.raises(ScoreTableError, match="could not be read"):
        load_scores(bad)
    pickle_like = tmp_path / "x.pkl"
    pickle_like.write_bytes(b"\x80\x04")
    with pytest.raises(ScoreTableError, match="unsupported file type"):
        load_scores(pickle_like)
    empty = tmp_path / "empty.csv"
    empty.write_text("item_id,split,score_a\n")
    with pytest.raises(ScoreTableError, match="no rows"):
        load_scores(empty)


def test_subset_models():
    table = table_from_frame(wide(models=("a", "b", "c")))
    sub = table.subset_models(["c", "a"])
    assert sub.models == ("c", "a")
    np.testing.assert_array_equal(sub.test[:, 0], table.test[:, 2])
    with pytest.raises(ValueError, match="not in this table"):
        table.subset_models(["z"])
