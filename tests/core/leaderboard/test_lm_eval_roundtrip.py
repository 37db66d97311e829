"""The real lm-evaluation-harness writes sample logs that ``jecs leaderboard`` reads, and accepts the file
``jecs select --lm-eval-samples`` writes.

Two tiny random-weight models (built here, saved with safetensors) answer a local multiple-choice task
(``dataset_path: json`` with local ``data_files``), fully offline.  One subprocess runs lm-eval's own command
line three times (both models on every document, then one model on the selected documents only), so its
import cost is paid once; the test takes about a minute on two shared cores.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("lm_eval", reason="lm-eval (the test extra) is not installed")
pytest.importorskip("torch", reason="torch (the scoring extra) is needed to build the tiny models")

from jecs_cli import main  # noqa: E402

pytestmark = pytest.mark.lm_eval
N_DOCS, N_CAL, TASK = 40, 200, "jecs_toy"
# lm-eval's command line, run once per argument list in one interpreter.
DRIVER = "import json, sys\nfrom lm_eval.__main__ import cli_evaluate\nfor argv in json.loads(sys.argv[1]):\n" \
         "    sys.argv = ['lm_eval', *argv]\n    cli_evaluate()\n"


def _task(directory: Path) -> Path:
    rng = np.random.default_rng(3)
    data = directory / "data.jsonl"
    with open(data, "w") as handle:
        for i in range(N_DOCS):
            question = " ".join(f"w{j}" for j in rng.integers(4, 60, size=5))
            handle.write(json.dumps({"uid": f"q{i}", "question": question, "choices": ["w1", "w2", "w3"],
                                     "answer": int(rng.integers(0, 3))}) + "\n")
    (directory / "toy.yaml").write_text(
        f"task: {TASK}\ndataset_path: json\ndataset_kwargs:\n  data_files:\n    test: {data}\ntest_split: test\n"
        "output_type: multiple_choice\ndoc_to_text: \"{{question}}\"\ndoc_to_choice: \"{{choices}}\"\n"
        "doc_to_target: \"{{answer}}\"\nmetric_list:\n  - metric: acc\n")
    return directory


def _scores(path: Path) -> Path:
    """A score table whose test items are the task's documents (item_id = doc_id), rows not in doc order."""
    rng = np.random.default_rng(4)
    member = rng.random(N_DOCS) < 0.3
    frame = pd.DataFrame({
        "item_id": [f"c{i}" for i in range(N_CAL)] + [str(i) for i in rng.permutation(N_DOCS)],
        "split": ["calibration"] * N_CAL + ["test"] * N_DOCS,
        **{f"score_{m}": np.r_[rng.normal(4, 1, N_CAL), rng.normal(4 * member, 1)] for m in ("a", "b")},
    })
    frame.to_csv(path, index=False)
    return path


def _log(directory: Path) -> Path:
    (found,) = directory.glob(f"*/samples_{TASK}_*.jsonl")
    return found


def _acc(path: Path) -> dict[int, float]:
    return {row["doc_id"]: float(row["acc"]) for row in map(json.loads, path.read_text().splitlines())}


@pytest.fixture(scope="module")
def harness_run(tmp_path_factory):
    from scoring.testing import save_tiny_model

    root = tmp_path_factory.mktemp("lm_eval")
    models = {name: save_tiny_model(root / f"model_{name}", seed=seed) for name, seed in (("a", 0), ("b", 7))}
    (root / "task").mkdir()
    task = _task(root / "task")
    scores, keep = _scores(root / "scores.csv"), root / "keep.json"
    assert main(["select", str(scores), "--lm-eval-samples", str(keep), "--task", TASK, "--no-diagnostics"]) == 0
    common = ["--tasks", TASK, "--include_path", str(task), "--device", "cpu", "--batch_size", "8", "--log_samples"]
    runs = [["--model", "hf", "--model_args", f"pretrained={models[m]},dtype=float32", "--output_path",
             str(root / f"out_{m}"), *common] for m in ("a", "b")]
    runs.append(["--model", "hf", "--model_args", f"pretrained={models['a']},dtype=float32", "--output_path",
                 str(root / "out_keep"), "--samples", str(keep), *common])
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "HF_HOME": str(root / "hf"), "OMP_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}
    done = subprocess.run([sys.executable, "-c", DRIVER, json.dumps(runs)], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return root, scores, keep


def test_jecs_leaderboard_reads_the_logs_the_real_harness_wrote(harness_run):
    root, scores, _ = harness_run
    logs = {m: _log(root / f"out_{m}") for m in ("a", "b")}
    out = root / "board.csv"
    assert main(["leaderboard", str(scores), "--results", *(f"{m}={p}" for m, p in logs.items()),
                 "--out", str(out)]) == 0
    board = pd.read_csv(out)
    selection = root / "sel.csv"
    assert main(["select", str(scores), "--out", str(selection), "--no-diagnostics"]) == 0
    chosen = pd.read_csv(selection, dtype={"item_id": str})
    clean = {int(i) for i in chosen.loc[chosen["selected"] == 1, "item_id"]}
    assert 0 < len(clean) < N_DOCS
    for row in board.itertuples(index=False):
        acc = _acc(logs[row.model])
        assert sorted(acc) == list(range(N_DOCS))
        assert (row.n_all, row.n_clean) == (N_DOCS, len(clean))
        assert row.accuracy_all == pytest.approx(np.mean(list(acc.values())), abs=1e-12)
        assert row.accuracy_clean == pytest.approx(np.mean([acc[i] for i in clean]), abs=1e-12)
    # The directory lm-eval wrote a model's files into names that model's log just as well.
    again = root / "again.csv"
    assert main(["leaderboard", str(scores), "--results", *(f"{m}={p.parent}" for m, p in logs.items()),
                 "--out", str(again)]) == 0
    pd.testing.assert_frame_equal(pd.read_csv(again), board)


def test_the_harness_accepts_the_samples_file_and_evaluates_exactly_those_documents(harness_run):
    root, _, keep = harness_run
    ids = json.loads(keep.read_text())[TASK]
    assert ids and all(isinstance(i, int) for i in ids)
    kept, full = _acc(_log(root / "out_keep")), _acc(_log(root / "out_a"))
    assert sorted(kept) == sorted(ids)
    assert kept == {i: full[i] for i in ids}  # the same answers as in the full run
