"""The Select page's near-duplicate pass above its own limit: skipped with a note, run on request."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dashboard import compute, explain, state
from dashboard.rule_controls import RuleSettings
from jecs_core.checks import find_duplicates

pytest.importorskip("datasketch")
APP = str(Path(__file__).resolve().parents[2] / "app.py")
PASSAGE = ("The river rises in the northern hills and flows south through farmland, past three market towns and a "
           "long chain of reservoirs built in the last century to supply the growing city on the coast.")


def _table_csv() -> bytes:
    rng = np.random.default_rng(11)
    texts = [PASSAGE, PASSAGE.replace("three", "four"),  # near-duplicates
             "A short note on bridges.", "A short note on bridges.",  # exact copies
             "Glaciers carve valleys slowly.", "Volcanic islands form over hot spots."]
    n_cal = 30
    frame = pd.DataFrame({"item_id": [f"c{i}" for i in range(n_cal)] + [f"t{i}" for i in range(len(texts))],
                          "split": ["calibration"] * n_cal + ["test"] * len(texts),
                          "score_a": np.r_[rng.normal(2, 1, n_cal), [-2.0, -1.9, -2.5, -2.5, -1.0, -3.0]],
                          "score_b": np.r_[rng.normal(2, 1, n_cal), [-2.2, -2.1, -2.4, -2.4, -1.5, -2.8]],
                          "text": ["calibration passage"] * n_cal + texts})
    return frame.to_csv(index=False).encode()


@pytest.fixture
def at(monkeypatch) -> AppTest:
    monkeypatch.setattr(explain, "NEAR_MAX_TEXTS_PAGE", 2)
    monkeypatch.setattr(compute, "_NEAR_IN_FULL", set())
    app = AppTest.from_file(APP, default_timeout=120).run().switch_page("views/data_page.py").run()
    app.session_state[state.UPLOAD_PAYLOAD] = ("texts.csv", _table_csv())
    return app.run().switch_page("views/select_page.py").run()


def _clusters_of(comparison) -> int:
    return len(set(next(iter(comparison.results.values())).clusters.tolist()))


def _warnings(at) -> str:
    return " ".join(w.value for w in at.warning)


def test_the_pass_skipped_above_the_limit_runs_on_request(at):
    assert not at.exception
    assert "Near-duplicate texts not checked above 2 test items (n = 6)" in _warnings(at)
    at.toggle(key="select.cluster").set_value(True).run()  # the exact copies make clusters already
    key, table = at.session_state[state.ACTIVE_KEY], at.session_state[state.ACTIVE_TABLE]
    assert compute.duplicates(key, table).n_clusters == 5  # the copies joined, the near pair not
    per_cluster = compute.cluster_comparison(key, 0.1, RuleSettings(), table)
    assert _clusters_of(per_cluster) == 5

    at.button(key="select.near_all").click().run()
    assert not at.exception
    assert "not checked above" not in _warnings(at) and "near-duplicate" in _warnings(at).lower()
    assert not [b for b in at.button if b.key == "select.near_all"]  # done once per data set
    full = find_duplicates(table)
    np.testing.assert_array_equal(compute.duplicates(key, table).clusters, full.clusters)
    assert compute.duplicates(key, table).n_clusters == 4
    assert _clusters_of(compute.cluster_comparison(key, 0.1, RuleSettings(), table)) == 4  # not the cached 5
    assert compute.cluster_key(key) != f"{key}:cluster:2"  # the per-cluster results are keyed on the wider pass


def test_no_button_where_the_command_line_would_skip_too_or_nothing_was_skipped(at, monkeypatch):
    key, table = at.session_state[state.ACTIVE_KEY], at.session_state[state.ACTIVE_TABLE]
    assert compute.near_pass_skipped(key, table)
    monkeypatch.setattr("jecs_core.checks.duplicates.NEAR_MAX_TEXTS", 5)
    assert not compute.near_pass_skipped(key, table)
    monkeypatch.setattr(explain, "NEAR_MAX_TEXTS_PAGE", 6)
    assert not compute.near_pass_skipped(key, table)
