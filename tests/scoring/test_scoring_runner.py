"""The K-model runner: wide/long tables, report, NaN policy, cache and resume."""

import functools
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from transformers import GPT2LMHeadModel, LlamaForCausalLM  # noqa: E402

import scoring.loading  # noqa: E402
from scoring import SCORE_NAMES, ScoreSettings, run_scoring  # noqa: E402
from scoring.registry import active_scores  # noqa: E402
from scoring.testing import random_text, save_tiny_model  # noqa: E402


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("models")
    return {"g": save_tiny_model(root / "g", "gpt2", seed=3), "l": save_tiny_model(root / "l", "llama", seed=4)}


@pytest.fixture(scope="module")
def table():
    rng = np.random.default_rng(1)
    n = 24
    texts = [random_text(rng, int(w)) for w in rng.integers(2, 30, size=n)]
    texts[5] = ""  # NaN under both models
    texts[6] = "w7"  # NaN under the GPT-2 model only (no BOS)
    texts[7] = texts[8]  # a duplicate text is scored once
    return pd.DataFrame(
        {
            "item_id": [f"i{i:02d}" for i in range(n)],
            "split": ["calibration"] * 10 + ["test"] * (n - 10),
            "text": texts,
            "member_g": np.where(np.arange(n) < 10, 1, rng.integers(0, 2, size=n)),  # calibration rows are members
            "source": "synthetic",
        }
    )


@pytest.fixture
def forward_calls(monkeypatch):
    """Counts scoring forward passes (one per batch, whichever head path runs) and any LM forward."""
    import scoring.engine

    calls = []
    original = scoring.engine.scored_statistics

    def counted(model, *args, **kwargs):
        calls.append(type(model).__name__)
        return original(model, *args, **kwargs)

    monkeypatch.setattr(scoring.engine, "scored_statistics", counted)
    for cls in (GPT2LMHeadModel, LlamaForCausalLM):
        lm_forward = cls.forward

        @functools.wraps(lm_forward)
        def lm_counted(self, *args, _original=lm_forward, **kwargs):
            calls.append(f"probe:{type(self).__name__}")
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(cls, "forward", lm_counted)
    return calls


def batches(calls):
    """Scoring forward passes only (not the one-off head probe of a freshly loaded model)."""
    return [c for c in calls if not c.startswith("probe:")]


def test_wide_and_long_tables(models, table, tmp_path):
    seen = []
    out = run_scoring(table, models, cache_dir=tmp_path, token_budget=64, progress=lambda *a: seen.append(a))
    assert list(out.wide.columns) == ["item_id", "split", "text", "score_g", "score_l", "member_g", "source"]
    pd.testing.assert_series_equal(out.wide["item_id"], table["item_id"])
    assert list(out.long.columns) == ["item_id", "model", "score_name", "value"]
    computed = active_scores(reference=False)
    assert out.names == computed and set(computed) <= set(SCORE_NAMES) and "refratio" not in computed
    assert len(out.long) == len(table) * 2 * len(computed)
    assert set(out.long["score_name"]) == set(computed)
    # The wide table carries the chosen score (minkpp by default); wide_for switches without re-scoring.
    long = out.long.set_index(["model", "score_name", "item_id"])["value"].sort_index()
    np.testing.assert_array_equal(out.wide["score_l"], long.loc[("l", "minkpp")].reindex(table["item_id"]))
    np.testing.assert_array_equal(out.wide_for("ppl")["score_g"], long.loc[("g", "ppl")].reindex(table["item_id"]))
    # Duplicate texts share their scores.
    assert out.wide.loc[7, "score_g"] == out.wide.loc[8, "score_g"]
    # Progress ends at (models x distinct texts).
    assert seen[-1][0] == seen[-1][1] == 2 * table["text"].nunique()


def test_nan_policy_is_reported_not_raised(models, table, tmp_path):
    out = run_scoring(table, models, cache_dir=None)
    by_model = {m.name: m for m in out.report.models}
    assert by_model["g"].nan_item_ids == ("i05", "i06")
    assert by_model["l"].nan_item_ids == ("i05",)
    assert out.report.nan_item_ids == ("i05", "i06")
    assert np.isnan(out.wide.loc[5, ["score_g", "score_l"]].astype(float)).all()
    assert np.isfinite(out.wide.loc[6, "score_l"])
    assert "NaN" in out.report.summary()


