"""AppTest: the Evaluate page explains itself without labels and runs the protocol with them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dashboard import samples, state
from jecs_core import METHODS, REGISTRY, table_from_frame
from jecs_core.evaluate import evaluate

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
PAGE = "views/evaluate_page.py"


def _app() -> AppTest:
    return AppTest.from_file(APP, default_timeout=120)


def test_unlabelled_data_shows_the_explanation_instead_of_running():
    frame = pd.read_csv(ROOT / "sample_data" / "synthetic_k4.csv")
    unlabelled = table_from_frame(frame.drop(columns=[c for c in frame if c.startswith("member_")]), source="unlabelled.csv")
    at = _app()
    at.session_state[state.ACTIVE_TABLE] = unlabelled
    at.session_state[state.ACTIVE_KEY] = "test:unlabelled"
    at.session_state[state.ACTIVE_NAME] = "unlabelled.csv"
    at.session_state[state.ACTIVE_ORIGIN] = "upload"
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception
    assert any("no member labels" in i.value for i in at.info)
    assert not at.button and not at.get("plotly_chart")


def test_small_run_produces_the_table_matching_jecs_core():
    at = _app().run()
    at.switch_page(PAGE).run()
    assert not at.exception
    at.number_input(key="eval.reps").set_value(20).run()
    at.multiselect(key="eval.alphas").set_value([0.1, 0.3]).run()
    at.button(key="eval.run").click().run()
    assert not at.exception
    (table_element,) = at.dataframe  # AppTest does not index st.dataframe by key
    shown = table_element.value
    expected = evaluate(samples.get(samples.DEFAULT_SAMPLE).loader(), alphas=(0.1, 0.3), reps=20, seed=0).summary
    assert len(shown) == 2 * len(METHODS)  # every registered rule
    np.testing.assert_allclose(shown["GCP"].to_numpy(), expected["gcp"].to_numpy())
    np.testing.assert_allclose(shown["power"].to_numpy(), expected["power"].to_numpy())
    assert list(shown["rule"]) == [REGISTRY[m].label for m in expected["method"]]
    # Readable: unique headers, no raw booleans or None.
    assert shown.columns.is_unique and not any(shown[c].dtype == bool for c in shown.columns)
    assert len(at.get("plotly_chart")) == 1
    assert any("only the subsampling noise on this one fixed table" in i.value for i in at.info)
    downloads = at.get("download_button")  # the page says results do not outlive the session
    assert downloads and all("reload (F5)" in b.proto.help for b in downloads)


@pytest.mark.parametrize("kind", ["lambda", "knn"])
def test_a_sweep_runs_and_plots(kind):
    at = _app().run()
    at.switch_page(PAGE).run()
    at.number_input(key="eval.reps").set_value(10).run()
    at.button(key=f"eval.sweep.{kind}").click().run()
    assert not at.exception
    (frame,) = [d.value for d in at.dataframe if "setting" in d.value.columns]
    assert len(frame) > 0 and (frame["setting"] == "auto").any()
    assert frame.columns.is_unique and not frame.isna().any().any()
    assert sorted(frame["α"].unique()) == [0.1, 0.2, 0.3, 0.4, 0.5]  # every chosen α is in the sweep


def test_the_evaluation_csv_says_what_it_measured():
    from dashboard.evaluation_runs import download_frame

    summary = evaluate(samples.get(samples.PAPER_SAMPLE).loader(), alphas=(0.1,), reps=10, seed=7).summary
    out = download_frame(summary, data_name="=cmd()", data_key="sample:x", seed=7)
    assert list(out.columns[:3]) == ["data_set", "data_key", "seed"] and (out["seed"] == 7).all()
    assert len(out) == len(summary) and (out["gcp"] == summary["gcp"]).all()


def test_the_twin_estimate_runs_beside_the_protocol():
    from dashboard.evaluation_runs import twin_available

    if not twin_available():
        pytest.skip("jecs_core.evaluate has no twin_evaluate in this checkout")
    at = _app()
    at.query_params["sample"] = samples.PAPER_SAMPLE
    at.run()
    at.switch_page(PAGE).run()
    at.multiselect(key="eval.alphas").set_value([0.1]).run()
    at.number_input(key="eval.twin_tables").set_value(4).run()
    at.button(key="eval.twin_run").click().run()
    assert not at.exception
    (frame,) = [d.value for d in at.dataframe if "GCR" in d.value.columns]
    assert set(frame["α"]) == {0.1} and frame["rule"].isin([REGISTRY[m].label for m in METHODS]).all()
    assert frame["GCR"].between(0, 1).all()
