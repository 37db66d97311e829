"""``jecs score``: the handler end to end, its input errors, scoring -> selection, and its progress bar."""

import argparse
import io

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from scoring.cli import register  # noqa: E402
from scoring.sources import parse_model_spec  # noqa: E402
from scoring.testing import random_text, save_tiny_model  # noqa: E402


def run_cli(argv):
    parser = argparse.ArgumentParser(prog="jecs")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.handler(args)


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("models")
    return {
        "alpha": save_tiny_model(root / "alpha", "gpt2", seed=5),
        "beta": save_tiny_model(root / "beta", "llama", seed=6),
        "gamma": save_tiny_model(root / "gamma", "llama", seed=7),
    }


@pytest.fixture(scope="module")
def texts_csv(tmp_path_factory):
    rng = np.random.default_rng(2)
    n = 60
    frame = pd.DataFrame(
        {
            "item_id": np.arange(n),
            "split": ["calibration"] * 30 + ["test"] * 30,
            "text": [random_text(rng, int(w)) for w in rng.integers(3, 25, size=n)],
            **{f"member_{m}": np.where(np.arange(n) < 30, 1, rng.integers(0, 2, size=n)) for m in ("alpha", "beta", "gamma")},
        }
    )
    path = tmp_path_factory.mktemp("texts") / "items.csv"
    frame.to_csv(path, index=False)
    return path


def test_handler_writes_the_wide_and_long_tables(models, texts_csv, tmp_path, capsys):
    out, long = tmp_path / "scores.csv", tmp_path / "all.parquet"
    status = run_cli(
        ["score", "--texts", str(texts_csv), "--model", f"alpha={models['alpha']}", "--model", f"beta={models['beta']}",
         "--score", "mentr", "--out", str(out), "--all-scores", str(long), "--max-length", "16",
         "--token-budget", "128", "--device", "cpu", "--cache-dir", str(tmp_path / "cache")]
    )  # fmt: skip
    assert status == 0
    wide = pd.read_csv(out)
    assert list(wide.columns) == [
        "item_id", "split", "text", "score_alpha", "score_beta", "member_alpha", "member_beta", "member_gamma"
    ]  # fmt: skip
    assert len(wide) == 60 and np.isfinite(wide[["score_alpha", "score_beta"]]).all().all()
    all_scores = pd.read_parquet(long)
    assert list(all_scores.columns) == ["item_id", "model", "score_name", "value"]
    mentr = all_scores[(all_scores.model == "beta") & (all_scores.score_name == "mentr")]
    np.testing.assert_allclose(mentr["value"].to_numpy(), wide["score_beta"].to_numpy(), rtol=1e-12)
    report = capsys.readouterr().out
    assert "truncated at 16 tokens" in report and "wrote" in report


def test_handler_warns_about_nan_items(models, tmp_path, capsys):
    texts = tmp_path / "t.csv"
    pd.DataFrame({"item_id": [1, 2, 3], "split": ["calibration", "test", "test"], "text": ["w1 w2", "", "NA"]}).to_csv(
        texts, index=False
    )
    out = tmp_path / "s.csv"
    assert (
        run_cli(["score", "--texts", str(texts), "--model", f"a={models['alpha']}", "--out", str(out), "--no-cache"])
        == 0
    )
    wide = pd.read_csv(out, keep_default_na=False, na_values={"score_a": [""]})
    assert wide["text"].tolist() == ["w1 w2", "", "NA"]  # "NA" is a text, not a missing value
    assert wide["score_a"].isna().tolist() == [False, True, True]
    assert "2 item(s) have NaN scores" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--texts", "missing.csv", "--model", "a={alpha}"], "missing.csv"),
        (["--texts", "{bad_csv}", "--model", "a={alpha}"], "'text'"),
        (["--texts", "{csv}", "--model", "{alpha}"], "NAME=DIR"),
        (["--texts", "{csv}", "--model", "a={tmp}/nowhere"], "does not exist"),
        (["--texts", "{csv}", "--model", "a={tmp}/nowhere.gguf"], "GGUF file"),
        (["--texts", "{csv}", "--model", "a={tmp}"], "config.json"),
        (["--texts", "{csv}", "--model", "a={alpha}", "--model", "a={beta}"], "twice"),
        (["--texts", "{csv}", "--model", "a b={alpha}"], "model name"),
        (["--texts", "{csv}", "--model", "a={alpha}", "--max-length", "1"], "--max-length"),
    ],
)
def test_bad_input_raises_value_error_naming_it(argv, message, models, texts_csv, tmp_path):
    bad_csv = tmp_path / "bad.csv"
    pd.DataFrame({"item_id": [1], "split": ["test"], "body": ["w1 w2"]}).to_csv(bad_csv, index=False)
    fill = {"alpha": models["alpha"], "beta": models["beta"], "csv": texts_csv, "bad_csv": bad_csv, "tmp": tmp_path}
    argv = ["score", *[a.format(**fill) for a in argv], "--out", str(tmp_path / "o.csv")]
    with pytest.raises(ValueError, match=message):
        run_cli(argv)


