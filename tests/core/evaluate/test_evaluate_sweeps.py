"""Sensitivity sweeps: lambda, kNN size, number of models K, training fraction rho."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from jecs_core import METHODS, load_scores, sweep_k, sweep_knn, sweep_lambda, sweep_rho
from jecs_core.evaluate import SUMMARY_COLUMNS, default_ks, evaluate, format_sweep
from jecs_core.simulate.scenarios import three_block

REPO_ROOT = Path(__file__).resolve().parents[3]
LEADING = ["parameter", "setting", "value"]


@pytest.fixture(scope="module")
def table():
    return load_scores(REPO_ROOT / "sample_data" / "synthetic_k4.csv")


def _pick(frame, setting, method, alpha):
    rows = frame[(frame["setting"] == setting) & (frame["method"] == method) & (frame["alpha"] == alpha)]
    assert len(rows) == 1
    return rows.iloc[0]


def test_lambda_sweep_rows_and_reference_line(table):
    frame = sweep_lambda(table, lambdas=(0.3, 0.6, 0.9), alphas=(0.1, 0.2), reps=20, seed=1, methods=("jecs", "jmcs"))
    assert list(frame.columns) == LEADING + list(SUMMARY_COLUMNS)
    assert len(frame) == 4 * 2 * 2  # (3 fixed + auto) x {jecs, jmcs} x 2 alphas
    assert list(dict.fromkeys(frame["setting"])) == ["0.3", "0.6", "0.9", "auto"]
    assert (frame["parameter"] == "lambda").all()
    assert np.isnan(frame.loc[frame["setting"] == "auto", "value"]).all()
    # JMCS does not depend on lambda: the same numbers on every setting.
    jmcs = frame[(frame["method"] == "jmcs") & (frame["alpha"] == 0.1)]
    assert jmcs["gcp"].nunique() == 1 and jmcs["power"].nunique() == 1
    fixed = frame[(frame["method"] == "jecs") & (frame["setting"] == "0.6")]
    assert np.allclose(fixed["lambda_mean"], 0.6)


def test_lambda_sweep_auto_and_fixed_match_evaluate(table):
    frame = sweep_lambda(table, lambdas=(0.7,), alphas=(0.1,), reps=15, seed=4)
    for setting, lam in (("auto", "auto"), ("0.7", 0.7)):
        direct = evaluate(table, alphas=(0.1,), reps=15, seed=4, lam=lam, methods=("jecs",)).summary.iloc[0]
        row = _pick(frame, setting, "jecs", 0.1)
        assert (row["gcp"], row["gcp_se"], row["power"]) == (direct["gcp"], direct["gcp_se"], direct["power"])


def test_knn_sweep_labels_and_auto_matches_default(table):
    frame = sweep_knn(table, knns=(1, 4, None), alphas=(0.1,), reps=15, seed=2)
    assert list(dict.fromkeys(frame["setting"])) == ["1", "4", "auto"]
    assert frame.loc[frame["setting"] == "4", "value"].eq(4.0).all()
    direct = evaluate(table, alphas=(0.1,), reps=15, seed=2, methods=("jecs",)).summary.iloc[0]
    assert _pick(frame, "auto", "jecs", 0.1)["gcp"] == direct["gcp"]


def test_k_sweep_takes_the_first_models(table):
    frame = sweep_k(table, ks=(1, 2, 4), alphas=(0.1, 0.3), reps=10, seed=3)
    assert list(dict.fromkeys(frame["setting"])) == ["K=1", "K=2", "K=4"]
    assert len(frame) == 3 * len(METHODS) * 2
    full = evaluate(table, alphas=(0.1, 0.3), reps=10, seed=3).summary
    row = _pick(frame, "K=4", "union", 0.3)
    direct = full[(full["method"] == "union") & (full["alpha"] == 0.3)].iloc[0]
    assert row["gcp"] == direct["gcp"] and row["power"] == direct["power"]
    first_two = evaluate(table.subset_models(table.models[:2]), alphas=(0.1,), reps=10, seed=3, methods=("jecs",))
    assert _pick(frame, "K=2", "jecs", 0.1)["gcp"] == first_two.summary.iloc[0]["gcp"]
    # More models, more contaminated items: the union's GCP grows with K.
    union = [_pick(frame, f"K={k}", "union", 0.1)["gcp"] for k in (1, 2, 4)]
    assert union == sorted(union)


def test_default_ks():
    assert default_ks(16) == (2, 4, 8, 16)
    assert default_ks(6) == (2, 4, 6)
    assert default_ks(1) == (1,)


def test_rho_sweep_builds_a_table_per_rho_and_reports_progress():
    seen, calls = [], []

    def make(rho):
        seen.append(rho)
        return three_block(np.random.default_rng(0), pool_size=300, n_models=4, rho=rho)

    frame = sweep_rho(make, rhos=(0.0, 0.5), alphas=(0.2,), reps=8, seed=0, methods=("jecs", "union"),
                      progress=lambda done, total: calls.append((done, total)))
    assert seen == [0.0, 0.5]
    assert list(frame["value"].unique()) == [0.0, 0.5] and (frame["parameter"] == "rho").all()
    # rho = 0: nobody trained on the remainder, every test item is pure.
    assert _pick(frame, "0", "union", 0.2)["gcp"] == 0.0
    assert _pick(frame, "0.5", "union", 0.2)["gcp"] > 0.3
    assert calls[-1] == (16, 16)


def test_format_sweep_one_block_per_alpha(table):
    frame = sweep_lambda(table, lambdas=(0.5,), alphas=(0.1, 0.2), reps=5)
    text = format_sweep(frame)
    assert text.count("lambda sweep, alpha =") == 2
    assert "auto" in text and "JMCS" in text


def test_sweep_frames_can_be_stacked(table):
    # Same columns everywhere, so a dashboard can concatenate sweeps of different kinds.
    frames = [sweep_lambda(table, lambdas=(0.5,), reps=3), sweep_knn(table, knns=(2,), reps=3),
              sweep_k(table, ks=(2,), reps=3)]
    stacked = pd.concat(frames, ignore_index=True)
    assert set(stacked["parameter"]) == {"lambda", "knn", "K"}


def _storey(frame, setting):
    return _pick(frame, setting, "storey-maxp", 0.1)


@pytest.mark.parametrize("storey_lam", [0.3, 0.8])
def test_every_sweep_passes_a_further_rule_option_to_the_rule_that_declares_it(table, storey_lam):
    # The default rule's lambda is not swept by any sweep, yet each must honour it as evaluate does.
    direct = evaluate(table, alphas=(0.1,), reps=12, seed=3, storey_lam=storey_lam,
                      methods=("storey-maxp",)).summary.iloc[0]
    default = evaluate(table, alphas=(0.1,), reps=12, seed=3, methods=("storey-maxp",)).summary.iloc[0]
    assert (direct["gcp"], direct["power"]) != (default["gcp"], default["power"])  # the option matters here
    common = dict(alphas=(0.1,), reps=12, seed=3, methods=("storey-maxp",), storey_lam=storey_lam)
    frames = {"lambda": sweep_lambda(table, lambdas=(0.5,), **common), "knn": sweep_knn(table, knns=(3,), **common),
              "k": sweep_k(table, ks=(4,), **common)}
    for parameter, setting in (("lambda", "0.5"), ("knn", "3"), ("k", "K=4")):
        row = _storey(frames[parameter], setting)
        assert (row["gcp"], row["power"]) == (direct["gcp"], direct["power"]), parameter


@pytest.mark.parametrize("sweep, kwargs, needle", [
    (sweep_lambda, {"lam": 0.5}, "lam: this sweep varies it; give its values as lambdas"),
    (sweep_knn, {"knn": 3}, "knn: this sweep varies it; give its values as knns"),
    (sweep_knn, {"storey_lam": 1.5}, "storey_lam must be in the open interval (0, 1)"),
    (sweep_k, {"storey_lam": 0.0}, "storey_lam must be in the open interval (0, 1)"),
    (sweep_k, {"no_such_option": 1}, "unknown option(s) ['no_such_option']"),
])
def test_sweep_rule_options_are_checked_by_name(table, sweep, kwargs, needle):
    with pytest.raises(ValueError) as caught:
        sweep(table, reps=2, **kwargs)
    assert needle in str(caught.value)


def test_knns_above_the_items_drawn_per_repetition_are_named():
    from pathlib import Path

    from jecs_core import load_scores
    from jecs_core.evaluate import sweep_knn

    table = load_scores(Path(__file__).resolve().parents[3] / "sample_data" / "synthetic_k4.csv")
    with pytest.warns(UserWarning, match=r"^knns: 700, 800 above the 672 test items drawn per repetition"):
        frame = sweep_knn(table, knns=(5, 700, 800), reps=2, alphas=(0.1,), methods=("jecs",))
    high = frame[frame["setting"].isin(["700", "800"])]
    assert high["gcp"].nunique() == 1 and high["power"].nunique() == 1  # the rows the warning says agree
