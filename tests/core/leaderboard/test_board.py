"""The leaderboard on a labelled audit: the right clean ranking, every number recomputed from `jecs select --out`."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

from jecs_cli import main
from jecs_core import ResultsTable, load_results, load_scores
from jecs_core.leaderboard import LEADERBOARD_COLUMNS, LeaderboardWarning, combine_results, leaderboard, results_from_frame


def _wilson(s: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The textbook form: (p + z^2/2n +- z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)."""
    p = s / n
    centre, half = p + z * z / (2 * n), z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - half) / (1 + z * z / n), (centre + half) / (1 + z * z / n)


def _ranks(values) -> list[int]:
    """Rank 1 = largest; ties share the best rank (counted by hand)."""
    return [1 + sum(other > v for other in values) for v in values]


@pytest.fixture(scope="module")
def cli_run(audit, tmp_path_factory):
    out = tmp_path_factory.mktemp("cli")
    sel, board_csv = out / "sel.csv", out / "board.csv"
    assert main(["select", str(audit.scores), "--out", str(sel), "--no-diagnostics"]) == 0
    assert main(["leaderboard", str(audit.scores), "--results", str(audit.results), "--out", str(board_csv)]) == 0
    return (pd.read_csv(sel, dtype={"item_id": str}), json.loads(sel.with_suffix(".json").read_text()),
            pd.read_csv(board_csv))


def test_contamination_turns_the_full_ranking_upside_down_and_the_clean_ranking_is_right(cli_run, audit):
    _, _, board = cli_run
    assert board["model"].tolist() == list(audit.models)
    assert board["rank_all"].tolist() == [3, 2, 1]  # the most exposed model looks best
    assert board["rank_clean"].tolist() == [1, 2, 3]  # the order of skill on unseen items


def test_every_number_equals_a_direct_computation_from_the_selected_rows(cli_run, audit):
    selection, sidecar, board = cli_run
    chosen = set(selection.loc[selection["selected"] == 1, "item_id"])
    clean = np.array([i in chosen for i in audit.test_ids])
    bound = sidecar["post_hoc"]["max_contaminated"]
    accuracy_all, accuracy_clean = [], []
    for k, row in board.iterrows():
        right = audit.correct[:, k]
        s, n = int(right[clean].sum()), int(clean.sum())
        accuracy_all.append(right.mean())
        accuracy_clean.append(s / n)
        assert (row.n_all, row.n_clean) == (len(right), n)
        assert row.accuracy_all == pytest.approx(right.mean(), abs=1e-12)
        assert row.accuracy_clean == pytest.approx(s / n, abs=1e-12)
        assert (row.ci_low, row.ci_high) == pytest.approx(_wilson(s, n), abs=1e-9)
        assert row.inflation == pytest.approx(right.mean() - s / n, abs=1e-12)
        # The bound's extremes: the X contaminated items were all answered right (low) or all wrong (high).
        assert row.bound_low == pytest.approx((s - min(bound, s)) / (n - bound), abs=1e-12)
        assert row.bound_high == pytest.approx((s - max(0, bound - (n - s))) / (n - bound), abs=1e-12)
        assert row.inflation_low <= row.inflation <= row.inflation_high
    assert board["rank_all"].tolist() == _ranks(accuracy_all)
    assert board["rank_clean"].tolist() == _ranks(accuracy_clean)


def test_lm_eval_samples_lists_exactly_the_selected_doc_indices_in_ascending_order(audit, tmp_path):
    # The benchmark's documents numbered 0..n-1 in a shuffled row order: lm-eval labels its n-th logged
    # document with the n-th entry of the list, so the list must follow the documents' order.
    frame = pd.read_csv(audit.scores, dtype={"item_id": str})
    test = (frame["split"] == "test").to_numpy()
    frame.loc[test, "item_id"] = np.random.default_rng(5).permutation(int(test.sum())).astype(str)
    scores, sel, keep = tmp_path / "scores.csv", tmp_path / "sel.csv", tmp_path / "keep.json"
    frame.to_csv(scores, index=False)
    assert main(["select", str(scores), "--out", str(sel), "--no-diagnostics",
                 "--lm-eval-samples", str(keep), "--task", "toy"]) == 0
    selection = pd.read_csv(sel, dtype={"item_id": str})
    written = json.loads(keep.read_text())
    assert list(written) == ["toy"]
    assert written["toy"] == sorted(int(i) for i in selection.loc[selection["selected"] == 1, "item_id"])