def test_bad_output_name_raises(models, texts_csv, tmp_path):
    with pytest.raises(ValueError, match="--out"):
        run_cli(
            ["score", "--texts", str(texts_csv), "--model", f"a={models['alpha']}", "--out", str(tmp_path / "o.txt")]
        )


def test_gguf_spec_means_a_file_inside_its_directory(tmp_path):
    (tmp_path / "m.gguf").write_bytes(b"GGUF")
    name, source = parse_model_spec(f"small={tmp_path / 'm.gguf'}")
    assert name == "small" and source.directory == tmp_path.resolve() and source.gguf_file == "m.gguf"


def test_three_models_scored_then_selected(models, texts_csv, tmp_path):
    cli = pytest.importorskip("jecs_core.cli")
    scores = tmp_path / "scores.csv"
    specs = [a for name, path in models.items() for a in ("--model", f"{name}={path}")]
    assert run_cli(["score", "--texts", str(texts_csv), *specs, "--out", str(scores), "--no-cache"]) == 0
    selection = tmp_path / "sel.csv"
    assert cli.main(["select", str(scores), "--alpha", "0.2", "--out", str(selection)]) == 0
    assert selection.is_file()
    chosen = pd.read_csv(selection)
    assert {"item_id", "selected"} <= set(chosen.columns) and len(chosen) == 30


def test_texts_can_be_a_directory_of_csv_and_parquet_shards(models, texts_csv, tmp_path):
    from scoring.texts import read_texts

    whole = read_texts(texts_csv)
    shards = tmp_path / "shards"
    shards.mkdir()
    whole.iloc[:20].to_parquet(shards / "part-0.parquet", index=False)
    whole.iloc[20:45].to_csv(shards / "part-1.csv", index=False)
    whole.iloc[45:].to_parquet(shards / "part-2.parquet", index=False)
    (shards / "README.md").write_text("not a shard")
    pd.testing.assert_frame_equal(read_texts(shards), whole)
    out_dir, out_file = tmp_path / "a.csv", tmp_path / "b.csv"
    spec = ["--model", f"a={models['alpha']}", "--no-cache"]
    assert run_cli(["score", "--texts", str(shards), *spec, "--out", str(out_dir)]) == 0
    assert run_cli(["score", "--texts", str(texts_csv), *spec, "--out", str(out_file)]) == 0
    pd.testing.assert_frame_equal(pd.read_csv(out_dir), pd.read_csv(out_file))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match="no .csv or .parquet shards"):
        read_texts(empty)


@pytest.mark.parametrize("command", ["score"])
def test_help_lists_every_registered_score(command, capsys):
    from scoring import SCORE_NAMES

    with pytest.raises(SystemExit) as exc:
        run_cli([command, "--help"])
    assert exc.value.code == 0
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    for name in SCORE_NAMES:
        assert f"{name} =" in out
    assert "Min-K%++" in out


def test_the_head_memory_budget_reaches_every_batch_and_a_bad_one_is_refused(models, texts_csv, tmp_path, capsys,
                                                                             monkeypatch):
    import scoring.engine

    seen = []
    original = scoring.engine.scored_statistics

    def spy(*args, **kwargs):
        seen.append(kwargs["memory_budget"])
        return original(*args, **kwargs)

    monkeypatch.setattr(scoring.engine, "scored_statistics", spy)
    base = ["score", "--texts", str(texts_csv), "--model", f"alpha={models['alpha']}", "--max-length", "16",
            "--device", "cpu", "--no-cache"]
    assert run_cli([*base, "--out", str(tmp_path / "default.csv")]) == 0
    assert seen and set(seen) == {None}  # the device's own budget
    seen.clear()
    assert run_cli([*base, "--out", str(tmp_path / "one.csv"), "--head-memory-mib", "1"]) == 0
    assert seen and set(seen) == {1 << 20}
    np.testing.assert_allclose(pd.read_csv(tmp_path / "one.csv")["score_alpha"],
                               pd.read_csv(tmp_path / "default.csv")["score_alpha"], rtol=1e-6)
    capsys.readouterr()
    from scoring.cli import main

    assert main([*base, "--out", str(tmp_path / "bad.csv"), "--head-memory-mib", "0"]) == 2
    err = capsys.readouterr().err
    assert "--head-memory-mib" in err and len(err.strip().splitlines()) == 1 and not (tmp_path / "bad.csv").exists()


