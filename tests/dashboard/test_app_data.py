"""The Data page: sample choice, upload (widget and hook), readable errors, summary."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dashboard import samples, state
from sample_data import SAMPLE_DIR

APP = str(Path(__file__).resolve().parents[2] / "app.py")
SAMPLE = SAMPLE_DIR / "synthetic_k4.csv"


@pytest.fixture
def at() -> AppTest:
    app = AppTest.from_file(APP, default_timeout=60).run()
    return app.switch_page("views/data_page.py").run()


def _metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def _bad_csv() -> bytes:
    frame = pd.read_csv(SAMPLE, dtype={"item_id": str})
    frame["score_m2"] = frame["score_m2"].astype(object)
    frame.loc[[6, 41], "score_m2"] = "high"
    return frame.to_csv(index=False).encode()


def test_summary_of_the_default_sample(at):
    assert not at.exception
    default = samples.get(samples.DEFAULT_SAMPLE)
    table = default.loader()
    assert _metrics(at) == {
        "Test items (n)": f"{table.n:,}", "Calibration items (m)": f"{table.m:,}", "Models (K)": str(table.K),
        "Member labels": "present",
    }
    assert at.header[0].value.startswith(f"Active: {default.name}")
    assert len(at.get("plotly_chart")) == 1


def test_choosing_a_sample_makes_it_active(at):
    at.selectbox(key=state.SAMPLE_CHOICE).set_value("synthetic-k16-10k").run()
    assert not at.exception
    assert at.session_state[state.ACTIVE_KEY] == "sample:synthetic-k16-10k"
    assert _metrics(at)["Models (K)"] == "16"
    assert len(at.multiselect) == 1  # K > 8: the user picks which models to draw


def test_bad_upload_shows_a_readable_error_and_keeps_the_data(at):
    at.session_state[state.UPLOAD_PAYLOAD] = ("scores.csv", _bad_csv())
    at.run()
    assert not at.exception
    assert len(at.error) == 1
    message = at.error[0].value
    assert "scores.csv: column 'score_m2': non-numeric value 'high' at rows 7, 42" in message
    assert "Traceback" not in message
    assert at.session_state[state.ACTIVE_KEY] == f"sample:{samples.DEFAULT_SAMPLE}"


def test_good_upload_becomes_active_with_its_options(at):
    frame = pd.read_csv(SAMPLE, dtype={"item_id": str}).drop(columns=[f"member_m{k}" for k in range(4)])
    at.checkbox(key=state.UPLOAD_LOWER).check().run()
    at.session_state[state.UPLOAD_PAYLOAD] = ("mine.csv", frame.to_csv(index=False).encode())
    at.run()
    assert not at.exception and not at.error
    assert at.success[0].value.startswith("Loaded mine.csv: 840 test items")
    assert at.session_state[state.ACTIVE_NAME] == "mine.csv"
    assert at.session_state[state.ACTIVE_TABLE].flipped
    assert _metrics(at)["Member labels"] == "absent"
    at.switch_page("views/select_page.py").run()  # the Select page works without labels
    assert not at.exception and "GCP" not in " ".join(m.value for m in at.markdown)


def test_upload_through_the_file_uploader_widget(at):
    uploader = at.file_uploader(key="jecs.uploader")
    if not hasattr(uploader, "set_value"):  # older Streamlit: the hook test above covers the path
        pytest.skip("this Streamlit's AppTest cannot drive st.file_uploader")
    uploader.set_value(("bad.csv", _bad_csv(), "text/csv")).run()
    assert not at.exception
    assert "bad.csv: column 'score_m2'" in at.error[0].value
    at.file_uploader(key="jecs.uploader").set_value(("good.csv", SAMPLE.read_bytes(), "text/csv")).run()
    assert not at.exception and not at.error
    assert at.session_state[state.ACTIVE_NAME] == "good.csv"


def test_oversized_upload_is_refused_with_the_limit(at, monkeypatch):
    monkeypatch.setattr(state, "upload_limit_mb", lambda: 0.01)
    at.session_state[state.UPLOAD_PAYLOAD] = ("huge.csv", SAMPLE.read_bytes())
    at.run()
    assert not at.exception
    assert "above the dashboard's limit of 0.01 MB" in at.error[0].value


@pytest.mark.skipif(samples.REAL_SAMPLE not in samples.SAMPLES, reason="the real audit files are not in this checkout")
def test_switching_the_detection_score_of_the_real_sample(at):
    at.selectbox(key=state.SAMPLE_CHOICE).set_value(samples.REAL_SAMPLE).run()
    at.selectbox(key=state.SAMPLE_SCORE).set_value("ppl").run()
    assert not at.exception
    assert at.session_state[state.ACTIVE_KEY] == f"sample:{samples.REAL_SAMPLE}:ppl"
    table = at.session_state[state.ACTIVE_TABLE]
    long = pd.read_parquet(samples.REAL_DIR / f"{samples.REAL_STEM}_all_scores.parquet")
    ppl = long[(long.score_name == "ppl") & (long.model == table.models[0])].set_index("item_id")["value"]
    np.testing.assert_allclose(table.test[:, 0], ppl.loc[list(table.test_ids)].to_numpy())
    at.selectbox(key=state.SAMPLE_SCORE).set_value("minkpp").run()
    assert at.session_state[state.ACTIVE_KEY] == f"sample:{samples.REAL_SAMPLE}"