def test_the_clean_set_is_the_selection_of_every_rule_at_the_same_settings(audit, tmp_path):
    table, results = load_scores(audit.scores), load_results(audit.results)
    for method, alpha in (("jmcs", 0.05), ("storey-maxp", 0.2)):
        sel = tmp_path / f"{method}.csv"
        assert main(["select", str(audit.scores), "--out", str(sel), "--method", method, "--alpha", str(alpha),
                     "--no-diagnostics"]) == 0
        expected = pd.read_csv(sel)["selected"].to_numpy(dtype=bool)
        board = leaderboard(table, results, method=method, alpha=alpha)
        assert np.array_equal(board.selected, expected)
        assert board.frame["n_clean"].tolist() == [int(expected.sum())] * table.K


def test_pairwise_differences_on_the_clean_items_are_significant_and_ordered(audit):
    board = leaderboard(load_scores(audit.scores), load_results(audit.results))
    pairs = board.pairwise
    assert list(zip(pairs["model_a"], pairs["model_b"])) == [("m0", "m1"), ("m0", "m2"), ("m1", "m2")]
    assert pairs["significant"].all() and (pairs["p_holm"] >= pairs["p_value"]).all()
    assert set(pairs["test"]) == {"exact McNemar"}


def test_mismatches_are_counted_warnings_and_the_rest_is_unchanged(audit):
    table = load_scores(audit.scores)
    long = pd.read_csv(audit.results, dtype={"item_id": str})
    extra = pd.DataFrame({"item_id": [audit.calibration_ids[0]] * 3 + ["nowhere"] * 3, "model": list(audit.models) * 2,
                          "correct": 1})
    dropped = long.drop(index=long.index[(long["model"] == "m1") & long["item_id"].isin(audit.test_ids[:5])])
    results = results_from_frame(pd.concat([dropped, extra]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        board = leaderboard(table, results)
    lines = board.warnings
    assert [str(w.message) for w in caught if w.category is LeaderboardWarning] == list(lines)
    assert any(line.startswith("1 item(s) with results are calibration items") for line in lines)
    assert any(line.startswith("1 item(s) with results are not in the score table (first: 'nowhere')") for line in lines)
    assert any("model 'm1' has no result for 5 of the 3000 test items" in line for line in lines)
    assert board.frame.loc[1, "n_all"] == 2995 and board.frame.loc[0, "n_all"] == 3000
    assert board.frame.loc[0, "accuracy_all"] == pytest.approx(audit.correct[:, 0].mean())


@pytest.mark.parametrize("stray, warned", [(2.0, True), (0.5, True), (None, False)])
def test_a_0_1_metric_with_a_stray_value_is_warned_and_treated_as_graded(audit, stray, warned):
    table, results = load_scores(audit.scores), load_results(audit.results)
    values = results.values.copy()
    if stray is not None:
        values[7, 1] = stray
    edited = ResultsTable(models=results.models, item_ids=results.item_ids, values=values, metric=results.metric)
    board = leaderboard(table, edited, seed=1) if not warned else None
    if warned:
        with pytest.warns(LeaderboardWarning, match=rf"'correct' is 0/1 except 1 result\(s\) \(first: {stray:g} for "
                                                     rf"model 'm1', item '{results.item_ids[7]}'\); it is treated as a graded"):
            board = leaderboard(table, edited, seed=1)
    assert board.binary is not warned
    assert any("0/1 except" in line for line in board.warnings) is warned


def test_a_graded_metric_with_many_values_off_0_1_is_not_warned(audit):
    table, results = load_scores(audit.scores), load_results(audit.results)
    graded = ResultsTable(models=results.models, item_ids=results.item_ids, values=results.values * 0.9 + 0.05)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LeaderboardWarning)
        leaderboard(table, graded, seed=1)


def test_model_mismatches_are_one_line_errors(audit):
    table, results = load_scores(audit.scores), load_results(audit.results)
    renamed = ResultsTable(models=("m0", "m1", "gpt"), item_ids=results.item_ids, values=results.values)
    with pytest.raises(ValueError, match=r"model\(s\) \['gpt'\] are not in the score table"):
        leaderboard(table, renamed)
    fewer = ResultsTable(models=("m0", "m1"), item_ids=results.item_ids, values=results.values[:, :2])
    with pytest.raises(ValueError, match=r"no results for model\(s\) \['m2'\]"):
        leaderboard(table, fewer)
    upper = ResultsTable(models=("M0", "m1", "m2"), item_ids=results.item_ids, values=results.values)
    hint = "; the names differ only in letter case, spaces, Unicode form or invisible characters$"
    with pytest.raises(ValueError, match=r"\['M0'\] are not in the score table .*" + hint):
        leaderboard(table, upper)
    for odd in ("m2 ", "m\u200b2"):  # a trailing space, a zero-width space
        spaced = ResultsTable(models=("m0", "m1", odd), item_ids=results.item_ids, values=results.values)
        with pytest.raises(ValueError, match=hint):
            leaderboard(table, spaced)
    with pytest.raises(ValueError, match=r"not in the score table \(its models are \['m0', 'm1', 'm2'\]\)$"):
        leaderboard(table, renamed)  # no hint where the names differ otherwise
    with pytest.raises(ValueError, match="alpha"):
        leaderboard(table, results, alpha=1.5)
    with pytest.raises(ValueError, match="method must be one of"):
        leaderboard(table, results, method="nope")


def test_an_empty_clean_subset_gives_a_frame_without_clean_numbers(audit):
    table, results = load_scores(audit.scores), load_results(audit.results)
    board = leaderboard(table, results, method="jmcs", alpha=1e-6)
    assert board.n_clean == 0 and board.frame["accuracy_clean"].isna().all()
    assert board.frame[["ci_low", "ci_high", "bound_low", "bound_high"]].isna().all().all()
    assert list(board.frame.columns) == list(LEADERBOARD_COLUMNS)
    # No clean mean, no clean rank: not a shared first place.
    assert board.frame["rank_clean"].isna().all()
    assert board.frame["rank_all"].tolist() == _ranks(board.frame["accuracy_all"].tolist())


def test_an_empty_clean_subset_is_said_and_no_rank_or_move_is_printed(audit, capsys, tmp_path):
    out = tmp_path / "board.csv"
    assert main(["leaderboard", str(audit.scores), "--results", str(audit.results), "--method", "jmcs",
                 "--alpha", "1e-6", "--out", str(out)]) == 0
    printed = capsys.readouterr().out.splitlines()
    rows = [line.split() for line in printed if line.split() and line.split()[0] == "-"]
    # ... rank_all, move, then the inflation's three tokens "- [-, -]"
    assert len(rows) == 3 and all(row[-5].isdigit() and row[-4] == "-" for row in rows)
    assert any(line.startswith("no test item is selected at alpha = 1e-06") for line in printed)
    written = pd.read_csv(out)
    assert written["rank_clean"].isna().all() and written["rank_all"].notna().all()


def test_a_model_without_results_on_the_clean_items_is_unranked_there_and_the_rest_keep_their_order(audit):
    table, results = load_scores(audit.scores), load_results(audit.results)
    board = leaderboard(table, results)
    clean = set(np.asarray(board.clean_ids).tolist())
    first = results.models[0]
    values = results.values.copy()
    values[[i in clean for i in np.asarray(results.item_ids).tolist()], 0] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LeaderboardWarning)
        partial = leaderboard(table, ResultsTable(models=results.models, item_ids=results.item_ids, values=values))
    frame = partial.frame.set_index("model")
    assert pd.isna(frame.loc[first, "rank_clean"])
    others = frame.drop(index=first)
    assert others["rank_clean"].tolist() == _ranks(others["accuracy_clean"].tolist())


