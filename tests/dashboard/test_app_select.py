"""The Select page: counts follow jecs_core as alpha, lambda and k_n move; flags; export."""

from __future__ import annotations

import json

from pathlib import Path

import numpy as np
import pytest
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.testing.v1 import AppTest

import jecs_core
from dashboard import samples, state
from jecs_core.simulate.synthetic import wide_table

APP = str(Path(__file__).resolve().parents[2] / "app.py")


@pytest.fixture(scope="module")
def table():
    return samples.get(samples.DEFAULT_SAMPLE).loader()


@pytest.fixture
def at() -> AppTest:
    return AppTest.from_file(APP, default_timeout=60).run()


def _counts(at) -> dict[str, int]:
    labels = {jecs_core.METHOD_LABELS[m].split(" (")[0]: m for m in jecs_core.METHODS}
    return {labels[x.label]: int(x.value.replace(",", "")) for x in at.metric}


def _expected(table, alpha, lam="auto", knn=None) -> dict[str, int]:
    summary = jecs_core.compare_methods(table, alpha=alpha, lam=lam, knn=knn).summary()
    return dict(zip(summary["method"], summary["n_selected"]))


def test_counts_follow_alpha(at, table):
    assert not at.exception
    assert _counts(at) == _expected(table, 0.10)
    seen = set()
    for alpha in (0.05, 0.20, 0.35):
        at.slider(key=state.ALPHA).set_value(alpha).run()
        assert not at.exception
        assert _counts(at) == _expected(table, alpha)
        seen.add(_counts(at)["jecs"])
    assert len(seen) == 3  # alpha really moves the JECS count


def test_manual_lambda_and_knn(at, table):
    at.radio(key=state.LAM_MODE).set_value(state.MANUAL).run()
    at.slider(key=state.LAM).set_value(0.8).run()
    assert _counts(at) == _expected(table, 0.10, lam=0.8)
    at.radio(key=state.KNN_MODE).set_value(state.MANUAL).run()
    at.number_input(key=state.KNN).set_value(5).run()
    assert not at.exception
    assert _counts(at) == _expected(table, 0.10, lam=0.8, knn=5)
    assert "k_n = 5" in " ".join(c.value for c in at.caption)


def test_auto_lambda_is_shown(at, table):
    fit = jecs_core.compare_methods(table, alpha=0.1).jecs.fit
    captions = " ".join(c.value for c in at.caption)
    assert f"Chosen: λ = {fit.lam:g}" in captions and f"k_n = {fit.k_n} of m_R" in captions


def test_invalid_baselines_are_flagged(at, table):
    comparison = jecs_core.compare_methods(table, alpha=0.1)
    text = " ".join(m.value for m in at.markdown)
    assert text.count("invalid baseline") >= 2
    assert f"GCP {comparison.metrics('union').gcp:.3f} > α" in text  # the union breaks alpha here
    assert f"GCP {comparison.metrics('jecs').gcp:.3f}" in text
    at.get("button_group")[0].set_value("union").run()
    assert any("does not control the GCR" in w.value for w in at.warning)


def test_figures_and_tables_render(at, table):
    assert len(at.get("plotly_chart")) == 5
    assert len(at.tabs) == 5
    items = at.dataframe[-1].value
    expected = jecs_core.compare_methods(table, alpha=0.1)
    assert list(items["item_id"]) == list(table.test_ids[expected.selected("jecs")])
    query = items["item_id"].iloc[0]
    at.text_input(key="jecs.table_query").set_value(query).run()
    found = at.dataframe[-1].value["item_id"]
    assert query in set(found) and found.str.contains(query).all() and len(found) < len(items)


def test_export_downloads_the_contract_files(at, table, monkeypatch):
    """Capture the deferred downloads the buttons register and compare them with jecs_core's export."""
    registered = {}
    original = MediaFileManager.add_deferred

    def spy(self, data_callable, mimetype, coordinates, file_name=None, **kwargs):
        registered[file_name] = data_callable
        return original(self, data_callable, mimetype, coordinates, file_name=file_name, **kwargs)

    monkeypatch.setattr(MediaFileManager, "add_deferred", spy)
    at.slider(key=state.ALPHA).set_value(0.2).run()
    assert {b.label for b in at.get("download_button")} == {"Selection CSV", "Sidecar JSON"}
    csv_name = next(name for name in registered if name.endswith(".csv"))
    assert csv_name.endswith("_jecs_alpha0.20.csv") and csv_name[:-4] + ".json" in registered
    expected = jecs_core.compare_methods(table, alpha=0.2)
    want = jecs_core.selection_frame(table, expected, "jecs").to_csv(index=False).encode()
    assert registered[csv_name]() == want
    meta = json.loads(registered[csv_name[:-4] + ".json"]())
    assert meta["alpha"] == 0.2 and meta["method"] == "jecs" and meta["selected_counts"] == _expected(table, 0.2)


@pytest.mark.filterwarnings("ignore::jecs_core.JECSFallbackWarning")
def test_fallback_to_jmcs_is_explained(at):
    rng = np.random.default_rng(3)
    frame = wide_table(4 + rng.standard_normal((60, 2)), -20 + rng.standard_normal((40, 2)), np.zeros((40, 2)))
    at.switch_page("views/data_page.py").run()
    at.session_state[state.UPLOAD_PAYLOAD] = ("no_tail.csv", frame.to_csv(index=False).encode())
    at.run()
    at.switch_page("views/select_page.py").run()
    assert not at.exception
    assert any("JECS fell back to JMCS" in w.value for w in at.warning)
    counts = _counts(at)
    assert counts["jecs"] == counts["jmcs"]