def test_report_counts_truncation(models, table):
    out = run_scoring(table, models, cache_dir=None, settings=ScoreSettings(max_length=8))
    words = table["text"].str.split().str.len()
    g = out.report.models[0]
    assert g.max_length == 8
    assert g.n_truncated == int((words > 8).sum())
    assert g.n_tokens == int(np.minimum(words, 8).clip(lower=1).sub(1).sum())
    assert g.device == "cpu" and g.dtype == "float32"


def test_second_run_reads_the_cache_and_runs_no_forward_pass(models, table, tmp_path, forward_calls, monkeypatch):
    first = run_scoring(table, models, cache_dir=tmp_path, token_budget=64)
    assert batches(forward_calls), "the first run must score"
    assert [m.n_scored for m in first.report.models] == [table["text"].nunique()] * 2
    forward_calls.clear()
    loads = []
    monkeypatch.setattr(scoring.loading, "load_model", lambda *a, **k: loads.append(a))
    second = run_scoring(table, models, cache_dir=tmp_path, token_budget=64)
    assert forward_calls == [] and loads == []
    assert [m.n_from_cache for m in second.report.models] == [table["text"].nunique()] * 2
    pd.testing.assert_frame_equal(second.wide, first.wide)
    pd.testing.assert_frame_equal(second.long, first.long)
    assert second.report.models[0].nan_item_ids == first.report.models[0].nan_item_ids


def test_interrupted_run_resumes_where_it_stopped(models, table, tmp_path, forward_calls):
    one = {"g": models["g"]}

    def stop_after_two_batches(done, total, message):
        if len(batches(forward_calls)) >= 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_scoring(table, one, cache_dir=tmp_path, token_budget=40, progress=stop_after_two_batches)
    assert len(batches(forward_calls)) == 2
    forward_calls.clear()
    resumed = run_scoring(table, one, cache_dir=tmp_path, token_budget=40)
    n_resumed = len(batches(forward_calls))
    forward_calls.clear()
    fresh = run_scoring(table, one, cache_dir=None, token_budget=40)
    assert 0 < n_resumed < len(batches(forward_calls))
    pd.testing.assert_frame_equal(resumed.wide, fresh.wide)
    report = resumed.report.models[0]
    assert report.n_from_cache > 0 and report.n_scored > 0
    assert report.n_from_cache + report.n_scored == table["text"].nunique()


def test_cache_key_follows_settings_and_model_files(table, tmp_path, forward_calls):
    one = {"g": save_tiny_model(tmp_path / "g", "gpt2", seed=3)}
    run_scoring(table, one, cache_dir=tmp_path / "cache")
    forward_calls.clear()
    other_k = run_scoring(table, one, cache_dir=tmp_path / "cache", settings=ScoreSettings(k_minkpp=0.5))
    assert batches(forward_calls) and other_k.report.models[0].n_from_cache == 0
    forward_calls.clear()
    # Re-saving the model in place (new weights) must not hit the old entries.
    save_tiny_model(one["g"], "gpt2", seed=99)
    resaved = run_scoring(table, one, cache_dir=tmp_path / "cache")
    assert batches(forward_calls) and resaved.report.models[0].n_from_cache == 0


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda t: t.drop(columns="text"), "'text'"),
        (lambda t: t.assign(item_id="same"), "'item_id' must be unique"),
        (lambda t: t.assign(split="train"), "'split'"),
        (lambda t: t.assign(score_g=1.0), "score_g"),
        (lambda t: t.iloc[:0], "no rows"),
    ],
)
def test_bad_tables_raise_value_errors(models, table, change, message):
    with pytest.raises(ValueError, match=message):
        run_scoring(change(table), models, cache_dir=None)


def test_bad_models_and_settings_raise_value_errors(models, table, tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        run_scoring(table, {"x": tmp_path / "nope"}, cache_dir=None)
    with pytest.raises(ValueError, match="config.json"):
        run_scoring(table, {"x": tmp_path}, cache_dir=None)
    with pytest.raises(ValueError, match="model name"):
        run_scoring(table, {"bad name": models["g"]}, cache_dir=None)
    with pytest.raises(ValueError, match="score"):
        run_scoring(table, models, "loss", cache_dir=None)
    with pytest.raises(ValueError, match="k_mink"):
        ScoreSettings(k_mink=0)
    with pytest.raises(ValueError, match="token_budget"):
        run_scoring(table, models, token_budget=0, cache_dir=None)


def test_importing_scoring_does_not_import_torch():
    code = "import sys, scoring, scoring.cli; scoring.SCORE_NAMES; assert 'torch' not in sys.modules, 'torch'"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).resolve().parents[2])
