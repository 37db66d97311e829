"""The Monte-Carlo evaluator: the paper's qualitative result, the summary frame, draws, progress."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from jecs_core import Evaluation, load_scores
from jecs_core.evaluate import SUMMARY_COLUMNS, draw_subsamples, evaluate, format_evaluation

REPO_ROOT = Path(__file__).resolve().parents[3]
PAPER_ALPHAS = (0.1, 0.2, 0.3)
PAPER_METHODS = ("jecs", "jmcs", "union", "intersection")


@pytest.fixture(scope="module")
def synthetic_table():
    return load_scores(REPO_ROOT / "sample_data" / "synthetic_k4.csv")


@pytest.fixture(scope="module")
def paper_run(synthetic_table):
    return evaluate(synthetic_table, alphas=PAPER_ALPHAS, reps=200, seed=0, methods=PAPER_METHODS)


def _row(result: Evaluation, method: str, alpha: float):
    frame = result.summary
    return frame[(frame["method"] == method) & (frame["alpha"] == alpha)].iloc[0]


@pytest.mark.parametrize("alpha", PAPER_ALPHAS)
def test_paper_synthetic_result(paper_run, alpha):
    union = _row(paper_run, "union", alpha)
    assert abs(union["gcp"] - 0.76) < 0.02  # paper: 0.763 / 0.764 / 0.764
    assert union["over_target"]
    for method in ("jecs", "jmcs"):
        found = _row(paper_run, method, alpha)
        assert found["gcp"] <= alpha and not found["over_target"]
    assert _row(paper_run, "jecs", alpha)["power"] >= _row(paper_run, "jmcs", alpha)["power"]


def test_intersection_breaks_the_target_once_alpha_is_loose(paper_run):
    assert _row(paper_run, "intersection", 0.3)["gcp"] > 0.3


def test_summary_is_tidy_with_standard_errors(paper_run):
    frame = paper_run.summary
    assert tuple(frame.columns) == SUMMARY_COLUMNS
    assert len(frame) == 4 * len(PAPER_ALPHAS)
    assert list(frame["method"].unique()) == ["jecs", "jmcs", "union", "intersection"]
    assert paper_run.gcp.shape == paper_run.power.shape == (4, 3, 200)
    # SE = sample std (ddof = 1) / sqrt(reps), from the raw per-repetition arrays.
    gcp = paper_run.gcp[0, 1]
    row = _row(paper_run, "jecs", 0.2)
    assert row["gcp"] == pytest.approx(gcp.mean(), abs=0, rel=1e-15)
    assert row["gcp_se"] == pytest.approx(gcp.std(ddof=1) / np.sqrt(200), rel=1e-12)
    assert row["power_se"] == pytest.approx(paper_run.power[0, 1].std(ddof=1) / np.sqrt(200), rel=1e-12)
    assert (frame["over_target"] == (frame["gcp"] > frame["alpha"])).all()
    assert frame.loc[frame["method"] == "jecs", "lambda_mean"].between(0.5, 0.9).all()
    assert frame.loc[frame["method"] != "jecs", "lambda_mean"].isna().all()
    assert paper_run.se_ddof == 1


def test_per_rep_frame_matches_arrays(paper_run):
    long = paper_run.per_rep_frame()
    assert len(long) == 4 * 3 * 200
    pick = long[(long["method"] == "intersection") & (long["alpha"] == 0.3)]
    np.testing.assert_array_equal(pick["gcp"].to_numpy(), paper_run.gcp[3, 2])


def test_draws_are_eighty_percent_without_replacement_and_seeded():
    draws = draw_subsamples(360, 840, reps=50, seed=7)
    assert draws.calibration.shape == (50, 288) and draws.test.shape == (50, 672)
    for rows, total in ((draws.calibration, 360), (draws.test, 840)):
        assert all(len(np.unique(r)) == r.size for r in rows)
        assert rows.min() >= 0 and rows.max() < total
    again = draw_subsamples(360, 840, reps=50, seed=7)
    np.testing.assert_array_equal(draws.test, again.test)
    other = draw_subsamples(360, 840, reps=50, seed=8)
    assert not np.array_equal(draws.test, other.test)
    # Every item is drawn about 80% of the time.
    share = np.bincount(draw_subsamples(100, 100, reps=2000, seed=1).test.ravel(), minlength=100) / 2000
    assert np.abs(share - 0.8).max() < 0.05


def test_seed_none_is_recorded_and_reproducible(synthetic_table):
    first = evaluate(synthetic_table, reps=5, seed=None)
    again = evaluate(synthetic_table, reps=5, seed=first.seed)
    np.testing.assert_array_equal(first.gcp, again.gcp)


def test_progress_reports_every_chunk_up_to_the_total(synthetic_table):
    calls = []
    evaluate(synthetic_table, reps=37, seed=0, workers=2, progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (37, 37)
    assert all(total == 37 for _, total in calls)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls) and len(calls) >= 2


def test_method_subset_and_single_repetition(synthetic_table):
    result = evaluate(synthetic_table, alphas=0.2, reps=1, methods=["jmcs", "union"])
    assert result.methods == ("jmcs", "union") and result.gcp.shape == (2, 1, 1)
    assert result.summary["gcp_se"].isna().all()  # no spread from one repetition
    assert np.isnan(result.fit_lambda).all()


def test_format_marks_entries_over_target(paper_run):
    text = format_evaluation(paper_run, source="synthetic_k4.csv")
    union_line = next(line for line in text.splitlines() if line.startswith("Union"))
    assert union_line.count("\u2020") == 3
    jecs_line = next(line for line in text.splitlines() if line.startswith("JECS"))
    assert "\u2020" not in jecs_line
    assert "ddof=1" in text and "reps = 200" in text


def test_repetitions_do_not_depend_on_how_many_are_run(synthetic_table):
    # Each repetition draws from its own stream: the first 7 of 30 are a 7-repetition run.
    short = evaluate(synthetic_table, reps=7, seed=5)
    long = evaluate(synthetic_table, reps=30, seed=5)
    np.testing.assert_array_equal(short.gcp, long.gcp[..., :7])
    np.testing.assert_array_equal(short.power, long.power[..., :7])


def test_full_draw_makes_every_repetition_the_same(synthetic_table):
    result = evaluate(synthetic_table, reps=3, draw_fraction=1.0, methods=("jecs",))
    assert result.n_test_drawn == synthetic_table.n and result.n_calibration_drawn == synthetic_table.m
    assert (result.gcp == result.gcp[..., :1]).all()
    assert np.allclose(result.summary["gcp_se"], 0.0, atol=1e-15)


def test_an_interrupt_waits_only_for_the_chunks_in_flight(synthetic_table, monkeypatch):
    from jecs_core.evaluate import protocol

    computed = []
    real = protocol._chunk
    monkeypatch.setattr(protocol, "_chunk", lambda *a: computed.append(1) or real(*a))
    monkeypatch.setattr(protocol, "chunk_size", lambda *a: 1)  # one repetition per chunk: 400 chunks

    def interrupt(done, total):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        evaluate(synthetic_table, reps=400, seed=0, workers=2, methods=("jmcs",), progress=interrupt)
    assert len(computed) <= 2 * 2 + 2  # the window of chunks in flight, not all 400