def test_the_range_holds_the_truly_clean_accuracy_with_the_promised_confidence(audit_factory, tmp_path):
    """Fresh audits: some model's truly clean accuracy leaves its range in at most about delta of the runs."""
    runs, delta, misses, misses_without_bound = 40, 0.1, 0, 0
    for seed in range(runs):
        audit = audit_factory(tmp_path / str(seed), seed=100 + seed, n_test=800, n_cal=300)
        board = leaderboard(load_scores(audit.scores), load_results(audit.results), alpha=0.2, delta=delta)
        truly = board.selected & ~audit.members.any(axis=1)
        accuracy = audit.correct[truly].mean(axis=0)
        frame = board.frame
        misses += bool(((accuracy < frame["bound_low"] - 1e-12) | (accuracy > frame["bound_high"] + 1e-12)).any())
        misses_without_bound += bool((np.abs(accuracy - frame["accuracy_clean"]) > 1e-12).any())
    assert misses <= runs * delta + 2 * np.sqrt(runs * delta * (1 - delta))
    assert misses_without_bound > runs / 2  # the selection does hold contaminated items: the range matters


def test_a_graded_metric_uses_the_bootstrap_and_the_sign_flip_and_is_reproducible(audit):
    table = load_scores(audit.scores)
    rng = np.random.default_rng(5)
    graded = np.clip(audit.correct * 0.7 + rng.uniform(0, 0.3, audit.correct.shape), 0, 1)
    results = ResultsTable(models=audit.models, item_ids=audit.test_ids, values=graded, metric="f1")
    board = leaderboard(table, results, seed=3)
    again = leaderboard(table, results, seed=3)
    pd.testing.assert_frame_equal(board.frame, again.frame)
    pd.testing.assert_frame_equal(board.pairwise, again.pairwise)
    assert not board.binary and set(board.pairwise["test"]) == {"sign-flip"}
    for k, row in board.frame.iterrows():
        clean = np.sort(graded[board.selected, k])
        x, n = board.max_contaminated, clean.shape[0]
        assert row.accuracy_clean == pytest.approx(clean.mean(), abs=1e-12)
        assert row.ci_low < row.accuracy_clean < row.ci_high
        # Removing the X largest (lowest possible mean) or the X smallest (highest) results.
        assert row.bound_low == pytest.approx(clean[: n - x].mean(), abs=1e-12)
        assert row.bound_high == pytest.approx(clean[x:].mean(), abs=1e-12)
    assert board.frame["rank_clean"].tolist() == [1, 2, 3] and board.pairwise["significant"].all()


