"""``jecs score``'s progress bar: on a terminal only, off with --no-progress, one count over (model, text) pairs."""

import argparse
import io

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from scoring.cli import register  # noqa: E402
from scoring.testing import random_text, save_tiny_model  # noqa: E402


def run_cli(argv):
    parser = argparse.ArgumentParser(prog="jecs")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.handler(args)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Recorder:
    """Stands in for tqdm: keeps the totals, counts and names it was shown."""

    made: list = []

    def __init__(self, *, total, desc, file, **_):
        self.total, self.n, self.descriptions, self.closed = total, 0, [desc], False
        Recorder.made.append(self)

    def set_description(self, text, refresh=True):
        self.descriptions.append(text)

    def refresh(self):
        pass

    def update(self, step):
        assert step >= 0, "the count went backwards"
        self.n += step

    def close(self):
        self.closed = True


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    root = tmp_path_factory.mktemp("job")
    model = save_tiny_model(root / "m", "llama", seed=3)
    rng = np.random.default_rng(0)
    texts = root / "texts.csv"
    pd.DataFrame({"item_id": range(12), "split": ["calibration"] * 6 + ["test"] * 6,
                  "text": [random_text(rng, 8) for _ in range(12)], "member_tiny": [1] * 6 + [0] * 6}).to_csv(texts, index=False)
    return root, model, texts


def _score(job, tmp_path, monkeypatch, stderr, *extra):
    import tqdm

    root, model, texts = job
    Recorder.made = []
    monkeypatch.setattr(tqdm, "tqdm", Recorder)
    monkeypatch.setattr("sys.stderr", stderr)
    status = run_cli(["score", "--texts", str(texts), "--model", f"tiny={model}", "--score", "ppl", "--out",
                      str(tmp_path / "s.csv"), "--device", "cpu", "--no-cache", *extra])
    assert status == 0
    return Recorder.made


def test_a_terminal_gets_one_bar_that_counts_every_text_and_names_the_model(job, tmp_path, monkeypatch):
    bars = _score(job, tmp_path, monkeypatch, Terminal())
    assert len(bars) == 1 and bars[0].closed
    assert (bars[0].total, bars[0].n) == (12, 12)
    assert any(d.startswith("jecs score: tiny: ") for d in bars[0].descriptions)


@pytest.mark.parametrize("stderr, extra", [(io.StringIO(), ()), (Terminal(), ("--no-progress",))])
def test_a_pipe_or_no_progress_draws_none(job, tmp_path, monkeypatch, stderr, extra):
    assert _score(job, tmp_path, monkeypatch, stderr, *extra) == []
    assert stderr.getvalue() == ""
