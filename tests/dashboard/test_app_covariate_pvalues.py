"""Covariate-aware p-values chosen on the Data page: every page, the URL and the exports follow them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dashboard import compute, export, select_view, shift_keys, shift_view, state
from dashboard.report import ReportInputs, build_report
from dashboard.rule_controls import RuleSettings
from jecs_core import load_scores_bytes, table_pvalues
from jecs_core.shift import table_shift_pvalues

pytest.importorskip("sklearn")
APP = str(Path(__file__).resolve().parents[2] / "app.py")


def _shifted_csv(seed: int = 5) -> bytes:
    """Calibration items longer than the test items, and the scores rising with length."""
    rng = np.random.default_rng(seed)
    n_cal, n_test = 120, 240
    length = np.r_[rng.normal(1.0, 1, n_cal), rng.normal(0, 1, n_test)]
    members = np.r_[np.ones(n_cal), rng.random(n_test) < 0.3]
    frame = pd.DataFrame({"item_id": [f"i{i}" for i in range(n_cal + n_test)],
                          "split": ["calibration"] * n_cal + ["test"] * n_test,
                          "x_length": length, "x_topic": rng.normal(size=n_cal + n_test),
                          "score_a": 2 * members + length + rng.normal(size=n_cal + n_test),
                          "score_b": 2 * members + 0.5 * length + rng.normal(size=n_cal + n_test)})
    return frame.to_csv(index=False).encode()


@pytest.fixture
def at() -> AppTest:
    app = AppTest.from_file(APP, default_timeout=120).run()
    app = app.switch_page("views/data_page.py").run()
    app.session_state[state.UPLOAD_PAYLOAD] = ("shifted.csv", _shifted_csv())
    return app.run()


def test_choosing_them_makes_a_data_set_every_page_reads(at):
    plain_key = at.session_state[state.ACTIVE_KEY]
    assert at.button(key="jecs.shift_apply").label == "Use covariate-aware p-values"
    at.multiselect(key=shift_view.COVARIATES).set_value(["length"])
    at.selectbox(key=shift_view.METHOD).set_value("weighted")
    at.button(key="jecs.shift_apply").click().run()
    assert not at.exception
    key = at.session_state[state.ACTIVE_KEY]
    assert shift_keys.spec(key) == (("length",), "weighted") and shift_keys.base_key(key) == plain_key
    assert at.session_state[state.ACTIVE_NAME].endswith(shift_keys.NAME_SUFFIX)
    assert "data" in at.query_params  # held like an upload: a reload or a shared link keeps the choice
    assert any("length; method weighted" in i.value.replace("\\", "") for i in at.info)  # Markdown-escaped
    table = at.session_state[state.ACTIVE_TABLE]
    expected = table_shift_pvalues(table, covariates=["length"], method="weighted").pvalues
    np.testing.assert_array_equal(compute.pvalues(key, table), expected)
    assert not np.array_equal(expected, table_pvalues(table))
    assert compute.duplicates(key, table) is compute.duplicates(plain_key, table)  # copies do not depend on p-values

    at.switch_page("views/select_page.py").run()
    assert not at.exception
    assert any(shift_keys.NAME_SUFFIX in t.value for t in at.text)
    at.toggle(key=select_view.DIAGNOSTICS).set_value(True).run()
    assert not at.exception and at.get("text")  # the diagnostics' lines
    basis = "The diagnostics read the plain conformal p-values and scores, not the covariate-aware"
    assert any(c.value.startswith(basis) for c in at.caption)  # they model the plain scores: said beside them
    for page in ("views/leaderboard_page.py", "views/evaluate_page.py"):
        at.switch_page(page).run()
        assert not at.exception, page
    assert any("not evaluated here" in i.value for i in at.info)  # the evaluator's rules take plain p-values

    at.switch_page("views/data_page.py").run()
    at.button(key="jecs.shift_undo").click().run()
    assert not at.exception and at.session_state[state.ACTIVE_KEY] == plain_key
    assert not at.session_state[state.ACTIVE_NAME].endswith(shift_keys.NAME_SUFFIX)
    at.switch_page("views/select_page.py").run()
    at.toggle(key=select_view.DIAGNOSTICS).set_value(True).run()  # on plain p-values: nothing to say
    assert not at.exception and any("verdict:" in t.value for t in at.text)
    assert not any(c.value.startswith(basis) for c in at.caption)


def test_the_sidecar_and_the_report_record_them(at):
    at.button(key="jecs.shift_apply").click().run()  # all covariates, method auto
    key, table = at.session_state[state.ACTIVE_KEY], at.session_state[state.ACTIVE_TABLE]
    fields = shift_view.record(key, table)
    assert fields["covariates"] == "all" and fields["shift_method"] == "auto"
    assert fields["shift"]["requested"] == "auto" and fields["shift"]["method"] in ("weighted", "residual", "none")
    assert shift_view.record(shift_keys.base_key(key), table) == {}
    comparison = compute.comparison(key, 0.1, RuleSettings(), table)
    sidecar = json.loads(export.json_bytes(table, comparison, "storey-maxp", options=fields, diagnostics=True))
    assert sidecar["options"]["covariates"] == "all" and sidecar["options"]["shift"] == json.loads(json.dumps(fields["shift"]))
    recorded = sidecar["diagnostics"]  # read on the plain p-values, and the record says so where the rules' differ
    assert recorded["pvalues"] == "plain" and ("pvalues_note" in recorded) == (fields["shift"]["method"] != "none")
    report = build_report(ReportInputs(table=table, comparison=comparison, method="storey-maxp", data_name="shifted.csv",
                                       options=RuleSettings(), shift=fields))
    assert "covariate use" in report and fields["shift"]["method"] in report


def test_a_table_without_covariates_shows_no_choice():
    at = AppTest.from_file(APP, default_timeout=120).run().switch_page("views/data_page.py").run()
    assert not at.exception
    assert not [b for b in at.button if b.key == "jecs.shift_apply"]


def test_a_choice_the_table_cannot_take_is_refused_in_one_line(at, monkeypatch):
    def refuse(*args, **kwargs):
        raise ValueError("residual needs at least\n  3 calibration rows")

    monkeypatch.setattr("jecs_core.shift.table.table_shift_pvalues", refuse)
    plain_key = at.session_state[state.ACTIVE_KEY]
    at.selectbox(key=shift_view.METHOD).set_value("residual")
    at.button(key="jecs.shift_apply").click().run()
    assert not at.exception and at.session_state[state.ACTIVE_KEY] == plain_key
    assert any("could not be computed: residual needs at least 3 calibration rows" in e.value.replace("\\", "")
               for e in at.error)


def test_the_key_round_trips_odd_covariate_names():
    names = ("x_a,b", 'x_"q"', "x_|shift=", "x_ü")
    key = shift_keys.key_for("upload:abc", names, "residual")
    assert shift_keys.spec(key) == (names, "residual") and shift_keys.base_key(key) == "upload:abc"
    assert shift_keys.key_for(key, "all", "auto") == shift_keys.key_for("upload:abc", "all", "auto")


def test_the_choice_lists_the_tables_covariates(at):
    # Named as the core names them (without x_), and a value chosen on another table is dropped.
    assert at.multiselect(key=shift_view.COVARIATES).options == list(load_scores_bytes(_shifted_csv(), name="s.csv")
                                                                     .covariate_names) == ["length", "topic"]


def test_on_a_bundled_shift_sample_and_back():
    at = AppTest.from_file(APP, default_timeout=120).run().switch_page("views/data_page.py").run()
    at.selectbox(key=state.SAMPLE_CHOICE).set_value("scenario-shift-location").run()
    assert at.session_state[state.ACTIVE_KEY] == "sample:scenario-shift-location"
    at.button(key="jecs.shift_apply").click().run()
    assert not at.exception and shift_keys.spec(at.session_state[state.ACTIVE_KEY]) == ("all", "auto")
    assert "sample" not in at.query_params and "data" in at.query_params
    at.button(key="jecs.shift_undo").click().run()
    assert not at.exception and at.session_state[state.ACTIVE_KEY] == "sample:scenario-shift-location"
    assert at.query_params["sample"] == "scenario-shift-location" and "data" not in at.query_params


def test_covariate_names_are_shown_as_text():
    rng = np.random.default_rng(2)
    n = 90
    frame = pd.DataFrame({"item_id": [f"i{i}" for i in range(n)], "split": ["calibration"] * 30 + ["test"] * 60,
                          "x_**bold**": rng.normal(size=n), "x_<b>tag</b>": rng.normal(size=n),
                          "score_a": rng.normal(size=n)})
    at = AppTest.from_file(APP, default_timeout=120).run().switch_page("views/data_page.py").run()
    at.session_state[state.UPLOAD_PAYLOAD] = ("odd.csv", frame.to_csv(index=False).encode())
    at.run()
    assert at.multiselect(key=shift_view.COVARIATES).options == ["**bold**", "<b>tag</b>"]
    at.multiselect(key=shift_view.COVARIATES).set_value(["**bold**"])
    at.selectbox(key=shift_view.METHOD).set_value("residual")
    at.button(key="jecs.shift_apply").click().run()
    assert not at.exception
    line = next(i.value for i in at.info if i.value.startswith("In use"))
    assert "\\*\\*bold\\*\\*" in line  # Markdown-escaped: drawn as typed
    assert "<b>" not in shift_view.escape(shift_view.describe(("<b>tag</b>",), shift_view.compute.shift_pvalues(
        at.session_state[state.ACTIVE_KEY], at.session_state[state.ACTIVE_TABLE])))
