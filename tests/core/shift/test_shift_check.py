"""The shift check: exact permutation p-value (false alarms near the level), detection, drivers, output."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jecs_core.shift import TEXT_FEATURES, shift_check, text_features


def test_false_alarm_rate_near_level_and_pvalue_uniform_on_unshifted_data():
    """No shift: P(p <= level) <= level, and p is uniform on its grid {1/10, ..., 1} (exact test)."""
    level, reps = 0.1, 100
    rng = np.random.default_rng(0)
    p = np.array([shift_check(rng.standard_normal((40, 2)), rng.standard_normal((30, 2)), n_folds=2,
                              n_permutations=9, level=level, rng=rng).pvalue for _ in range(reps)])
    # With 9 permutations the exact level is 1/10.
    assert np.mean(p <= level) <= level + 3 * np.sqrt(level * (1 - level) / reps)
    grid_sd = np.sqrt((10**2 - 1) / 12) / 10
    assert abs(p.mean() - 0.55) <= 4 * grid_sd / np.sqrt(reps)


@pytest.mark.parametrize("kind", ["location", "scale"])
def test_detects_a_shift_and_names_its_driver(kind):
    rng = np.random.default_rng(2)
    test = rng.standard_normal((300, 2))
    cal = rng.standard_normal((200, 2))
    if kind == "location":
        cal[:, 1] += 0.8
    else:
        cal[:, 1] *= 0.4
    result = shift_check(test, cal, names=["noise", "len"], n_permutations=49, rng=rng)
    assert result.shifted and result.pvalue == pytest.approx(1 / 50)
    assert result.auc > 0.6
    assert result.drivers(1) == ["len"]
    if kind == "location":
        assert result.feature_auc[1] < 0.4  # test items have smaller values


def test_text_features_feed_the_check():
    rng = np.random.default_rng(3)
    words = ["alpha", "beta", "gamma", "delta"]
    long_texts = [" ".join(rng.choice(words, size=rng.integers(40, 60))) for _ in range(120)]
    short_texts = [" ".join(rng.choice(words, size=rng.integers(5, 15))) + " 2024" for _ in range(120)]
    result = shift_check(None, None, test_text=long_texts, cal_text=short_texts, n_permutations=19, rng=rng)
    assert result.features == TEXT_FEATURES
    assert result.shifted and result.auc > 0.95
    frame = text_features(["Hello World 42!", "", None])
    assert frame.loc[0, "t_words"] == 3 and frame.loc[0, "t_chars"] == 15
    assert frame.loc[0, "t_digit_share"] == pytest.approx(2 / 15)
    assert frame.loc[1].sum() == 0 and frame.loc[2].sum() == 0


def test_outputs_are_json_ready_and_printable():
    rng = np.random.default_rng(4)
    result = shift_check(rng.standard_normal((50, 1)), 1 + rng.standard_normal((50, 1)), names=["len"],
                         n_permutations=19, rng=rng)
    record = json.loads(json.dumps(result.to_dict()))
    assert record["features"] == ["len"] and record["shifted"] == result.shifted
    assert "null_auc" not in record
    text = "\n".join(result.lines())
    assert "AUC" in text and "len" in text
    frames = result.plot_data()
    assert len(frames["scores"]) == 100 and set(frames["scores"]["split"]) == {"test", "calibration"}
    assert len(frames["null"]) == 19 and frames["null"].attrs["observed"] == result.auc
    assert list(frames["covariates"]["covariate"]) == ["len"]
    with pytest.raises(AttributeError):
        result.auc = 0.5  # frozen


def test_rejects_bad_input():
    with pytest.raises(ValueError, match="needs covariates"):
        shift_check(None, None)
    with pytest.raises(ValueError, match="together"):
        shift_check(np.zeros((5, 1)), np.zeros((5, 1)), test_text=["a"] * 5)
    with pytest.raises(ValueError, match="n_folds"):
        shift_check(np.zeros((5, 1)), np.zeros((5, 1)), n_folds=1)
    with pytest.raises(ValueError, match="level"):
        shift_check(np.zeros((5, 1)), np.zeros((5, 1)), level=1.5)
    with pytest.raises(ValueError, match="cal_X must be finite"):
        shift_check(np.zeros((5, 1)), np.full((5, 1), np.nan))


@settings(max_examples=15)
@given(st.integers(0, 2**32 - 1), st.floats(-50, 50), st.sampled_from([-3.0, -0.5, 0.2, 7.0]))
def test_check_is_invariant_to_affine_changes_of_a_covariate(seed, shift, factor):
    """Pooled standardisation plus squares: x -> a x + b leaves the classifier's probabilities unchanged."""
    rng = np.random.default_rng(seed)
    test, cal = rng.standard_normal((40, 2)), rng.standard_normal((30, 2)) + [0.5, 0.0]
    moved_test, moved_cal = test.copy(), cal.copy()
    moved_test[:, 0] = factor * test[:, 0] + shift
    moved_cal[:, 0] = factor * cal[:, 0] + shift
    base = shift_check(test, cal, n_folds=2, n_permutations=4, rng=np.random.default_rng(seed))
    moved = shift_check(moved_test, moved_cal, n_folds=2, n_permutations=4, rng=np.random.default_rng(seed))
    np.testing.assert_allclose(moved.test_prob, base.test_prob, atol=1e-6)
    assert moved.auc == pytest.approx(base.auc, abs=1e-6)
    assert 0 < base.pvalue <= 1 and 0 <= base.auc <= 1
