"""The matched twin: parameter recovery, exposure patterns, the risk check against a hand loop and in simulation."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jecs_core import METHODS, REGISTRY, conformal_pvalues, gcp, load_scores, power
from jecs_core.diagnostics import PATTERNS, TwinModel, audit_diagnostics, fit_twin, twin_evaluate

REPO_ROOT = Path(__file__).resolve().parents[3]


def _model(correlation=0.6, shift=(2.0, 2.5, 3.0, 1.5), share=0.3, m=400, n=1500) -> TwinModel:
    k = len(shift)
    corr = np.full((k, k), correlation)
    np.fill_diagonal(corr, 1.0)
    return TwinModel(tuple(f"m{i}" for i in range(k)), m, n, corr, np.array(shift), np.full(k, share / k),
                     {p: share for p in PATTERNS}, share)


@pytest.mark.parametrize("pattern", list(PATTERNS))
def test_fit_recovers_the_generator_roughly(pattern):
    truth = _model()
    fitted = fit_twin(truth.sample(np.random.default_rng(7), pattern))
    off = fitted.correlation[~np.eye(4, dtype=bool)]
    assert abs(off.mean() - 0.6) < 0.08
    np.testing.assert_allclose(fitted.shift, truth.shift, atol=0.45)
    assert abs(fitted.contaminated_share[pattern] - 0.3) < 0.06
    assert fitted.storey_share >= fitted.contaminated_share[pattern] - 0.02  # plain Storey is the conservative one
    np.testing.assert_allclose(np.linalg.eigvalsh(fitted.correlation) > 0, True)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), pattern=st.sampled_from(list(PATTERNS)), share=st.floats(0, 1),
       k=st.integers(1, 6))
def test_exposure_patterns_place_members_as_described(seed, pattern, share, k):
    model = _model(shift=(2.0,) * k, share=share, n=200)
    members = model.memberships(np.random.default_rng(seed), pattern)
    per_item = members.sum(axis=1)
    assert members.shape == (200, k) and set(np.unique(members)) <= {0, 1}
    if pattern == "one_model":
        assert per_item.max(initial=0) <= 1 and members[:, 1:].sum() == 0  # the most exposed: first on ties
    elif pattern == "spread":
        assert per_item.max(initial=0) <= 1
    if share == 1.0:
        assert (per_item >= 1).all()
    if share == 0.0:
        assert per_item.sum() == 0


def _hand_loop(model, pattern, seed, tables, alpha, method, **options):
    rule, out_gcp, out_power = REGISTRY[method], [], []
    for t in range(tables):
        twin = model.sample(np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0, t))), pattern)
        chosen = rule.prepare(conformal_pvalues(twin.test, twin.calibration), **options).select(alpha).selected
        out_gcp.append(gcp(chosen, twin.contaminated))
        out_power.append(power(chosen, twin.contaminated))
    return np.array(out_gcp), np.array(out_power)


@pytest.mark.parametrize("method", METHODS)
def test_twin_gcr_equals_a_hand_loop_for_every_rule(method):
    model = _model(m=120, n=300)
    table = model.sample(np.random.default_rng(0), "mixed")
    found = twin_evaluate(table, model=model, patterns=("spread",), alphas=(0.2,), tables=5, seed=3, methods=(method,))
    g, p = _hand_loop(model, "spread", found.seed, 5, 0.2, method)
    np.testing.assert_array_equal(found.gcp[0, 0, 0], g)
    np.testing.assert_array_equal(found.power[0, 0, 0], p)
    row = found.summary.iloc[0]
    assert row["gcr"] == pytest.approx(g.mean()) and row["gcr_se"] == pytest.approx(g.std(ddof=1) / np.sqrt(5))
    assert row["label"] == REGISTRY[method].label


def test_twin_passes_a_further_declared_option_to_its_rule():
    # storey_lam is not one of the paper JECS's named options; it must still reach the default rule.
    model = _model(m=120, n=300)
    table = model.sample(np.random.default_rng(0), "mixed")
    found = twin_evaluate(table, model=model, patterns=("spread",), alphas=(0.2,), tables=5, seed=3,
                          methods=("storey-maxp",), storey_lam=0.8)
    g, _ = _hand_loop(model, "spread", found.seed, 5, 0.2, "storey-maxp", storey_lam=0.8)
    np.testing.assert_array_equal(found.gcp[0, 0, 0], g)
    with pytest.raises(ValueError, match="storey_lam must be in the open interval"):
        twin_evaluate(table, model=model, tables=2, storey_lam=1.0)


def test_finite_sample_rules_hold_alpha_on_twins():
    # Simulation check of error control on fresh tables: a finite-sample-valid rule's
    # twin GCR stays within alpha (+ 3 SE) under every pattern, even with correlated scores.
    model = _model(correlation=0.9, m=200, n=400)
    table = model.sample(np.random.default_rng(1), "spread")
    found = twin_evaluate(table, alphas=(0.1, 0.3), tables=150, seed=0,
                          methods=[n for n, r in REGISTRY.items() if r.valid])
    rows = found.summary
    assert (rows["gcr"] <= rows["alpha"] + 3 * rows["gcr_se"]).all(), rows


def test_verdicts_on_the_shipped_audits():
    real = audit_diagnostics(load_scores(REPO_ROOT / "sample_data" / "real" / "wiki_smollm2_k8.csv"), alpha=0.1)
    paper = audit_diagnostics(load_scores(REPO_ROOT / "sample_data" / "synthetic_k4.csv"), alpha=0.1)
    assert real.jecs_safe is False and "NOT in its safe regime" in real.verdict  # protocol GCP there: 0.136
    assert paper.jecs_safe is True and "looks in its safe regime" in paper.verdict
    assert real.correlation.mean > 0.85 and any("correlate" in f for f in real.flags)
    for found in (real, paper):
        assert found.twin.seconds < 10
        text = found.summary()
        assert "verdict:" in text and "m_R" in text and "bootstrap band" in text
        json.dumps(found.to_dict(), allow_nan=False)


def test_twin_run_is_seeded():
    table = _model(m=60, n=120).sample(np.random.default_rng(2), "spread")
    a = twin_evaluate(table, alphas=(0.2,), tables=4, seed=11, workers=1)
    b = twin_evaluate(table, alphas=(0.2,), tables=4, seed=11, workers=3)
    np.testing.assert_array_equal(a.gcp, b.gcp)
    np.testing.assert_array_equal(a.power, b.power)
    assert set(a.summary["method"]) == set(METHODS) and set(a.summary["pattern"]) == set(PATTERNS)


@pytest.mark.parametrize("kwargs, name", [({"tables": 1}, "tables"), ({"patterns": ("odd",)}, "patterns"),
                                          ({"alphas": (1.5,)}, "alphas"), ({"methods": ("magic",)}, "methods"),
                                          ({"seed": -1}, "seed")])
def test_twin_arguments_are_checked_by_name(kwargs, name):
    table = _model(m=30, n=50).sample(np.random.default_rng(0), "spread")
    with pytest.raises(ValueError, match=name):
        twin_evaluate(table, **{"tables": 2, **kwargs})


def test_large_audits_are_twinned_at_a_capped_size():
    table = _model(m=900, n=2000).sample(np.random.default_rng(6), "spread")
    capped = fit_twin(table, max_test=500)
    assert (capped.n, capped.m) == (500, 225)
    full = fit_twin(table)
    assert (full.n, full.m) == (2000, 900)
    np.testing.assert_allclose(capped.shift, full.shift, atol=0.5)


def test_audit_without_twin_has_no_verdict():
    table = _model(m=80, n=150).sample(np.random.default_rng(5), "mixed")
    found = audit_diagnostics(table, twin=False, bootstrap=20)
    assert found.twin is None and found.jecs_safe is None and "not assessed" in found.verdict
    assert found.to_dict()["twin"] is None


def _true_gcr(make, method: str, alpha: float, tables: int) -> tuple[float, float]:
    from jecs_core import table_from_frame, table_pvalues

    values = []
    for s in range(tables):
        table = table_from_frame(make(np.random.default_rng(50_000 + s)))
        chosen = REGISTRY[method].prepare(table_pvalues(table)).select(alpha).selected
        values.append(gcp(chosen, table.contaminated))
    return float(np.mean(values)), float(np.std(values, ddof=1) / np.sqrt(tables))


@pytest.mark.parametrize("name", ["correlated three-block", "paper synthetic"])
def test_twin_verdict_from_one_table_agrees_with_the_generators_truth(name):
    # Simulation check against ground truth: the paper's JECS is above alpha on fresh tables of a
    # correlated three-block design (docs/VALIDITY.md) and within it on the paper's own synthetic setup;
    # the twin fitted on ONE table of each must say so.
    from jecs_core import table_from_frame
    from jecs_core.simulate.scenarios import three_block
    from jecs_core.simulate.synthetic import paper_synthetic

    make = {"correlated three-block": lambda rng: three_block(rng, pool_size=800, n_models=8, mu=4.0, correlation=0.9),
            "paper synthetic": lambda rng: paper_synthetic(rng)}[name]
    mean, se = _true_gcr(make, "jecs", 0.1, 80)
    truly_unsafe = mean > 0.1 + 2 * se
    assert truly_unsafe == (name == "correlated three-block"), (mean, se)  # the premise, measured here
    twin = twin_evaluate(table_from_frame(make(np.random.default_rng(1))), alphas=(0.1,), tables=100, seed=0,
                         methods=("jecs",))
    assert twin.safe("jecs") is (not truly_unsafe)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 4), m=st.integers(2, 30), n=st.integers(2, 40),
       levels=st.integers(2, 6), far_below=st.booleans())
def test_audit_diagnostics_survive_small_tied_and_degenerate_tables(seed, k, m, n, levels, far_below):
    # Tiny calibration sets, heavy ties, one model, or every test item below all calibration
    # scores (JECS falls back to JMCS): the bundle still returns strict JSON and a verdict.
    from jecs_core import table_from_frame
    from jecs_core.simulate.synthetic import wide_table

    rng = np.random.default_rng(seed)
    cal = rng.integers(0, levels, (m, k)).astype(float) + (100.0 if far_below else 0.0)
    test = rng.integers(0, levels, (n, k)).astype(float)
    table = table_from_frame(wide_table(cal, test, np.zeros((n, k), dtype=np.int8)))
    found = audit_diagnostics(table, bootstrap=5, twin_tables=2, seed=seed % 1000, workers=1)
    json.dumps(found.to_dict(), allow_nan=False)
    assert found.summary().splitlines()[-1].startswith("verdict:")
    assert 0 <= found.pi0_band.low <= found.pi0_band.high <= 1
    if far_below:
        assert found.tail.lam is None and found.pi0_band.fallback_rate == 1.0


def test_audit_diagnostics_reuse_given_pvalues_and_direction_and_refuse_wrong_ones():
    from jecs_core import table_pvalues
    from jecs_core.checks import score_direction

    table = load_scores(REPO_ROOT / "sample_data" / "synthetic_k4.csv")
    pvalues, direction = table_pvalues(table), score_direction(table)
    own = audit_diagnostics(table, twin=False, bootstrap=20)
    given = audit_diagnostics(table, twin=False, bootstrap=20, pvalues=pvalues, direction=direction)
    assert json.dumps(given.to_dict(), sort_keys=True) == json.dumps(own.to_dict(), sort_keys=True)
    with pytest.raises(ValueError, match=r"pvalues must have the table's shape"):
        audit_diagnostics(table, twin=False, bootstrap=20, pvalues=pvalues[:, :2])
    with pytest.raises(ValueError, match=r"pvalues must hold finite values in \[0, 1\]"):
        audit_diagnostics(table, twin=False, bootstrap=20, pvalues=pvalues * 2)
    with pytest.raises(ValueError, match="direction must be a DirectionCheck"):
        audit_diagnostics(table, twin=False, bootstrap=20, direction="reversed")
