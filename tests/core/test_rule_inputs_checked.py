"""The rules' entry points check every input they are given, and hand out read-only results.

A caller's sort of ``p_max``, a fit filed under a rule, an option for a rule that does not run and a
write into a result's mask each could change a selection in silence; each is refused or kept out.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import jecs_core as jc
from jecs_core.leaderboard import leaderboard


def _p(seed: int = 0, n: int = 200, K: int = 3) -> np.ndarray:
    p = np.random.default_rng(seed).uniform(size=(n, K))
    p[:50] *= 0.01
    return p


def test_fit_jecs_uses_a_correct_sorted_p_max_as_its_own_sort():
    p_max = _p().max(axis=1)
    given = jc.fit_jecs(p_max, sorted_p_max=np.sort(p_max)).select(0.1)
    assert given.n_selected == jc.fit_jecs(p_max).select(0.1).n_selected == 50


@pytest.mark.parametrize("wrong", [
    np.zeros(200),                                   # ends far from p_max's
    lambda pm: np.sort(pm)[::-1],                    # descending
    np.full(200, np.nan),                            # NaN
    lambda pm: np.r_[np.sort(pm)[:1], np.full(198, 0.5), np.sort(pm)[-1:]],  # right ends, values moved inside
    lambda pm: np.sort(pm)[:-1],                     # one short
])
def test_fit_jecs_refuses_a_sorted_p_max_that_is_not_the_sort(wrong):
    p_max = _p().max(axis=1)
    given = wrong(p_max) if callable(wrong) else wrong
    with pytest.raises(ValueError, match=r"^sorted_p_max must be numpy.sort\(p_max\)"):
        jc.fit_jecs(p_max, sorted_p_max=given)


def test_fit_jecs_refuses_a_text_sorted_p_max_naming_it():
    with pytest.raises(ValueError, match=r"^sorted_p_max must hold numbers only"):
        jc.fit_jecs(_p().max(axis=1), sorted_p_max=np.array(["a"] * 200))


def test_storey_bh_refuses_a_sort_with_values_moved_inside_its_ends():
    values = np.random.default_rng(1).uniform(size=50)
    moved = np.r_[np.sort(values)[:1], np.full(48, 0.5), np.sort(values)[-1:]]
    with pytest.raises(ValueError, match=r"^sorted_values must be numpy.sort\(pvalues\)"):
        jc.storey_bh(values, alpha=0.1, sorted_values=moved)


@pytest.mark.parametrize(("options", "message"), [
    ({"lam": 0.6, "lambda_grid": "abc"}, r"^lambda_grid must be a sequence"),
    ({"lam": 0.6, "lambda_grid": []}, r"^lambda_grid must hold at least one value"),
])
def test_fit_jecs_checks_the_grid_whatever_lam_is(options, message):
    with pytest.raises(ValueError, match=message):
        jc.fit_jecs(_p().max(axis=1), **options)


def test_fit_jecs_refuses_a_warn_that_is_no_bool():
    with pytest.raises(TypeError, match=r"^warn must be True or False, got 'no'$"):
        jc.fit_jecs(_p().max(axis=1), warn="no")


def test_fit_envelope_refuses_a_knn_above_n():
    p_max = _p().max(axis=1)
    with pytest.raises(ValueError, match=r"^knn: 10000 is more than the n = 200 test items"):
        jc.fit_envelope(p_max, 0.5, knn=10000)
    tail = int((p_max > 0.5).sum())
    assert jc.fit_envelope(p_max, 0.5, knn=200).k_n == tail  # at most n, above the tail: the tail's size


@pytest.mark.parametrize("method", list(jc.METHODS))
def test_every_rule_hands_out_a_read_only_selection(method):
    p = _p()
    for result in (jc.select(p, alpha=0.1, method=method), jc.get_rule(method).prepare(p).select(0.1),
                   jc.compare_pvalues(p, alpha=0.1).result(method)):
        before = result.n_selected
        with pytest.raises(ValueError, match="read-only"):
            result.selected[:] = True
        assert result.n_selected == before


def test_a_comparison_mask_written_into_changes_nothing():
    comparison = jc.compare_pvalues(_p(), alpha=0.1)
    with pytest.raises(ValueError, match="read-only"):
        comparison.selected()[:] = True
    assert comparison.result().n_selected == 50


def test_the_step_up_results_mask_is_read_only():
    result = jc.storey_bh(np.random.default_rng(2).uniform(size=30) ** 4, alpha=0.2)
    with pytest.raises(ValueError, match="read-only"):
        result.selected[:] = True


def test_compare_pvalues_refuses_a_fit_filed_under_another_rule():
    p = _p()
    with pytest.raises(ValueError, match=r"^fits\['jmcs'\] must be get_rule\('jmcs'\).prepare\(p\), got JECSFit of 'jecs'$"):
        jc.compare_pvalues(p, alpha=0.1, fits={"jmcs": jc.get_rule("jecs").prepare(p)})
    with pytest.raises(ValueError, match=r"^fits\['union'\] must be .* got PerModelFit of 'intersection'$"):
        jc.compare_pvalues(p, alpha=0.1, fits={"union": jc.get_rule("intersection").prepare(p)})


@pytest.mark.parametrize(("fits", "message"), [
    ({"nope": 1}, r"^fits: 'nope' is no registered method"),
    ([1], r"^fits must be a mapping of method name to get_rule\(name\).prepare\(p\), got list$"),
    ({"jmcs": 1}, r"^fits\['jmcs'\] must be get_rule\('jmcs'\).prepare\(p\), got int$"),
])
def test_compare_pvalues_refuses_fits_that_are_no_fits(fits, message):
    with pytest.raises(ValueError, match=message):
        jc.compare_pvalues(_p(), alpha=0.1, fits=fits)


def test_compare_pvalues_reuses_each_rules_own_fit():
    p = _p()
    fits = {name: jc.get_rule(name).prepare(p) for name in jc.METHODS}
    reused = jc.compare_pvalues(p, alpha=0.1, fits=fits)
    fresh = jc.compare_pvalues(p, alpha=0.1)
    for name in jc.METHODS:
        np.testing.assert_array_equal(reused.selected(name), fresh.selected(name))


@pytest.mark.parametrize(("options", "message"), [
    ({"methods": ["jecs"], "storey_lam": "x"}, r"^storey_lam must be"),
    ({"methods": ["jmcs"], "lam": "garbage"}, r"^lam must be 'auto' or a number"),
    ({"methods": ["jmcs"], "knn": -5}, r"^knn must be a positive integer"),
    ({"methods": ["jmcs"], "knn": 10_000}, r"^knn: 10000 is more than the n = 200 test items"),
    ({"methods": ["storey-maxp"], "lambda_grid": []}, r"^lambda_grid must hold at least one value"),
])
def test_compare_pvalues_checks_every_option_given(options, message):
    with pytest.raises(ValueError, match=message):
        jc.compare_pvalues(_p(), alpha=0.1, **options)


def _labelled():
    rng = np.random.default_rng(0)
    n_cal, n_test = 100, 100
    member = np.r_[np.ones(n_cal), rng.random(n_test) < 0.3]
    frame = pd.DataFrame({"item_id": [f"i{j}" for j in range(n_cal + n_test)],
                          "split": ["calibration"] * n_cal + ["test"] * n_test,
                          "score_a": rng.normal(4 * member), "score_b": rng.normal(4 * member)})
    table = jc.table_from_frame(frame)
    results = jc.ResultsTable(models=("a", "b"), item_ids=table.test_ids,
                              values=(rng.random((n_test, 2)) < 0.5).astype(float))
    return table, results


@pytest.mark.parametrize(("options", "message"), [
    ({"lam": "garbage"}, r"^lam must be 'auto' or a number"),
    ({"knn": -5}, r"^knn must be a positive integer"),
    ({"lambda_grid": []}, r"^lambda_grid must hold at least one value"),
])
def test_leaderboard_checks_every_option_given(options, message):
    table, results = _labelled()
    with pytest.raises(ValueError, match=message):
        leaderboard(table, results, alpha=0.2, **options)


def test_a_fit_that_does_not_name_its_rule_is_taken_as_that_rules():
    """A new rule's fit owes only select(alpha) (ARCHITECTURE): untagged, it is filed where it is given."""
    p = _p()
    inner = jc.get_rule("jmcs").prepare(p)

    class UntaggedFit:  # what a newly registered rule's prepare() may return
        def select(self, alpha):
            return inner.select(alpha)

    reused = jc.compare_pvalues(p, alpha=0.1, methods=["jmcs"], fits={"jmcs": UntaggedFit()})
    np.testing.assert_array_equal(reused.selected("jmcs"), jc.compare_pvalues(p, alpha=0.1).selected("jmcs"))
