"""The frame (app.py): loads on every bundled sample, shows it in the sidebar, routes to every page."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard import samples, state

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGES = ["views/data_page.py", "views/score_page.py", "views/select_page.py", "views/leaderboard_page.py",
         "views/evaluate_page.py", "views/learn_page.py"]


def _app(sample: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    if sample:
        at.query_params["sample"] = sample
    return at.run()


@pytest.mark.parametrize("sample", list(samples.SAMPLES))
def test_every_page_loads_on_every_sample(sample):
    at = _app(sample)
    assert not at.exception, at.exception
    assert at.session_state[state.ACTIVE_KEY] == f"sample:{sample}"
    assert [t.value for t in at.sidebar.text] == [samples.get(sample).name]
    assert at.query_params["sample"] == sample
    for page in PAGES:
        at.switch_page(page).run()
        assert not at.exception, (page, at.exception)
        assert not at.error, (page, [e.value for e in at.error])
        assert at.session_state[state.ACTIVE_KEY] == f"sample:{sample}"


def test_default_page_is_select_on_the_default_sample():
    at = _app()
    assert at.title[0].value == "Select a shared clean subset"
    assert at.session_state[state.ACTIVE_KEY] == f"sample:{samples.DEFAULT_SAMPLE}"


def test_unknown_sample_parameter_falls_back_to_default():
    at = _app("no-such-sample")
    assert not at.exception
    assert at.session_state[state.ACTIVE_KEY] == f"sample:{samples.DEFAULT_SAMPLE}"


def test_settings_survive_a_page_switch():
    at = _app()
    at.slider(key=state.ALPHA).set_value(0.25).run()
    at.switch_page("views/data_page.py").run()
    at.switch_page("views/select_page.py").run()
    assert at.slider(key=state.ALPHA).value == pytest.approx(0.25)


def test_the_url_reopens_the_data_set_after_f5():
    """A fresh session (F5) with the URL of the last one shows the same data: sample + score, or an upload."""
    at = _app()
    at.switch_page("views/data_page.py").run()
    at.selectbox(key=state.SAMPLE_CHOICE).set_value(samples.PAPER_SAMPLE).run()
    fresh = AppTest.from_file(APP, default_timeout=60)
    for key, value in at.query_params.items():
        fresh.query_params[key] = value
    fresh.run()
    assert fresh.session_state[state.ACTIVE_KEY] == f"sample:{samples.PAPER_SAMPLE}"

    data = (samples.SAMPLE_DIR / "synthetic_k4.csv").read_bytes()
    at.session_state[state.UPLOAD_PAYLOAD] = ("mine.csv", data)
    at.run()
    token = at.query_params["data"]
    reopened = AppTest.from_file(APP, default_timeout=60)
    reopened.query_params["data"] = token
    reopened.run()
    assert reopened.session_state[state.ACTIVE_NAME] == "mine.csv"
    assert reopened.session_state[state.ACTIVE_KEY] == at.session_state[state.ACTIVE_KEY]


def test_an_unknown_data_token_falls_back_with_a_notice():
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["data"] = "not-a-token"
    at.run()
    assert at.session_state[state.ACTIVE_KEY] == f"sample:{samples.DEFAULT_SAMPLE}"
    at.switch_page("views/data_page.py").run()
    assert any("no longer held" in i.value for i in at.info)


def test_the_favicon_is_a_local_file():
    """A Material icon as page icon makes the browser fetch it from a font host (fails offline)."""
    source = Path(APP).read_text()
    assert 'page_icon=str(HERE / "dashboard" / "assets" / "favicon.png")' in source
    assert (Path(APP).parent / "dashboard" / "assets" / "favicon.png").read_bytes().startswith(b"\x89PNG")


@pytest.mark.skipif(samples.REAL_SAMPLE not in samples.SAMPLES, reason="the real audit files are not in this checkout")
def test_a_link_names_the_sample_and_its_detection_score():
    at = _app(samples.REAL_SAMPLE)
    assert "score" not in at.query_params  # the default score is implied
    linked = AppTest.from_file(APP, default_timeout=60)
    linked.query_params["sample"], linked.query_params["score"] = samples.REAL_SAMPLE, "ppl"
    linked.run()
    assert linked.session_state[state.ACTIVE_KEY] == f"sample:{samples.REAL_SAMPLE}:ppl"
    assert linked.session_state[state.SAMPLE_SCORE] == "ppl" and linked.query_params["score"] == "ppl"
