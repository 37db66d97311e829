"""``jecs leaderboard`` and ``jecs select --lm-eval-samples``: the printed table, the files, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from jecs_cli import main
from jecs_core import load_scores

SAMPLE = "sample_data/synthetic_k4.csv"
SAMPLE_PATH = str(Path(__file__).resolve().parents[3] / SAMPLE)  # for tests that run in another directory


@pytest.fixture(scope="module")
def results_csv(tmp_path_factory):
    table = load_scores(SAMPLE)
    rng = np.random.default_rng(2)
    # Model m2 is much better on every item, so its lead on the clean subset is significant.
    skill = np.array([0.5, 0.5, 0.9, 0.5])
    wide = pd.DataFrame({"item_id": table.test_ids,
                         **{f"correct_{m}": (rng.random(table.n) < skill[k]).astype(int) for k, m in enumerate(table.models)}})
    path = tmp_path_factory.mktemp("results") / "wide.csv"
    wide.to_csv(path, index=False)
    return path


def test_prints_the_table_and_writes_both_files(results_csv, tmp_path, capsys):
    out, pairs = tmp_path / "board.csv", tmp_path / "pairs.parquet"
    assert main(["leaderboard", SAMPLE, "--results", str(results_csv), "--alpha", "0.2", "--out", str(out),
                 "--pairwise-out", str(pairs)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[1].startswith("clean subset: Storey-BH on max-p at alpha = 0.2: ")
    assert "with 90% confidence (post-hoc bound)" in printed[1]
    board = pd.read_csv(out)
    best = printed[3].split()
    assert best[:2] == ["1", "m2"] and board.set_index("model").loc["m2", "rank_clean"] == 1
    # the file's rows in the printed order
    assert list(board["model"]) == [line.split()[1] for line in printed[3:3 + len(board)]]
    assert any(line.startswith("  m2 > ") for line in printed)
    assert set(pd.read_parquet(pairs)["model_a"]) >= {"m2"} and len(pd.read_parquet(pairs)) == 6
    assert all(line == line.rstrip() for line in printed)


def test_mismatch_warnings_go_to_stderr_one_line_each(results_csv, tmp_path, capsys):
    frame = pd.read_csv(results_csv, dtype={"item_id": str}).iloc[5:]
    frame = pd.concat([frame, frame.iloc[:1].assign(item_id="c0")])
    path = tmp_path / "partial.csv"
    frame.to_csv(path, index=False)
    assert main(["leaderboard", SAMPLE, "--results", str(path)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert "jecs leaderboard: warning: 1 item(s) with results are calibration items; they are not part of the benchmark and are not ranked" in err
    (line,) = [line for line in err if "no result for 5 of the 840 test items" in line]  # one line for the 4 models
    assert "models 'm0', 'm1', 'm2', 'm3' each have no result for 5 of the 840 test items" in line


@pytest.mark.parametrize(("argv", "message"), [
    (["--results", "missing.csv"], "missing.csv: file not found"),
    (["--results", "{wide}", "--metric", "f1"], "no 'model' column and no f1_<model> column"),
    (["--results", "{wide}", "--out", "board.txt"], "--out: board.txt must end in .csv or .parquet"),
    (["--results", "{wide}", "--out", "{wide}"], "is the input file"),
    (["--results", "{wide}", "--out", "same.csv", "--pairwise-out", "same.csv"], "name the same file"),
    (["--results", "a=nowhere.jsonl"], "nowhere.jsonl: file not found"),
    (["--results", "{wide}", "--covariates", ""], "--covariates"),
])
def test_bad_arguments_are_one_line_errors(argv, message, results_csv, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = [str(results_csv) if a == "{wide}" else a for a in argv]
    assert main(["leaderboard", SAMPLE_PATH, *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("jecs leaderboard: error: ") and message in err and err.count("\n") == 1


def _doc_indexed(tmp_path):
    """The sample with its test items renamed to doc indices, in a shuffled row order."""
    frame = pd.read_csv(SAMPLE_PATH, dtype={"item_id": str})
    test = (frame["split"] == "test").to_numpy()
    frame.loc[test, "item_id"] = np.random.default_rng(1).permutation(int(test.sum())).astype(str)
    frame.to_csv(tmp_path / "docs.csv", index=False)
    return tmp_path / "docs.csv"


def test_select_writes_the_lm_eval_samples_of_the_exported_rule(tmp_path, capsys):
    keep, sel = tmp_path / "keep.json", tmp_path / "sel.csv"
    assert main(["select", str(_doc_indexed(tmp_path)), "--method", "jmcs", "--out", str(sel), "--no-diagnostics",
                 "--lm-eval-samples", str(keep), "--task", "arc_easy"]) == 0
    selection = pd.read_csv(sel, dtype={"item_id": str})
    chosen = sorted(int(i) for i in selection.loc[selection["selected"] == 1, "item_id"])
    assert json.loads(keep.read_text()) == {"arc_easy": chosen}
    assert f"wrote {keep} ({len(chosen)} doc indices for task 'arc_easy', ascending)" in capsys.readouterr().out


@pytest.mark.parametrize(("scores", "extra", "message"), [
    (SAMPLE, [], "--lm-eval-samples: " + SAMPLE + ": test item id 't0' is not an lm-eval doc index"),
    ("{docs}", ["--alpha", "0.0001"], "storey-maxp selects no item at alpha = 0.0001, and lm_eval reads an empty "
                                      "--samples list as every document; nothing written"),
])
def test_select_refuses_an_lm_eval_samples_file_lm_eval_would_misread(scores, extra, message, tmp_path, capsys):
    scores = str(_doc_indexed(tmp_path)) if scores == "{docs}" else scores
    out = tmp_path / "out"
    out.mkdir()
    assert main(["select", scores, "--out", str(out / "sel.csv"), "--lm-eval-samples", str(out / "keep.json"),
                 "--task", "arc", "--no-diagnostics", *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not list(out.iterdir())  # nothing written


@pytest.mark.parametrize(("extra", "message"), [
    (["--lm-eval-samples", "keep.json"], "--lm-eval-samples and --task go together"),
    (["--task", "arc"], "--lm-eval-samples and --task go together"),
    (["--lm-eval-samples", "keep.txt", "--task", "arc"], "must end in .json"),
    (["--lm-eval-samples", "sel.json", "--task", "arc", "--out", "sel.csv"], "is also written by this command"),
    (["--lm-eval-samples", "keep.json", "--task", ""], "--task: an lm-eval task name without surrounding spaces, got ''"),
    (["--lm-eval-samples", "keep.json", "--task", " arc "], "got ' arc '"),
])
def test_select_refuses_bad_lm_eval_samples_arguments_before_any_work(extra, message, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["select", SAMPLE_PATH, "--no-diagnostics", *extra]) == 2
    out = capsys.readouterr()
    assert message in out.err and out.out == "" and not list(tmp_path.iterdir())


def test_results_may_be_repeated_or_listed(results_csv, tmp_path):
    wide = pd.read_csv(results_csv, dtype={"item_id": str})
    logs = []
    for model in ("m0", "m1", "m2", "m3"):
        path = tmp_path / f"samples_toy_{model}.jsonl"
        rows = [json.dumps({"doc_id": i, "doc": {"id": i}, "filter": "none", "acc": float(v)})
                for i, v in zip(wide["item_id"], wide[f"correct_{model}"])]
        path.write_text("\n".join(rows) + "\n")
        logs.append(f"{model}={path}")
    tables = []  # one table per pair of models, as two evaluation runs would write them
    for pair in (("m0", "m1"), ("m2", "m3")):
        tables.append(tmp_path / f"results_{'_'.join(pair)}.csv")
        wide[["item_id", *(f"correct_{m}" for m in pair)]].to_csv(tables[-1], index=False)
    outs = [tmp_path / f"{name}.csv" for name in ("table", "listed", "repeated", "tables")]
    assert main(["leaderboard", SAMPLE, "--results", str(results_csv), "--out", str(outs[0])]) == 0
    assert main(["leaderboard", SAMPLE, "--results", *logs, "--out", str(outs[1])]) == 0
    repeated = [arg for log in logs for arg in ("--results", log)]
    assert main(["leaderboard", SAMPLE, *repeated, "--out", str(outs[2])]) == 0
    assert main(["leaderboard", "--results", *map(str, tables), "--out", str(outs[3]), "--", SAMPLE]) == 0
    frames = [pd.read_csv(out) for out in outs]
    for frame in frames[1:]:
        pd.testing.assert_frame_equal(frames[0], frame)


def test_a_score_table_after_results_gets_a_hint_and_double_dash_works(results_csv, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["leaderboard", "--results", str(results_csv), SAMPLE])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "required: scores" in err and "put SCORES before --results" in err
    assert main(["leaderboard", "--alpha", "0.2", "--results", str(results_csv), "--", SAMPLE]) == 0
    assert capsys.readouterr().out.splitlines()[1].startswith("clean subset: ")


def test_a_significant_pair_is_printed_the_way_its_shared_items_point(results_csv):
    """m2 leads on the clean ranks; on the items both have results for, m0 is better: the line says m0 > m2."""
    import dataclasses

    from jecs_core.cli.leaderboard import format_leaderboard
    from jecs_core.leaderboard import load_results
    from jecs_core.leaderboard.board import leaderboard

    board = leaderboard(load_scores(SAMPLE), load_results(results_csv), alpha=0.2)
    pair = board.pairwise.iloc[:1].assign(model_a="m2", model_b="m0", mean_a=0.1, mean_b=0.6, significant=True,
                                          p_holm=1e-5, n_shared=50)
    text = format_leaderboard(dataclasses.replace(board, pairwise=pair), scores="s.csv", results="r.csv")
    assert "  m0 > m2: 0.600 vs 0.100 on 50 shared items, adjusted p = 1e-05" in text


def test_long_model_names_keep_the_columns_aligned(results_csv, tmp_path, capsys):
    frame = pd.read_csv(results_csv).rename(columns={"correct_m0": "correct_meta-llama__Meta-Llama-3.1-8B-Instruct"})
    scores = pd.read_csv(SAMPLE).rename(columns={"score_m0": "score_meta-llama__Meta-Llama-3.1-8B-Instruct",
                                                 "member_m0": "member_meta-llama__Meta-Llama-3.1-8B-Instruct"})
    frame.to_csv(tmp_path / "r.csv", index=False)
    scores.to_csv(tmp_path / "s.csv", index=False)
    assert main(["leaderboard", str(tmp_path / "s.csv"), "--results", str(tmp_path / "r.csv"), "--alpha", "0.2"]) == 0
    out = capsys.readouterr().out.splitlines()
    header = next(line for line in out if line.startswith("rank"))
    rows = [line for line in out if line[:4].strip().isdigit()]
    assert len(rows) == 4 and {line.index("[") for line in rows} == {header.index("95% interval")}
