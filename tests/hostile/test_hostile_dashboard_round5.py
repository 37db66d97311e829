"""Dashboard state an auditor's walk between pages must not lose: a k_n one table cannot take, kept for the next."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from dashboard import state

APP = str(Path(__file__).resolve().parents[2] / "app.py")
LEADERBOARD, SELECT, DATA = "views/leaderboard_page.py", "views/select_page.py", "views/data_page.py"
EXPOSURE = "wiki-smollm2-exposure-k4"  # n = 320 test items; the landing sample has 560


def _messages(at) -> list[str]:
    return [e.value.replace("\\", "") for e in [*at.warning, *at.error, *at.info]]


def test_a_manual_k_n_survives_a_leaderboard_visit_on_a_table_that_cannot_take_it():
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params["method"], at.query_params["knn"] = "jecs", "400"
    at.run()
    assert at.session_state["jecs.knn"] == 400 and not any("knn" in m for m in _messages(at))
    at.switch_page(DATA).run()
    at.selectbox(key=state.SAMPLE_CHOICE).set_value(EXPOSURE).run()
    at.switch_page(SELECT).run()
    assert any("knn: 400 is more than the n = 320 test items" in m for m in _messages(at))  # falls back here, and says so
    at.switch_page(LEADERBOARD).run()  # its first visit in the session
    assert not at.exception
    assert any("knn: 400 is more than the n = 320 test items" in m for m in _messages(at))  # the same fallback, said on this page too
    assert at.session_state["jecs.knn"] == 400
    at.switch_page(DATA).run()
    at.selectbox(key=state.SAMPLE_CHOICE).set_value(at.selectbox(key=state.SAMPLE_CHOICE).options[0]).run()
    at.switch_page(SELECT).run()
    assert not any("knn" in m for m in _messages(at))  # back on a table that takes it: 400 again, no fallback
    assert at.session_state["jecs.knn"] == 400 and at.query_params["knn"] == "400"
