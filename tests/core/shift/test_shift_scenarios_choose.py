"""Shift scenarios (format, the shift they carry) and the documented method-choice rule."""

from __future__ import annotations

import json

import numpy as np
import pytest

import jecs_core as jc
from jecs_core.shift import DensityRatio, choose_shift_method, shift_pvalues
from jecs_core.simulate.shift_scenarios import SHIFT_SCENARIOS, location_shift, mixture_shift, scale_shift


@pytest.mark.parametrize("name", list(SHIFT_SCENARIOS))
def test_tables_follow_the_contract(name):
    _, generator = SHIFT_SCENARIOS[name]
    frame = generator(np.random.default_rng(0), pool_size=300)
    assert list(frame.columns[:2]) == ["item_id", "split"]
    assert any(c.startswith("x_") for c in frame.columns)
    table = jc.table_from_frame(frame)
    assert table.K == 3 and table.m + table.n == 300
    assert generator(np.random.default_rng(0), pool_size=300).equals(frame)


def test_the_covariates_are_shifted_as_documented():
    rng = np.random.default_rng(1)
    frame = location_shift(rng, pool_size=20000, shift=1.0)
    by = frame.groupby("split")["x_len"]
    assert by.mean()["calibration"] == pytest.approx(1.0, abs=0.05)
    assert by.mean()["test"] == pytest.approx(0.0, abs=0.05)
    frame = scale_shift(rng, pool_size=20000, cal_sd=0.5)
    assert frame.groupby("split")["x_len"].std()["calibration"] == pytest.approx(0.5, abs=0.03)
    frame = mixture_shift(rng, pool_size=20000)
    shares = frame.groupby("split")["x_src"].mean()
    assert shares["calibration"] == pytest.approx(0.9, abs=0.03) and shares["test"] == pytest.approx(0.5, abs=0.03)
    with pytest.raises(ValueError, match="cal_sd"):
        scale_shift(rng, cal_sd=0)
    with pytest.raises(ValueError, match="pool_size"):
        location_shift(rng, pool_size=2)


def _ratio(ess_fraction):
    return DensityRatio(np.ones(3), np.ones(3), clip=20.0, n_clipped=0, ess=3 * ess_fraction, ess_fraction=ess_fraction)


def test_choice_rule_branches():
    assert choose_shift_method(_ratio(0.3), [0.0, 0.0])[0] == "residual"
    assert choose_shift_method(_ratio(0.9), [0.5, 0.3])[0] == "residual"
    assert choose_shift_method(_ratio(0.9), [0.01, 0.02])[0] == "weighted"
    assert choose_shift_method(_ratio(0.6), [0.0], min_ess_fraction=0.7)[0] == "residual"
    with pytest.raises(ValueError, match="min_r2"):
        choose_shift_method(_ratio(0.9), [0.0], min_r2=0)


def _arrays(frame):
    cal, test = frame[frame.split == "calibration"], frame[frame.split == "test"]
    sc = [c for c in frame if c.startswith("score_")]
    xc = [c for c in frame if c.startswith("x_")]
    return test[sc].to_numpy(), cal[sc].to_numpy(), test[xc].to_numpy(), cal[xc].to_numpy()


def test_shift_pvalues_dispatch_and_records():
    test, cal, tX, cX = _arrays(location_shift(np.random.default_rng(2), pool_size=400))
    plain = shift_pvalues(test, cal)
    assert plain.method == "none" and np.array_equal(plain.pvalues, jc.conformal_pvalues(test, cal))
    assert np.array_equal(shift_pvalues(test, cal, tX, cX, method="none").pvalues, plain.pvalues)
    auto = shift_pvalues(test, cal, tX, cX)
    assert auto.method == "residual" and auto.ratio.ess_fraction < 0.5  # a 1-SD shift: degenerate weights
    assert np.array_equal(auto.pvalues, shift_pvalues(test, cal, tX, cX, method="residual").pvalues)
    weighted = shift_pvalues(test, cal, tX, cX, method="weighted")
    assert weighted.method == "weighted" and weighted.residual is None
    record = json.loads(json.dumps(auto.to_dict()))
    assert record["method"] == "residual" and "ess_fraction" in record["density_ratio"]
    assert any("residual" in line for line in auto.lines())
    with pytest.raises(ValueError, match="needs covariates"):
        shift_pvalues(test, cal, method="weighted")
    with pytest.raises(ValueError, match="method must be one of"):
        shift_pvalues(test, cal, tX, cX, method="magic")
    with pytest.raises(ValueError, match="together"):
        shift_pvalues(test, cal, tX, None)


def test_irrelevant_covariate_without_shift_picks_weighted_and_costs_little():
    """No shift and a covariate the scores ignore: the rule keeps the model-free method."""
    test, cal, tX, cX = _arrays(location_shift(np.random.default_rng(3), pool_size=1200, shift=0.0, beta=0.0))
    auto = shift_pvalues(test, cal, tX, cX)
    assert auto.method == "weighted" and auto.ratio.ess_fraction > 0.9
    plain = jc.conformal_pvalues(test, cal)
    assert np.max(np.abs(auto.pvalues - plain)) < 0.1


@pytest.mark.parametrize("name", ["shift_scale", "shift_mixture"])
def test_auto_with_the_default_rule_holds_alpha_where_plain_does_not(name):
    """Fresh tables: the default rule on auto p-values holds alpha; on plain p-values it exceeds it."""
    alpha, reps = 0.1, 40
    generator = SHIFT_SCENARIOS[name][1]
    plain, aware = [], []
    for seed in range(reps):
        frame = generator(np.random.default_rng(1000 + seed), pool_size=600)
        test, cal, tX, cX = _arrays(frame)
        contaminated = frame.loc[frame.split == "test", [c for c in frame if c.startswith("member_")]].to_numpy().any(axis=1)
        for store, p in ((plain, jc.conformal_pvalues(test, cal)), (aware, shift_pvalues(test, cal, tX, cX).pvalues)):
            store.append(jc.gcp(jc.select(p, alpha=alpha).selected, contaminated))
    plain, aware = np.array(plain), np.array(aware)
    assert aware.mean() <= alpha + 2 * aware.std(ddof=1) / np.sqrt(reps)
    assert plain.mean() > alpha + 2 * plain.std(ddof=1) / np.sqrt(reps)


def test_choice_rule_prefers_weighted_when_the_location_model_misfits():
    method, reason = choose_shift_method(_ratio(0.3), [0.7, 0.7], lack_of_fit=[1e-5, 0.4])
    assert method == "weighted" and "lack-of-fit" in reason
    # Bonferroni over the models: 0.004 * 3 > 0.01 keeps the residual method.
    assert choose_shift_method(_ratio(0.3), [0.7] * 3, lack_of_fit=[0.004, 0.5, 0.5])[0] == "residual"
    assert choose_shift_method(_ratio(0.3), [0.7], lack_of_fit=[np.nan])[0] == "residual"
