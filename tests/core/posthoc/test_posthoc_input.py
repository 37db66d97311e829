"""Bad input to the post-hoc bound: one-line errors naming the argument, nothing computed."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from jecs_core.posthoc import fit_post_hoc, post_hoc_bound, post_hoc_path, simes_template_bound

P = np.array([[0.01, 0.02], [0.5, 0.9], [0.03, 0.01]])
MASK = np.array([True, False, True])


@pytest.mark.parametrize("delta", [0, 1, -0.1, 1.5, float("nan"), "0.1", True, None])
def test_delta_outside_the_open_unit_interval(delta):
    for call in (lambda: post_hoc_bound(P, MASK, delta=delta), lambda: fit_post_hoc(P, delta=delta),
                 lambda: post_hoc_path(P, [0.1], delta=delta), lambda: simes_template_bound(P, MASK, delta=delta)):
        with pytest.raises(ValueError, match=r"^delta must be") as info:
            call()
        assert "\n" not in str(info.value)


@pytest.mark.parametrize("mask, detail", [
    (np.array([True, False]), "shape (2,)"),
    (np.array([2, 0, 1]), "dtype int64 with values other than 0 and 1"),
    ([1.0, 0.5, 1.0], "dtype float64 with values other than 0 and 1"),
    (np.ones((3, 1), dtype=bool), "shape"),
    ("yes", "shape ()"),
    (np.array(["a", "b", "c"]), "dtype <U1"),
])
def test_mask_of_the_wrong_length_or_type(mask, detail):
    with pytest.raises(ValueError, match=r"^selected must be a boolean mask \(True/False or 0/1\) of length 3") as info:
        post_hoc_bound(P, mask)
    assert detail in str(info.value)
    with pytest.raises(ValueError, match=r"^selected must be a boolean mask"):
        fit_post_hoc(P).bound(mask)


def test_a_0_1_selection_column_is_the_boolean_mask():
    mask = (1, 0, 1)
    as_bool = np.array(mask, dtype=bool)
    for given in (np.array(mask), np.array(mask, dtype=float), list(mask)):
        assert post_hoc_bound(P, given) == post_hoc_bound(P, as_bool) == fit_post_hoc(P).bound(given)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -0.1, 1.2])
def test_pvalues_not_finite_in_the_unit_interval(bad):
    p = P.copy()
    p[1, 0] = bad
    with pytest.raises(ValueError, match=r"^pvalues must hold finite values in \[0, 1\]"):
        post_hoc_bound(p, MASK)
    with pytest.raises(ValueError, match=r"^pvalues must hold finite values"):
        post_hoc_path(p, [0.1])


def test_path_refuses_bad_alphas_and_unknown_methods():
    with pytest.raises(ValueError, match=r"^alphas must be in the open interval"):
        post_hoc_path(P, [0.1, 1.2])
    with pytest.raises(ValueError, match=r"^alphas must be a 1-D sequence of numbers in \(0, 1\), got shape \(1, 2\)$"):
        post_hoc_path(P, [[0.1, 0.2]])
    # One validator for alphas, as evaluate's: no empty list, no level twice.
    with pytest.raises(ValueError, match=r"^alphas must hold at least one level in \(0, 1\)$"):
        post_hoc_path(P, [])
    with pytest.raises(ValueError, match=r"^alphas must hold each level once, got 0.1 more than once$"):
        post_hoc_path(P, [0.1, 0.1])
    with pytest.raises(ValueError, match=r"^method must be one of"):
        post_hoc_path(P, [0.1], method="nope")


@pytest.mark.parametrize("alphas", ["0.1", ["0.1"], None, [None], [True], np.array([True]), [0.1, "0.2"], {"a": 0.1}])
def test_path_refuses_alphas_that_are_no_numbers(alphas):
    with pytest.raises(ValueError, match=r"^alphas must be a number (or a sequence of numbers )?in \(0, 1\), got "):
        post_hoc_path(P, alphas)


def test_path_takes_one_level_or_a_sequence_of_numbers():
    one = post_hoc_path(P, 0.2)
    assert one.alphas.tolist() == [0.2]
    for same in ([0.2], (0.2,), np.array([0.2]), [np.float32(0.2)], np.float64(0.2), np.array(0.2)):
        assert post_hoc_path(P, same).n_selected.tolist() == one.n_selected.tolist()
    with pytest.raises(ValueError, match=r"^alphas must be a number or a sequence of numbers in \(0, 1\), got \[\[0.1\]"):
        post_hoc_path(P, [[0.1], [0.2, 0.3]])


def test_accepts_a_max_p_vector_and_an_empty_set():
    assert post_hoc_bound(P.max(axis=1), np.zeros(3, dtype=bool)) == 0
    assert post_hoc_bound(P, MASK) == post_hoc_bound(P.max(axis=1), MASK)


def test_metrics_take_the_same_masks():
    from jecs_core import gcp, selection_metrics

    assert gcp([1, 0, 1, 0], [1, 1, 0, 0]) == gcp(np.array([True, False, True, False]), [True, True, False, False]) == 0.5
    with pytest.raises(ValueError, match=r"^selected must be a boolean mask .*values other than 0 and 1$"):
        gcp(np.array([1.0, 0, 0.5, 0]), np.array([1, 1, 0, 0]))
    with pytest.raises(ValueError, match=r"^contaminated must be a boolean mask"):
        selection_metrics([True, False], [2, 0])


@pytest.mark.parametrize("args, message", [
    ((5, 3), r"^max_contaminated must be at most n_selected \(3\), got 5$"),
    ((-1, 3), r"^max_contaminated must be an integer >= 0, got -1$"),
    (("x", 3), r"^max_contaminated must be an integer >= 0, got 'x'$"),
    ((1, 2.5), r"^n_selected must be an integer >= 0, got 2.5$"),
])
def test_the_sentence_refuses_counts_that_are_not_a_bound(args, message):
    from jecs_core.posthoc import post_hoc_line

    with pytest.raises(ValueError, match=message):
        post_hoc_line(*args)


@pytest.mark.parametrize("delta, shown", [(0.1, "90%"), (0.05, "95%"), (1e-12, "99.9999999999%"),
                                          (0.9999999, "0.00001%"), (0.001, "99.9%")])
def test_the_confidence_never_rounds_to_certainty(delta, shown):
    from jecs_core.posthoc import post_hoc_line

    assert f"with {shown} confidence" in post_hoc_line(1, 10, delta=delta)


def test_a_huge_calibration_size_costs_no_memory():
    # The urn's bound of one set counts over the set's items, not over (m + 1) / 2 grid levels.
    assert post_hoc_bound(np.array([0.5, 0.9]), [True, True], calibration_size=10**18) == 2


def test_a_calibration_size_the_p_values_are_off_the_grid_of_is_said_to_go_unused():
    p = np.array([0.0013, 0.0031, 0.61, 0.2, 0.0022])  # weighted p-values: on no j / (m + 1) grid
    unused = r"^calibration_size: unused, as the p-values are not on the j / \(m \+ 1\) grid"
    with pytest.warns(UserWarning, match=unused):
        assert post_hoc_bound(p, p < 0.01, calibration_size=5) == post_hoc_bound(p, p < 0.01)
    from jecs_core.posthoc import fit_post_hoc, post_hoc_path

    with pytest.warns(UserWarning, match=unused):  # every public path says so, not post_hoc_bound alone
        fit_post_hoc(p, calibration_size=5)
    with pytest.warns(UserWarning, match=unused):
        post_hoc_path(p, [0.1], calibration_size=5)
    on_grid = np.array([1, 1, 4, 3, 2]) / 6
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        post_hoc_bound(on_grid, on_grid < 0.3, calibration_size=5)


def test_a_masked_array_with_masked_values_is_refused():
    p = np.ma.masked_array([0.01, 0.5, 0.02], mask=[False, True, False])
    with pytest.raises(ValueError, match=r"^pvalues has masked values; fill or drop the masked values first$"):
        post_hoc_bound(p, np.ones(3, dtype=bool))


def test_the_path_reads_each_bound_through_the_fit_public_method():
    from pathlib import Path

    source = (Path(__file__).resolve().parents[3] / "jecs_core" / "posthoc" / "path.py").read_text(encoding="utf-8")
    assert "fit._" not in source  # no module reaches into another's private names
