"""Per-item results in: long, wide and lm-eval sample logs give the same table; every mismatch is one line."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jecs_core import load_results, load_results_bytes
from jecs_core.leaderboard import lm_eval_samples, results_from_frame, write_lm_eval_samples

MODELS = ("alpha", "beta")
VALUES = np.array([[1.0, 0.0], [0.0, 0.0], [1.0, 1.0]])
IDS = ["3", "10", "7"]


def _long() -> pd.DataFrame:
    return pd.DataFrame({"item_id": np.repeat(IDS, 2), "model": list(MODELS) * 3, "correct": VALUES.reshape(-1)})


def _wide() -> pd.DataFrame:
    return pd.DataFrame({"item_id": IDS, "correct_alpha": VALUES[:, 0], "correct_beta": VALUES[:, 1]})


def _log(path, values, *, metric="acc", filters=("none",), ids=IDS):
    with open(path, "w") as handle:
        for doc_id, value in zip(ids, values):
            for name in filters:
                row = {"doc_id": int(doc_id), "doc": {"question": f"q{doc_id}", "uid": f"u{doc_id}"}, "filter": name,
                       "metrics": [metric], "target": "x", "resps": [["y"]], metric: value}
                handle.write(json.dumps(row) + "\n")
    return path


def _same(table, ids=IDS, values=VALUES):
    assert table.models == MODELS
    assert list(table.item_ids) == list(ids)
    np.testing.assert_array_equal(table.values, values)


def test_long_wide_parquet_bytes_and_logs_give_the_same_table(tmp_path):
    _long().to_csv(tmp_path / "long.csv", index=False)
    _wide().to_parquet(tmp_path / "wide.parquet")
    _same(load_results(tmp_path / "long.csv"))
    _same(load_results(str(tmp_path / "wide.parquet")))
    _same(load_results_bytes((tmp_path / "long.csv").read_bytes(), "long.csv"))
    _same(load_results_bytes((tmp_path / "wide.parquet").read_bytes(), "wide.parquet"))
    logs = {m: _log(tmp_path / f"samples_toy_{m}.jsonl", VALUES[:, k]) for k, m in enumerate(MODELS)}
    _same(load_results([f"{m}={p}" for m, p in logs.items()]))
    _same(load_results(logs))
    one = load_results_bytes(logs["beta"].read_bytes(), "samples_toy.jsonl", model="beta")
    np.testing.assert_array_equal(one.values[:, 0], VALUES[:, 1])


def test_a_directory_of_model_directories_as_lm_eval_writes_them(tmp_path):
    for k, model in enumerate(MODELS):
        (tmp_path / model).mkdir()
        _log(tmp_path / model / "samples_toy_2026-01-01T00-00-00.jsonl", VALUES[:, k])
    _same(load_results(tmp_path))
    _same(load_results([f"{m}={tmp_path / m}" for m in MODELS]))


def test_lm_eval_output_path_layout_nests_one_directory_deeper(tmp_path):
    # lm_eval --output_path runs/<model> writes runs/<model>/<sanitised model name>/samples_<task>_<time>.jsonl
    for k, model in enumerate(MODELS):
        nested = tmp_path / model / f"pretrained__models__{model}"
        nested.mkdir(parents=True)
        _log(nested / "samples_toy_2026-01-01T00-00-00.jsonl", VALUES[:, k])
    _same(load_results(tmp_path))
    _same(load_results([f"{m}={tmp_path / m}" for m in MODELS]))
    (tmp_path / "alpha" / "second_run").mkdir()
    _log(tmp_path / "alpha" / "second_run" / "samples_toy_b.jsonl", VALUES[:, 0])
    with pytest.raises(ValueError, match=r"alpha: 2 sub-directories hold sample logs \['pretrained__models__alpha', 'second_run'\]"):
        load_results(tmp_path)
    (tmp_path / "empty" / "gamma").mkdir(parents=True)
    with pytest.raises(ValueError, match=r"empty: no sub-directory holds a samples_\*.jsonl file"):
        load_results(tmp_path / "empty")


def test_several_tables_each_with_other_models_are_one_table(tmp_path):
    _long()[lambda f: f.model == "alpha"].to_csv(tmp_path / "alpha.csv", index=False)
    _wide()[["item_id", "correct_beta"]].to_parquet(tmp_path / "beta.parquet")
    both = [tmp_path / "alpha.csv", str(tmp_path / "beta.parquet")]
    _same(load_results(both))
    assert load_results(both, models=["beta", "alpha"]).models == ("beta", "alpha")
    # Items one table lacks stay without a result (NaN), as in a long table that skips them.
    _wide()[["item_id", "correct_beta"]].iloc[1:].to_csv(tmp_path / "beta_short.csv", index=False)
    short = load_results([tmp_path / "alpha.csv", tmp_path / "beta_short.csv"])
    assert list(short.item_ids) == IDS and np.isnan(short.values[0, 1]) and short.values[1:, 1].tolist() == [0.0, 1.0]
    _long().to_csv(tmp_path / "long.csv", index=False)
    cases = [
        ([tmp_path / "alpha.csv", tmp_path / "long.csv"], r"model 'alpha' is in both .*alpha.csv and .*long.csv"),
        ([tmp_path / "alpha.csv", tmp_path], r"is a directory; give it alone"),
        ([tmp_path / "alpha.csv", tmp_path / "missing.csv"], r"missing.csv"),
    ]
    for source, message in cases:
        with pytest.raises(ValueError, match=message) as caught:
            load_results(source)
        assert "\n" not in str(caught.value)


@given(st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), min_size=1, max_size=5, unique=True), st.integers(1, 3),
       st.randoms(use_true_random=False))
@settings(max_examples=40, deadline=None)
def test_combining_tables_equals_the_long_table_of_all_rows(items, parts, rnd):
    from jecs_core.leaderboard import combine_results

    models = [f"m{k}" for k in range(parts + 1)]
    rows = [(i, m, float(rnd.random() < 0.5)) for i in items for m in models if rnd.random() < 0.8]
    rows = rows or [(items[0], models[0], 1.0)]
    frame = pd.DataFrame(rows, columns=["item_id", "model", "correct"])
    whole = results_from_frame(frame)
    pieces = [results_from_frame(frame[frame.model == m], source=f"{m}.csv") for m in dict.fromkeys(frame.model)]
    combined = combine_results(pieces)
    assert combined.models == whole.models and sorted(combined.item_ids) == sorted(whole.item_ids)
    rows = pd.Index(combined.item_ids).get_indexer(whole.item_ids)  # the items in the order first read
    np.testing.assert_array_equal(combined.values[rows], whole.values)


def test_metric_id_field_and_filter_choose_what_is_read(tmp_path):
    frame = _long().rename(columns={"correct": "f1"})
    frame["f1"] = frame["f1"] * 0.5
    table = results_from_frame(frame, metric="f1")
    assert table.metric == "f1" and not table.binary
    np.testing.assert_array_equal(table.values, VALUES * 0.5)
    path = _log(tmp_path / "samples.jsonl", [0.5, 1, 0], metric="exact_match", filters=("strict", "flex"))
    with pytest.raises(ValueError, match=r"item '3' appears twice; the log has filters \['flex', 'strict'\]"):
        load_results([f"a={path}"], metric="exact_match")
    table = load_results([f"a={path}"], metric="exact_match,strict", id_field="uid")
    assert list(table.item_ids) == ["u3", "u10", "u7"] and table.values[:, 0].tolist() == [0.5, 1.0, 0.0]


def test_id_field_numbers_read_as_the_score_tables_ids(tmp_path):
    # An integer id written as a JSON float (7.0) is item "7"; other numbers keep their digits.
    lines = [{"doc_id": j, "doc": {"uid": uid}, "acc": 1.0} for j, uid in enumerate([3.0, 10, 7.5, "007"])]
    path = tmp_path / "samples.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert list(load_results([f"a={path}"], id_field="uid").item_ids) == ["3", "10", "7.5", "007"]
    for bad in (True, float("nan"), float("inf")):
        path.write_text(json.dumps({"doc_id": 0, "doc": {"uid": bad}, "acc": 1.0}) + "\n")
        with pytest.raises(ValueError, match=r"line 1: doc field 'uid' is .*; expected an id \(text or number\)"):
            load_results([f"a={path}"], id_field="uid")


@pytest.mark.parametrize(("frame", "message"), [
    (_long().iloc[[0, 0, 1]], r"item '3' has more than one 'correct' for model 'alpha'"),
    (_long().assign(correct=["1", "x", "0", "1", "1", "0"]), r"column 'correct' row 2 holds 'x'"),
    (_long().assign(correct=[1, np.nan, 0, 1, 1, 0]), r"column 'correct' row 2 holds no value \(an empty cell, NA, NaN or null\)"),
    (_long().drop(columns="correct"), r"no 'correct' column in the long layout"),
    (_wide().drop(columns="item_id"), r"no 'item_id' column"),
    (_wide().rename(columns={"correct_alpha": "acc_alpha", "correct_beta": "acc_beta"}), r"no 'model' column and no correct_<model>"),
    (pd.concat([_wide(), _wide().iloc[:1]]), r"item_id '3' appears in more than one row"),
    (_long().assign(item_id=["3", "3", "", "", "7", "7"]), r"column 'item_id' row 3 is empty"),
])
def test_bad_tables_are_one_line_errors_naming_the_column(frame, message):
    with pytest.raises(ValueError, match=message) as caught:
        results_from_frame(frame, source="r.csv")
    assert "\n" not in str(caught.value) and str(caught.value).startswith("r.csv")


def test_bad_sources_and_logs_are_one_line_errors(tmp_path):
    _long().to_csv(tmp_path / "long.csv", index=False)
    log = _log(tmp_path / "samples_toy.jsonl", VALUES[:, 0])
    cases = [
        (lambda: load_results(tmp_path / "long.csv", models=["alpha", "gamma"]), r"no results for model\(s\) \['gamma'\]"),
        (lambda: load_results(log), r"is an lm-eval sample log; name its model: MODEL="),
        (lambda: load_results(tmp_path / "long.csv", id_field="uid"), r"id_field applies to lm-eval sample logs only"),
        (lambda: load_results([f"a={log}", str(tmp_path / "long.csv")]), r"mix of MODEL=PATH sample logs and plain paths"),
        (lambda: load_results([f"a={log}", f"a={log}"]), r"model\(s\) \['a'\] given more than once"),
        (lambda: load_results([f"a={log}"], metric="f1"), r"line 1: no per-sample metric 'f1'; this line's numeric fields are \['acc'\]"),
        (lambda: load_results([f"a={log}"], id_field="nope"), r"the doc has no field 'nope'"),
        (lambda: load_results([f"a={tmp_path / 'missing.jsonl'}"]), r"missing.jsonl: file not found"),
        (lambda: load_results(tmp_path / "missing.csv"), r"file not found"),
        (lambda: load_results_bytes(log.read_bytes(), "s.jsonl"), r"needs its model's name"),
        (lambda: load_results_bytes(b"{not json\n", "s.jsonl", model="a"), r"s.jsonl line 1: not valid JSON"),
        (lambda: load_results_bytes(b'{"doc_id": 1, "acc": "yes"}\n', "s.jsonl", model="a"), r"metric 'acc' is 'yes'"),
        (lambda: load_results_bytes(b"\n", "s.jsonl", model="a"), r"s.jsonl: no samples"),
        (lambda: load_results(42), r"source must be a results file"),
        (lambda: results_from_frame(_long(), metric=""), r"metric must be a non-empty column name"),
    ]
    for call, message in cases:
        with pytest.raises(ValueError, match=message) as caught:
            call()
        assert "\n" not in str(caught.value)


def test_a_directory_with_several_logs_of_one_model_is_refused(tmp_path):
    for stamp in ("a", "b"):
        _log(tmp_path / f"samples_toy_{stamp}.jsonl", VALUES[:, 0])
    with pytest.raises(ValueError, match=r"expected one samples_\*.jsonl file in this directory, found 2"):
        load_results([f"m={tmp_path}"])


def test_lm_eval_samples_are_distinct_doc_indices_in_ascending_order(tmp_path):
    assert lm_eval_samples(["3", "10", "0"], task="toy") == {"toy": [0, 3, 10]}
    for ids, message in ((["3", "10", "-2"], "'-2' is not an lm-eval doc index"),  # no doc index is negative
                         (["3", "t10"], "'t10' is not an lm-eval doc index"),
                         (["3", "03"], "'03' is not an lm-eval doc index"),  # 3 and 03 would be one document
                         (["4", "2", "4"], "item id 4 is listed twice"),
                         ([], "lm_eval reads an empty --samples list as every document")):
        with pytest.raises(ValueError, match=message):
            lm_eval_samples(ids, task="toy")
    with pytest.raises(ValueError, match="task must be a non-empty lm-eval task name"):
        lm_eval_samples(["1"], task=" ")
    path = write_lm_eval_samples(tmp_path / "keep.json", np.array(["5", "1"]), task="toy")
    assert json.loads(path.read_text()) == {"toy": [1, 5]}
    with pytest.raises(ValueError, match=r"must end in \.json"):
        write_lm_eval_samples(tmp_path / "keep.txt", ["1"], task="toy")


def _as_lm_eval_logs(keep: list[int], n_docs: int) -> list[tuple[int, int]]:
    """(logged doc_id, document evaluated) as lm-eval pairs them: the kept documents in the data set's order,
    the n-th one logged as ``keep[n]`` (its evaluator's ``doc_id_true = indices[doc_id]``)."""
    evaluated = [doc for doc in range(n_docs) if doc in keep]
    return [(keep[position], doc) for position, doc in enumerate(evaluated)]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 200), min_size=1, max_size=60, unique=True), st.randoms(use_true_random=False))
