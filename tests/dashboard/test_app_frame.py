"""The frame (app.py): loads on every bundled sample, shows it in the sidebar, routes to every page."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard import samples, state

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGES = ["views/data_page.py", "views/score_page.py", "views/select_page.py", "views/evaluate_page.py", "views/learn_page.py"]


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
    sidebar = " ".join(m.value for m in at.sidebar.markdown)
    assert samples.get(sample).name in sidebar
    for page in PAGES:
        at.switch_page(page).run()
        assert not at.exception, (page, at.exception)
        assert not at.error, (page, [e.value for e in at.error])
        assert at.session_state[state.ACTIVE_KEY] == f"sample:{sample}"


def test_default_page_is_select_on_the_paper_sample():
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
