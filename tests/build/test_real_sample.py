"""The committed real sample (sample_data/real/) loads, validates and matches its provenance."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from jecs_core import METHODS, compare_methods, load_scores
from sample_data import SAMPLE_DIR

NAME = "wiki_smollm2_k8"
REAL = SAMPLE_DIR / "real"
WIDE, LONG, PROVENANCE = REAL / f"{NAME}.csv", REAL / f"{NAME}_all_scores.parquet", REAL / f"{NAME}.provenance.json"

pytestmark = pytest.mark.skipif(
    not (WIDE.is_file() and PROVENANCE.is_file()),
    reason=f"the real sample is not built yet ({WIDE.name} / {PROVENANCE.name} missing in {REAL}); "
    "build it with `jecs build-sample`",
)


@pytest.fixture(scope="module")
def provenance():
    return json.loads(PROVENANCE.read_text())


@pytest.fixture(scope="module")
def table():
    return load_scores(WIDE)


def test_sample_validates_and_matches_the_recorded_split(table, provenance):
    counts = provenance["split_counts"]
    assert table.m == counts["calibration"] and table.n == counts["test"]
    assert len(table.models) == provenance["parameters"]["n_models"]
    assert table.test_members is not None
    per_model = dict(zip(table.models, table.test_members.sum(axis=0).tolist()))
    assert per_model == counts["test_members_per_model"]
    assert int(table.test_members.any(axis=1).sum()) == counts["test_contaminated"]


def test_sample_reproduces_the_recorded_selection_counts(table, provenance):
    recorded = provenance["selection_counts"]
    comparison = compare_methods(table, alpha=recorded["alpha"])
    # The sample records the methods registered when it was built; each must still give its count.
    assert set(recorded["counts"]) <= set(METHODS)
    found = {method: int(comparison.selected(method).sum()) for method in recorded["counts"]}
    assert found == recorded["counts"]


def test_long_table_holds_all_four_scores_and_the_wide_one_is_minkpp(table, provenance):
    long = pd.read_parquet(LONG)
    assert list(long.columns) == ["item_id", "model", "score_name", "value"]
    assert set(long["score_name"]) == {"ppl", "mink", "minkpp", "mentr"}
    assert set(long["model"]) == set(table.models)
    n_items = table.n + table.m
    assert len(long) == n_items * 4 * len(table.models)
    wide = pd.read_csv(WIDE).set_index("item_id")
    model = table.models[0]
    minkpp = long[(long["model"] == model) & (long["score_name"] == "minkpp")].set_index("item_id")["value"]
    np.testing.assert_allclose(wide[f"score_{model}"], minkpp.reindex(wide.index).to_numpy())


def test_provenance_records_the_monte_carlo_table_and_aucs(provenance):
    rows = provenance["monte_carlo"]["rows"]
    assert {"jecs", "jmcs", "union", "intersection"} <= {r["method"] for r in rows} <= set(METHODS)
    assert len(provenance["auc_test"]["per_model"]) == provenance["parameters"]["n_models"]
    assert (REAL / "LICENSE-DATA.md").is_file()
