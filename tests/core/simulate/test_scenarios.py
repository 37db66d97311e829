"""Scenario generators: shapes, labels, determinism, and the dependence they promise."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from jecs_core import conformal_pvalues, table_from_frame
from jecs_core.simulate import SCENARIOS, make_scenario
from jecs_core.simulate.scenarios import (
    copula_mixture,
    copula_noise,
    exposure_members,
    heterogeneous_exposure,
    heterogeneous_strength,
    latent_noise,
    shared_latent,
)


def _parts(frame: pd.DataFrame):
    test = frame[frame["split"] == "test"]
    cal = frame[frame["split"] == "calibration"]
    return (cal.filter(like="score_").to_numpy(), test.filter(like="score_").to_numpy(),
            test.filter(like="member_").to_numpy(), cal.filter(like="member_").to_numpy())


def ks_distance(sample: np.ndarray, cdf) -> float:
    """Kolmogorov-Smirnov distance between a sample and a CDF."""
    x = np.sort(sample)
    n = x.size
    F = cdf(x)
    return float(max(np.max(np.arange(1, n + 1) / n - F), np.max(F - np.arange(n) / n)))


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_registry_entries_build_valid_deterministic_tables(name):
    description, generate = SCENARIOS[name]
    assert isinstance(description, str) and 20 < len(description) < 140 and "\n" not in description
    frame = make_scenario(name, np.random.default_rng(3))
    table = table_from_frame(frame)  # the data contract holds
    assert table.has_labels and table.n > 0 and table.m > 0
    cal_members = frame.loc[frame["split"] == "calibration"].filter(like="member_").to_numpy()
    assert (cal_members == 1).all()  # calibration items are members of every model
    test_members = table.test_members
    assert set(np.unique(test_members)) <= {0, 1}
    assert 0 < table.contaminated.mean() < 1
    pd.testing.assert_frame_equal(frame, generate(np.random.default_rng(3)))
    assert not frame.equals(generate(np.random.default_rng(4)))


def test_make_scenario_rejects_unknown_name():
    with pytest.raises(ValueError, match="scenario"):
        make_scenario("nope", np.random.default_rng(0))


@pytest.mark.parametrize("generate", [shared_latent, copula_mixture, heterogeneous_exposure, heterogeneous_strength])
def test_sizes_follow_the_parameters(generate):
    frame = generate(np.random.default_rng(0), pool_size=500, n_models=3, calibration_fraction=0.2)
    cal, test, members, _ = _parts(frame)
    assert cal.shape == (100, 3) and test.shape == (400, 3) and members.shape == (400, 3)
    assert frame["item_id"].is_unique


def test_generators_need_a_generator():
    with pytest.raises(ValueError, match="rng"):
        shared_latent(0)


def test_latent_noise_has_the_requested_correlation_and_unit_marginals():
    noise = latent_noise(0.6)(np.random.default_rng(1), (40_000, 3))
    corr = np.corrcoef(noise.T)
    assert np.allclose(corr[np.triu_indices(3, 1)], 0.6, atol=0.02)
    assert np.allclose(noise.std(axis=0), 1.0, atol=0.02)
    with pytest.raises(ValueError, match="correlation"):
        latent_noise(1.5)


def test_shared_latent_zero_correlation_is_independent():
    frame = shared_latent(np.random.default_rng(2), pool_size=20_000, correlation=0.0)
    cal, _, _, _ = _parts(frame)
    assert np.abs(np.corrcoef(cal.T)[np.triu_indices(4, 1)]).max() < 0.05


@pytest.mark.parametrize("eta", [0.0, 0.3, 0.8])
def test_copula_mixture_max_p_null_cdf(eta):
    # Every test item is a member of all K models, so max-p is the max of K null
    # conformal p-values; its CDF must be eta x + (1 - eta) x^K.
    K = 3
    frame = copula_mixture(np.random.default_rng(10), pool_size=12_000, n_models=K, calibration_fraction=0.5,
                           contamination=1.0, eta=eta)
    cal, test, members, _ = _parts(frame)
    assert (members == 1).all()
    p_max = conformal_pvalues(test, cal).max(axis=1)

    def model(e):
        return lambda x: e * x + (1 - e) * x ** K

    # n = 6000: the KS distance under the right CDF is about 0.01-0.02 (plus a
    # little from the finite calibration set); a wrong eta is far off.
    assert ks_distance(p_max, model(eta)) < 0.035
    for wrong in (eta - 0.3, eta + 0.3):
        if 0 <= wrong <= 1:
            assert ks_distance(p_max, model(wrong)) > 0.06


def test_copula_noise_is_comonotone_at_eta_one_and_standard_normal():
    noise = copula_noise(1.0)(np.random.default_rng(0), (1000, 4))
    assert np.allclose(noise, noise[:, :1])
    margins = copula_noise(0.5)(np.random.default_rng(0), (50_000, 2))
    assert abs(margins.mean()) < 0.02 and abs(margins.std() - 1) < 0.02
    assert np.isfinite(margins).all()


def test_exposure_counts_follow_the_weights():
    members = exposure_members(np.random.default_rng(0), 40_000, 4, pure_fraction=0.2,
                               exposure_weights=(0.5, 0.0, 0.0, 0.5))
    counts = members.sum(axis=1)
    assert set(np.unique(counts)) == {0, 1, 4}
    assert abs((counts == 0).mean() - 0.2) < 0.01
    assert abs((counts == 1).mean() - 0.4) < 0.01
    # The single model is chosen uniformly.
    single = members[counts == 1]
    assert np.allclose(single.mean(axis=0), 0.25, atol=0.02)
    with pytest.raises(ValueError, match="exposure_weights"):
        exposure_members(np.random.default_rng(0), 10, 4, pure_fraction=0.2, exposure_weights=(1, 1))


def test_heterogeneous_exposure_default_is_uniform_over_c():
    frame = heterogeneous_exposure(np.random.default_rng(1), pool_size=20_000, n_models=4, pure_fraction=0.24)
    _, _, members, _ = _parts(frame)
    counts = members.sum(axis=1)
    assert abs((counts == 0).mean() - 0.24) < 0.015
    share = np.bincount(counts, minlength=5)[1:] / (counts > 0).sum()
    assert np.allclose(share, 0.25, atol=0.015)


def test_heterogeneous_strength_uses_one_mu_per_model():
    mus = (0.5, 1.0, 2.0, 4.0)
    frame = heterogeneous_strength(np.random.default_rng(0), pool_size=20_000, mus=mus)
    cal, test, members, _ = _parts(frame)
    assert np.allclose(cal.mean(axis=0), mus, atol=0.05)
    non_member_means = np.array([test[members[:, k] == 0, k].mean() for k in range(4)])
    assert np.allclose(non_member_means, 0.0, atol=0.05)
    with pytest.raises(ValueError, match="mu"):
        heterogeneous_strength(np.random.default_rng(0), mus=(1.0, 2.0))
