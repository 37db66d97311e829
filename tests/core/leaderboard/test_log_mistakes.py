"""lm-eval sample logs that are not what they seem: each one is named, or warned about, in one line."""

from __future__ import annotations

import gzip
import io
import json
import warnings

import numpy as np
import pandas as pd
import pytest

import jecs_core as jc
from jecs_core.leaderboard import LeaderboardWarning, ResultsTable, leaderboard, load_results, load_results_bytes

STAMP = "2026-01-01T00-00-00.000001"  # lm-eval's date in a log's name: isoformat() with '-' for ':'


def _rows(n: int = 6, *, filter_name: str = "none", metric: str = "acc", value=None):
    return [{"doc_id": i, "doc": {"q": f"q{i}"}, "filter": filter_name,
             metric: float(i % 2) if value is None else value} for i in range(n)]


def _log(path, rows, *, end: str = "\n"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes("".join(json.dumps(row) + end for row in rows).encode("utf-8"))
    return path


def _one_line_error(call, message: str) -> str:
    with pytest.raises(ValueError, match=message) as caught:
        call()
    assert "\n" not in str(caught.value)
    return str(caught.value)


def test_logs_of_different_filters_are_warned_naming_them(tmp_path):
    a = _log(tmp_path / f"samples_gsm_{STAMP}.jsonl", _rows(filter_name="strict-match"))
    b = _log(tmp_path / "b" / f"samples_gsm_{STAMP}.jsonl", _rows(filter_name="flexible-extract"))
    results = load_results({"a": a, "b": b})
    assert results.notes == ("the models' sample logs differ in lm-eval filter ('a': ['strict-match'], 'b': "
                             "['flexible-extract']); their results are not comparable: give logs of one filter, or "
                             "read one with --metric NAME,FILTER",)
    assert load_results({"a": a, "b": a}).notes == ()  # the same filter: nothing to say


def test_logs_of_different_tasks_are_warned_and_the_leaderboard_shows_it(tmp_path):
    a = _log(tmp_path / f"samples_arc_easy_{STAMP}.jsonl", _rows())
    b = _log(tmp_path / f"samples_arc_challenge_{STAMP}.jsonl", _rows())
    results = load_results({"a": a, "b": b})
    line = ("the models' sample logs differ in task ('a': 'arc_easy', 'b': 'arc_challenge'); their results are not "
            "comparable: give every model's log of one task")
    assert results.notes == (line,)
    frame = pd.DataFrame({"item_id": [f"c{i}" for i in range(40)] + [str(i) for i in range(6)],
                          "split": ["calibration"] * 40 + ["test"] * 6,
                          "score_a": np.r_[np.linspace(3, 5, 40), np.zeros(6)], "score_b": np.r_[np.linspace(3, 5, 40), np.zeros(6)]})
    with pytest.warns(LeaderboardWarning, match=r"differ in task \('a': 'arc_easy', 'b': 'arc_challenge'\)"):
        board = leaderboard(jc.table_from_frame(frame), results, alpha=0.3)
    assert line in board.warnings


def test_a_metric_too_large_for_a_float_is_a_one_line_error(tmp_path):
    log = tmp_path / "samples_t.jsonl"
    log.write_text('{"doc_id": 0, "acc": 1' + "0" * 400 + "}\n")
    _one_line_error(lambda: load_results({"a": log}), rf"^{log} line 1: metric 'acc' is 10{{59}}…, too large for a float")
    log.write_text('{"doc_id": 0, "acc": 1' + "0" * 5000 + "}\n")  # past Python's digit limit for int()
    _one_line_error(lambda: load_results({"a": log}), rf"^{log} line 1: not valid JSON \(Exceeds the limit")


def test_a_lone_surrogate_in_an_id_names_the_file_line_and_id(tmp_path):
    rows = _rows(3)
    rows[1]["doc_id"] = "\ud800x"  # json.dumps escapes it as \ud800, which json.loads reads back as a lone surrogate
    log = _log(tmp_path / "samples_t.jsonl", rows)
    text = _one_line_error(lambda: load_results({"a": log}), rf"^{log} line 2: 'doc_id' '\\ud800x' holds a lone surrogate")
    text.encode("utf-8")  # the message itself prints anywhere
    _one_line_error(lambda: load_results_bytes(log.read_bytes(), "up.jsonl", model="a"), r"^up.jsonl line 2: 'doc_id'")
    _one_line_error(lambda: ResultsTable(models=("a",), item_ids=["ok", "\udc80"], values=[1, 0]),
                    r"^item_ids '\\udc80' holds a lone surrogate")


def _parquet_bytes() -> bytes:
    buffer = io.BytesIO()
    pd.DataFrame({"item_id": ["1"], "correct": [1]}).to_parquet(buffer)
    return buffer.getvalue()


@pytest.mark.parametrize(("content", "message"), [
    (gzip.compress(b'{"doc_id": 0, "acc": 1}\n'), r"line 1: not UTF-8 text \(byte 0x8b at column 2\); it is gzip-compressed: decompress it first$"),
    (_parquet_bytes(), r"line 1: not (UTF-8 text|valid JSON) .*; it is a Parquet file \(it starts with PAR1\)"),
    (b"item_id,correct\n1,1\n", r"line 1: not valid JSON \(Expecting value at column 1\); it looks like CSV text"),
], ids=["gzip", "parquet", "csv"])
def test_a_compressed_or_table_file_named_as_a_log_is_named_for_what_it_is(content, message, tmp_path):
    log = tmp_path / "samples_t.jsonl"
    log.write_bytes(content)
    _one_line_error(lambda: load_results({"a": log}), message)
    _one_line_error(lambda: load_results_bytes(content, "up.jsonl", model="a"), message)


def test_a_broken_json_line_is_not_called_csv(tmp_path):
    log = tmp_path / "samples_t.jsonl"
    log.write_text('{"doc_id": 0, "acc": 1, "doc": {"q": "a, b"\n')
    text = _one_line_error(lambda: load_results({"a": log}), r"line 1: not valid JSON")
    assert "CSV text" not in text


def test_a_corpus_level_metric_is_refused_briefly_with_the_reason(tmp_path):
    rows = _rows(2, metric="bleu", value=["ref " * 7000, "lol"])
    for row in rows:
        row["exact_match"] = 0.0
    log = _log(tmp_path / "samples_t.jsonl", rows)
    text = _one_line_error(lambda: load_results({"a": log}, metric="bleu"),
                           r"metric 'bleu' is \['ref ref .*…, a pair lm-eval aggregates over the whole corpus: it has no "
                           r"per-item score; choose a per-item metric \(this line's numeric fields are \['exact_match'\]\)$")
    assert len(text) < 400
    _one_line_error(lambda: load_results_bytes(b'{"doc_id": 0, "mcc": [2, 0]}\n', "up.jsonl", model="a", metric="mcc"),
                    r"metric 'mcc' is \[2, 0\], a pair .* \(this line has none\)$")


def test_a_run_without_log_samples_is_told_to_add_it(tmp_path):
    for model in ("a", "b"):
        run = tmp_path / "out" / model / "run"
        run.mkdir(parents=True)
        (run / f"results_{STAMP}.json").write_text('{"results": {}}')
    expected = r"no samples_\*.jsonl log, only lm-eval results file\(s\) \['results_.*\.json'\], which hold no per-item " \
               r"result; re-run lm_eval with --log_samples"
    for source in ([f"a={tmp_path / 'out' / 'a'}"], [f"a={tmp_path / 'out' / 'a' / 'run'}"], tmp_path / "out"):
        _one_line_error(lambda source=source: load_results(source), expected)


@pytest.mark.parametrize("end", ["\r", "\r\n", "\n"])
def test_a_log_with_any_line_ending_reads_alike_from_a_path_and_from_bytes(end, tmp_path):
    rows = _rows(5)
    log = _log(tmp_path / "samples_t.jsonl", rows, end=end)
    from_path = load_results({"a": log})
    from_bytes = load_results_bytes(log.read_bytes(), "up.jsonl", model="a")
    assert from_path.item_ids.tolist() == from_bytes.item_ids.tolist() == [str(i) for i in range(5)]
    np.testing.assert_array_equal(from_path.values, from_bytes.values)
    log.write_bytes(log.read_bytes().replace(b"\r", b"\r\r"))  # blank lines count, so errors name the same line
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_results({"a": log}).n == 5
    broken = (json.dumps(rows[0]) + "\r" + "{oops" + "\r").encode()
    log.write_bytes(broken)
    _one_line_error(lambda: load_results({"a": log}), r"line 2: not valid JSON")
    _one_line_error(lambda: load_results_bytes(broken, "up.jsonl", model="a"), r"line 2: not valid JSON")