def test_lm_eval_logs_each_kept_document_under_its_own_id(ids, random):
    random.shuffle(ids)  # the score table's row order, whatever it is
    keep = lm_eval_samples([str(i) for i in ids], task="toy")["toy"]
    assert sorted(keep) == sorted(ids)
    assert all(logged == doc for logged, doc in _as_lm_eval_logs(keep, 201))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.sampled_from(["a", "b", "c"]), st.integers(0, 1)),
                min_size=1, max_size=40, unique_by=lambda row: row[:2]))
def test_long_and_its_round_trip_hold_every_pair_once(rows):
    frame = pd.DataFrame(rows, columns=["item_id", "model", "correct"]).astype({"item_id": str})
    table = results_from_frame(frame)
    assert int((~np.isnan(table.values)).sum()) == len(frame)
    back = table.to_frame().sort_values(["item_id", "model"]).reset_index(drop=True)
    expected = frame.sort_values(["item_id", "model"]).reset_index(drop=True).astype({"correct": float})
    pd.testing.assert_frame_equal(back, expected, check_dtype=False)


def test_a_hand_built_table_is_checked_like_a_read_one():
    from jecs_core import ResultsTable

    table = ResultsTable(models=["a"], item_ids=[3, 4], values=[1, 0])
    assert table.models == ("a",) and list(table.item_ids) == ["3", "4"] and table.values.shape == (2, 1)
    for kwargs, message in [
        ({"models": ("a", "b"), "item_ids": ["1"], "values": [[1.0]]}, r"values must have shape \(items, models\) = \(1, 2\)"),
        ({"models": ("a", "a"), "item_ids": ["1"], "values": [[1.0, 0.0]]}, "models must be distinct"),
        ({"models": ("a",), "item_ids": ["1", "1"], "values": [[1.0], [0.0]]}, "item_ids must be distinct"),
        ({"models": ("a",), "item_ids": ["1"], "values": [[np.inf]]}, "values must be finite"),
    ]:
        with pytest.raises(ValueError, match=message):
            ResultsTable(**kwargs)
