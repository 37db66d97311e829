"""Sample logs an auditor may hand ``jecs leaderboard`` by mistake: one line naming the file (and its line), exit 2."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from jecs_cli import main
from jecs_core.leaderboard import load_results, load_results_bytes


def _log(path: Path, rows) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _rows(n: int = 4):
    return [{"doc_id": i, "doc": {"q": f"q{i}"}, "filter": "none", "acc": float(i % 2)} for i in range(n)]


def test_a_log_that_is_not_utf8_names_its_file_and_line(tmp_path):
    log = _log(tmp_path / "samples_t_1.jsonl", _rows())
    lines = log.read_bytes().splitlines()
    lines[2] = lines[2].replace(b'"q2"', 'q\xe92'.join('""').encode("latin-1"))
    log.write_bytes(b"\n".join(lines) + b"\n")
    with pytest.raises(ValueError, match=rf"^{log} line 3: not UTF-8 text \(byte 0xe9 at column \d+\)$"):
        load_results([f"a={log}"])
    with pytest.raises(ValueError, match=r"^up.jsonl line 3: not UTF-8 text"):
        load_results_bytes(log.read_bytes(), "up.jsonl", model="a")


@pytest.mark.parametrize(("name", "content", "message"), [
    ("r.parquet", b"PAR1\x15\x04\x15\xff\xa2\x00", r"line 1: not UTF-8 text .*an lm-eval samples_<task>_<time>.jsonl log is expected here"),
    ("r.csv", b"item_id,model,correct\n0,a,1\n", r"line 1: not valid JSON .*a results table, CSV or Parquet, is read as a table, without a model name"),
    ("results_2026-01-01.json", b'{\n  "results": {}\n}\n', r"line 1: not valid JSON .*lm-eval's aggregated results file"),
    ("deep.jsonl", b"[" * 100_000 + b"\n", r"line 1: not valid JSON \(nested too deeply\)"),
])
def test_a_file_that_is_no_sample_log_says_what_it_probably_is(name, content, message, tmp_path):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(ValueError, match=message):
        load_results([f"a={path}"])


def test_a_fifo_or_a_directory_named_like_a_log_is_refused_without_blocking(tmp_path):
    (tmp_path / "m0").mkdir()
    os.mkfifo(tmp_path / "m0" / "samples_t_1.jsonl")
    _log(tmp_path / "m1" / "samples_t_1.jsonl", _rows())
    with pytest.raises(ValueError, match=r"samples_t_1.jsonl: not a regular file; expected an lm-eval samples_\*.jsonl log"):
        load_results(tmp_path)
    (tmp_path / "d" / "samples_t_1.jsonl").mkdir(parents=True)
    with pytest.raises(ValueError, match=r"d/samples_t_1.jsonl: not a regular file"):
        load_results([f"a={tmp_path / 'd'}"])


def test_a_model_directory_given_without_its_name_is_told_to_name_it(tmp_path):
    _log(tmp_path / "m0" / "samples_t_1.jsonl", _rows())
    with pytest.raises(ValueError, match=rf"^{tmp_path / 'm0'}: holds a sample log itself; name its model: MODEL="):
        load_results(tmp_path / "m0")


@pytest.mark.parametrize(("doc_id", "item"), [(None, None), (True, None), ([3], None), ({"i": 1}, None),
                                              (3.0, "3"), (7, "7"), ("q7", "q7")])
def test_doc_id_takes_the_same_values_as_an_id_field(doc_id, item, tmp_path):
    rows = _rows(2)
    rows[1]["doc_id"] = doc_id
    log = _log(tmp_path / "samples_t_1.jsonl", rows)
    if item is None:
        with pytest.raises(ValueError, match=rf"line 2: 'doc_id' is {json.dumps(doc_id).replace('[', '.').replace('{', '.')}; "
                                             "expected an id"):
            load_results([f"a={log}"])
    else:
        assert load_results([f"a={log}"]).item_ids.tolist() == ["0", item]


def test_the_cli_gives_one_line_for_a_broken_log(tmp_path, capsys):
    log = tmp_path / "deep.jsonl"
    log.write_bytes(b"[" * 100_000 + b"\n")
    sample = str(Path(__file__).resolve().parents[2] / "sample_data" / "synthetic_k4.csv")
    assert main(["leaderboard", sample, "--results", f"m1={log}"]) == 2
    err = capsys.readouterr().err
    assert "not valid JSON (nested too deeply)" in err and err.count("\n") == 1


def test_a_log_saved_with_a_byte_order_mark_reads_as_without(tmp_path):
    log = _log(tmp_path / "samples_t_1.jsonl", _rows())
    plain = load_results([f"a={log}"])
    log.write_bytes(b"\xef\xbb\xbf" + log.read_bytes())
    marked = load_results([f"a={log}"])
    assert marked.item_ids.tolist() == plain.item_ids.tolist() and (marked.values == plain.values).all()


def test_a_model_name_with_an_equals_sign_is_told_how_the_spec_splits(tmp_path):
    with pytest.raises(ValueError, match=r"b=log.jsonl: file not found; MODEL=PATH splits at the first '='"):
        load_results([f"a=b={tmp_path / 'log.jsonl'}".replace(str(tmp_path) + "/", "")])


def test_a_results_row_without_a_model_name_is_named(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("item_id,model,correct\n0,a,1\n1,,0\n")
    with pytest.raises(ValueError, match=r"r.csv: column 'model' row 2 is empty; every row needs its model's name"):
        load_results(path)
    path.write_text("item_id,model,correct\n0,a,1\n1,a,NaN\n")
    with pytest.raises(ValueError, match=r"column 'correct' row 2 holds no value \(an empty cell, NA, NaN or null\)"):
        load_results(path)


def test_a_null_line_and_a_cut_off_line_are_named(tmp_path):
    log = _log(tmp_path / "samples_t_1.jsonl", _rows())
    text = log.read_text(encoding="utf-8").splitlines()
    log.write_text("\n".join([*text[:2], "null", *text[3:]]) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=rf"^{log} line 3: expected a JSON object per line, got null$"):
        load_results([f"a={log}"], metric="acc")
    log.write_text("\n".join([*text[:3], text[3][:-25]]) + "\n", encoding="utf-8")  # a run killed mid-write
    with pytest.raises(ValueError, match=r"line 4: not valid JSON \(Unterminated string starting at column \d+; "
                                         r"the line is cut off \(an interrupted run\?\)\)$"):
        load_results([f"a={log}"], metric="acc")


@pytest.mark.parametrize("field", ["doc_id", "resps", "metrics", "doc_hash"])
def test_lm_evals_own_fields_are_no_metric(field, tmp_path):
    rows = [{**row, "metrics": ["acc"], "resps": [["x"]], "doc_hash": "h"} for row in _rows()]
    log = _log(tmp_path / "samples_t_1.jsonl", rows)
    with pytest.raises(ValueError, match=rf"'{field}' is a field lm-eval writes for every sample, not a metric; "
                                         r"this log's metrics are \['acc'\]"):
        load_results([f"a={log}"], metric=field)
