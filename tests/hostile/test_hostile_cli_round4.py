"""The command line on an auditor's real inputs: Parquet columns of lists or bytes, numeric-looking model names,
lm-eval ids, output flags that clash, advice that matches the flags given, and one-line errors that name the flag."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

from jecs_cli import main


def _table(m=100, n=300, K=3, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"item_id": [f"c{i}" for i in range(m)] + [f"t{i}" for i in range(n)],
                          "split": ["calibration"] * m + ["test"] * n})
    for k in range(K):
        frame[f"score_m{k}"] = np.r_[rng.normal(0, 1, m), rng.normal(-1, 1, n)]
    return frame


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_parquet_lists_and_structs_are_carried_as_json_and_bytes_are_refused(tmp_path, capsys):
    pa, pq = pytest.importorskip("pyarrow"), pytest.importorskip("pyarrow.parquet")
    base = pa.Table.from_pandas(_table(), preserve_index=False)
    rows = base.num_rows
    pq.write_table(base.append_column("choices", pa.array([["a", "b"]] * rows))
                   .append_column("meta", pa.array([{"k": 1, "s": "x"}] * rows)), tmp_path / "nested.parquet")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no pandas warning may leak
        code, _, err = _run(capsys, "select", tmp_path / "nested.parquet", "--out", tmp_path / "o.csv")
    assert code == 0 and "warning: 'bool'" not in err
    out = pd.read_csv(tmp_path / "o.csv")
    assert json.loads(out["choices"][0]) == ["a", "b"] and json.loads(out["meta"][0]) == {"k": 1, "s": "x"}
    pq.write_table(base.append_column("blob", pa.array([b"\x00\xff"] * rows)), tmp_path / "binary.parquet")
    code, _, err = _run(capsys, "select", tmp_path / "binary.parquet", "--out", tmp_path / "b.csv")
    assert code == 2 and err.count("\n") == 1
    assert "column 'blob' holds binary cells" in err and not (tmp_path / "b.csv").exists()


def test_a_carried_column_typed_in_blocks_by_the_chunked_reader_stays_text(tmp_path, capsys, monkeypatch):
    import jecs_core._csv_chunks as chunks

    monkeypatch.setattr(chunks, "CHUNKED_FROM_BYTES", 0)  # the reader of large files, on a smaller one
    frame = _table(m=1000, n=16_000, K=40).round(2)
    frame["code"] = [f"{i:06d}" for i in range(len(frame))]
    frame.loc[len(frame) - 5, "code"] = "abc"  # text far below: the parser types its first blocks as numbers
    frame.to_csv(tmp_path / "wide.csv", index=False)
    code, _, err = _run(capsys, "select", tmp_path / "wide.csv", "--out", tmp_path / "o.csv", "--no-diagnostics")
    assert code == 0 and "mixed types" not in err
    written = pd.read_csv(tmp_path / "o.csv", dtype=str)["code"]
    assert (written == frame.loc[frame["split"] == "test", "code"].to_numpy()).all()  # every leading zero kept


def test_long_tables_keep_model_names_as_written(tmp_path, capsys):
    long = _table().melt(["item_id", "split"], var_name="model", value_name="score")
    long["model"] = long["model"].map({"score_m0": "01", "score_m1": "1", "score_m2": "1e3"})
    long.to_csv(tmp_path / "long.csv", index=False)
    code, _, _ = _run(capsys, "select", tmp_path / "long.csv", "--out", tmp_path / "o.csv", "--no-diagnostics")
    assert code == 0
    assert [c for c in pd.read_csv(tmp_path / "o.csv").columns if c.startswith("p_")] == ["p_max", "p_01", "p_1",
                                                                                          "p_1e3"]


@pytest.mark.parametrize("ids, index", [(["0", "7", "12"], None), (["1", "0101"], "0101"), (["-5", "3"], "-5"),
                                        (["٣", "4"], "٣")])
def test_lm_eval_ids_must_be_doc_indices(ids, index):
    from jecs_core.leaderboard.lmeval import lm_eval_sample_ids

    if index is None:
        assert lm_eval_sample_ids(ids) == sorted(int(i) for i in ids)
    else:
        with pytest.raises(ValueError, match=f"{index!r} is not an lm-eval doc index"):
            lm_eval_sample_ids(ids)


def test_evaluate_output_flags_that_clash_or_need_twin(tmp_path, capsys):
    frame = _table()
    for k in range(3):
        frame[f"member_m{k}"] = np.where(frame["split"] == "test", np.arange(len(frame)) % 2, np.nan)
    frame.to_csv(tmp_path / "lab.csv", index=False)
    same = tmp_path / "e.csv"
    for extra, message in ((["--out", same, "--per-rep-out", same], "--out and --per-rep-out name the same file"),
                           (["--twin-out", tmp_path / "t.csv"], "--twin-out: applies to the twin estimate"),
                           (["--twin-tables", "5"], "--twin-tables: applies to the twin estimate")):
        code, out, err = _run(capsys, "evaluate", tmp_path / "lab.csv", "--reps", "2", *extra)
        assert code == 2 and message in err and out == "" and not same.exists()


def test_advice_follows_the_flags_given(tmp_path, capsys):
    frame = _table()
    frame.to_csv(tmp_path / "t.csv", index=False)
    code, _, err = _run(capsys, "select", tmp_path / "t.csv", "--lower-is-member", "--no-diagnostics")
    assert code == 0 and "run the other way (larger = member)" in err and "leave that option out" in err
    assert "pass --lower-is-member" not in err
    dup = pd.concat([frame, frame.iloc[-20:].assign(item_id=[f"d{i}" for i in range(20)])], ignore_index=True)
    dup.to_csv(tmp_path / "d.csv", index=False)
    code, _, err = _run(capsys, "select", tmp_path / "d.csv", "--cluster", "duplicates", "--no-diagnostics")
    assert code == 0 and "each cluster is kept or dropped as one item, as asked" in err and "can exceed alpha" not in err


@pytest.mark.parametrize(("written", "suggested"), [
    ("Score_m0", "score_m0"), (" score_m0", "score_m0"), ("score-m0", "score_m0"), ("scores_m0", "score_m0"),
    ("SCORE_M0", "score_M0"), ("score m0", "score_m0"),
])
def test_a_score_column_spelled_otherwise_is_named(written, suggested, tmp_path, capsys):
    # Carried, as the contract says, but never in silence: K went down by one.
    _table().rename(columns={"score_m0": written}).to_csv(tmp_path / "t.csv", index=False)
    code, out, err = _run(capsys, "select", tmp_path / "t.csv", "--no-diagnostics")
    assert code == 0 and "K = 2" in out
    assert f"column {written!r} is carried to the export, not read as a model's scores" in err
    assert f"rename it {suggested!r}" in err


def test_a_model_name_with_spaces_at_its_ends_is_named(tmp_path, capsys):
    _table().rename(columns={"score_m0": "score_m0 "}).to_csv(tmp_path / "t.csv", index=False)
    code, out, err = _run(capsys, "select", tmp_path / "t.csv", "--no-diagnostics")
    assert code == 0 and "K = 3" in out and "model 'm0 ' (column 'score_m0 ') has spaces at its ends" in err
    _table().rename(columns={"score_m0": "x-ray notes"}).to_csv(tmp_path / "t.csv", index=False)
    code, out, err = _run(capsys, "select", tmp_path / "t.csv", "--no-diagnostics")
    assert "x-ray notes" not in err  # a plain carried column is not taken for a misspelt covariate


def test_a_knn_above_the_tail_is_said(tmp_path, capsys):
    _table().to_csv(tmp_path / "t.csv", index=False)
    code, _, err = _run(capsys, "select", tmp_path / "t.csv", "--knn", "299", "--no-diagnostics")
    assert code == 0 and "warning: knn = 299 is more than the" in err


@pytest.mark.parametrize("argv, message", [
    (["select", "{t}", "--shift-check"], "--shift-check: the table has no x_<name> covariate columns"),
    (["select", "{t}", "--out", ""], "argument --out: give a file name, got ''"),
    (["sweep", "lambda", "{t}", "--lams", "1"], "jecs sweep lambda: error: unrecognized arguments: --lams 1"),
    (["synth", "--out", "{d}/s.csv", "--seed", "-1"], "argument --seed: must be an integer >= 0"),
    (["synth", "--out", "{d}/s.csv", "--calibration-fraction", "1.5"], "argument --calibration-fraction: must be in (0, 1)"),
    (["synth", "--out", "{d}/s.csv", "--mu", "nan"], "argument --mu: must be a finite number"),
])
def test_errors_name_the_flag(tmp_path, capsys, argv, message):
    _table().to_csv(tmp_path / "t.csv", index=False)
    try:  # argparse's own errors leave through SystemExit, the commands' through the return code
        code = main([a.format(t=tmp_path / "t.csv", d=tmp_path) for a in argv])
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err


def test_an_unwritable_directory_names_the_file_asked_for(tmp_path, capsys, monkeypatch):
    import tempfile

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    _table().to_csv(tmp_path / "t.csv", index=False)
    code, _, err = _run(capsys, "select", tmp_path / "t.csv", "--out", tmp_path / "o.csv", "--no-diagnostics")
    assert code == 2 and err.strip().endswith(f"{tmp_path / 'o.csv'}: cannot be written in {tmp_path} (Permission denied)")
    assert "jecs-partial" not in err


def test_cells_are_named_as_found(tmp_path, capsys):
    frame = _table()
    frame.loc[150, "score_m1"] = -np.inf
    frame.to_csv(tmp_path / "inf.csv", index=False)
    assert "non-finite score (-inf) at row 151" in _run(capsys, "select", tmp_path / "inf.csv")[2]
    frame = _table()
    frame.loc[151, "split"] = np.nan
    frame.to_csv(tmp_path / "split.csv", index=False)
    assert "column 'split': empty value at row 152" in _run(capsys, "select", tmp_path / "split.csv")[2]


@pytest.mark.parametrize("name", ["score_a\nb", "score_a\x0bb", "no\x07te"])
def test_a_column_name_with_a_line_break_is_refused(tmp_path, capsys, name):
    frame = _table(K=1).rename(columns={"score_m0": "score_a"})
    frame[name] = 1.0
    frame.to_csv(tmp_path / "t.csv", index=False)
    code, _, err = _run(capsys, "select", tmp_path / "t.csv")
    assert code == 2 and f"column name {name!r} holds a line break or control character" in err


@pytest.mark.parametrize(("first", "second", "shown"), [
    ("m1", "M1", "'m1', 'M1'"),
    ("ab", "a\u200bb", "'ab', 'a\\u200bb'"),
    ("\u00e9", "e\u0301", "'\\xe9', 'e\\u0301'"),  # composed and decomposed: only escapes tell them apart
    ("ｍ1", "m1", "'\\uff4d1', 'm1'"),
])
def test_models_that_print_alike_are_named_together(first, second, shown, tmp_path, capsys):
    # Two models nobody can tell apart on a leaderboard: kept as two, but never in silence.
    _table().rename(columns={"score_m0": f"score_{first}", "score_m1": f"score_{second}"}).to_csv(
        tmp_path / "t.csv", index=False)
    code, out, err = _run(capsys, "select", tmp_path / "t.csv", "--no-diagnostics")
    assert code == 0 and "K = 3" in out
    assert f"warning: models {shown} differ only in letter case, spaces, Unicode form or invisible characters" in err
    assert err.count("print alike") == 1


def test_models_that_differ_in_more_than_their_look_raise_no_warning(tmp_path, capsys):
    _table().rename(columns={"score_m0": "score_m-1", "score_m1": "score_m_1"}).to_csv(tmp_path / "t.csv", index=False)
    code, _, err = _run(capsys, "select", tmp_path / "t.csv", "--no-diagnostics")
    assert code == 0 and "print alike" not in err