def test_results_that_reach_no_test_item_are_an_error_naming_both_ids(audit):
    table, results = load_scores(audit.scores), load_results(audit.results)
    prefixed = ResultsTable(models=results.models, item_ids=np.char.add("x", results.item_ids.astype(str)),
                            values=results.values)
    first_test = str(table.test_ids[0])
    with pytest.raises(ValueError, match=rf"no result for any of the 3000 test items for model\(s\) \['m0', 'm1', 'm2'\] "
                                         rf"\(m0's first result is for item id 'x.*' and the table's first test item id "
                                         rf"is '{first_test}'\)"):
        leaderboard(table, prefixed)
    one_gone = results.values.copy()
    one_gone[:, 2] = np.nan  # a model whose every test result is missing cannot be ranked either
    with pytest.raises(ValueError, match=r"for model\(s\) \['m2'\] \(the results have no value for m2\)"):
        leaderboard(table, ResultsTable(models=results.models, item_ids=results.item_ids, values=one_gone))
    # Results from several files: only m1's ids are written another way; the hint shows m1's, not m0's.
    padded = ResultsTable(models=("m1",), item_ids=np.char.add("0", results.item_ids.astype(str)), values=results.values[:, 1])
    mixed = combine_results([ResultsTable(models=("m0", "m2"), item_ids=results.item_ids, values=results.values[:, [0, 2]]),
                             padded])
    with pytest.raises(ValueError, match=r"for model\(s\) \['m1'\] \(m1's first result is for item id '0"):
        leaderboard(table, mixed)