@pytest.mark.parametrize("bad", [0, -4, 2.5, "64", True])
def test_run_scoring_names_a_bad_head_memory_budget(models, texts_csv, bad):
    from scoring.runner import run_scoring

    with pytest.raises(ValueError, match="head_memory_mib must be an integer >= 1"):
        run_scoring(pd.read_csv(texts_csv), {"alpha": models["alpha"]}, cache_dir=None, head_memory_mib=bad)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class BarRecorder:
    """Stands in for tqdm: keeps the totals, counts and names it was shown."""

    made: list = []

    def __init__(self, *, total, desc, file, **_):
        self.total, self.n, self.descriptions, self.closed = total, 0, [desc], False
        BarRecorder.made.append(self)

    def set_description(self, text, refresh=True):
        self.descriptions.append(text)

    def refresh(self):
        pass

    def update(self, step):
        assert step >= 0, "the count went backwards"
        self.n += step

    def close(self):
        self.closed = True


def _bars(models, texts_csv, tmp_path, monkeypatch, stderr, *extra):
    import tqdm

    BarRecorder.made = []
    monkeypatch.setattr(tqdm, "tqdm", BarRecorder)
    monkeypatch.setattr("sys.stderr", stderr)
    assert run_cli(["score", "--texts", str(texts_csv), "--model", f"alpha={models['alpha']}", "--score", "ppl",
                    "--out", str(tmp_path / "s.csv"), "--max-length", "16", "--device", "cpu", "--no-cache", *extra]) == 0
    return BarRecorder.made


def test_a_terminal_gets_one_bar_that_counts_every_text_and_names_the_model(models, texts_csv, tmp_path, monkeypatch):
    bars = _bars(models, texts_csv, tmp_path, monkeypatch, Terminal())
    assert len(bars) == 1 and bars[0].closed
    assert (bars[0].total, bars[0].n) == (60, 60)
    assert any(d.startswith("jecs score: alpha: ") for d in bars[0].descriptions)


@pytest.mark.parametrize("stderr, extra", [(io.StringIO(), ()), (Terminal(), ("--no-progress",))])
def test_a_pipe_or_no_progress_draws_no_bar(models, texts_csv, tmp_path, monkeypatch, stderr, extra):
    assert _bars(models, texts_csv, tmp_path, monkeypatch, stderr, *extra) == []
    # Only the line that the table labels models this run does not score (the fixture scores one of three).
    assert [line for line in stderr.getvalue().splitlines() if not line.startswith("warning: the score table:")] == []


@pytest.mark.parametrize(("labels", "message"), [
    ([0, 1, 1, 0], r"column 'member_alpha': label 0 at row 1 \(calibration\); calibration items are known members"),
    ([1, 1, 2, 0], r"column 'member_alpha': label 2 at row 3; member labels must be 0 or 1 on every test row"),
])
def test_labels_select_would_refuse_are_refused_before_any_model_loads(labels, message, models, tmp_path, monkeypatch):
    import scoring.runner

    monkeypatch.setattr(scoring.runner, "run_scoring", lambda *a, **k: pytest.fail("scored a table select would refuse"))
    texts = tmp_path / "labelled.csv"
    pd.DataFrame({"item_id": range(4), "split": ["calibration", "calibration", "test", "test"],
                  "text": ["a b", "c d", "e f", "g h"], "member_alpha": labels}).to_csv(texts, index=False)
    with pytest.raises(ValueError, match=message):
        run_cli(["score", "--texts", str(texts), "--model", f"alpha={models['alpha']}", "--out", str(tmp_path / "o.csv")])
    assert not (tmp_path / "o.csv").exists()
