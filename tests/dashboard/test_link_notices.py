"""A link whose values the page cannot use says so once, by name, instead of silently showing the defaults."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard import samples, select_view, state

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def _open(query: dict) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update(query)
    at.run()
    assert not at.exception
    return at


@pytest.mark.parametrize(("query", "named"), [
    ({"alpha": "2"}, "alpha is not a value"),
    ({"alpha": "abc", "method": "evil"}, "alpha, method are not values"),
    ({"view": "<b>x</b>", "fig": "nope", "alpha2": "0.9"}, "alpha2, fig, view are not values"),
    ({"lam": "abc", "knn": "1e9"}, "lam, knn are not values"),
])
def test_values_the_select_page_cannot_take_are_named_once(query, named):
    at = _open(query)
    notices = [i.value for i in at.info]
    assert any(f"The link's {named} this page takes" in n and "the defaults are shown instead" in n for n in notices)
    assert not any("<b>" in n or "evil" in n for n in notices)  # the link's own text is never echoed
    assert any("(α from 0.01 to 0.5)" in n for n in notices) == ("alpha" in named)  # the range where it helps
    assert at.session_state[state.ALPHA] == state.PERSISTENT_DEFAULTS[state.ALPHA]
    at.run()
    assert not any("this page takes" in i.value for i in at.info)  # once


def test_a_good_link_gets_no_notice():
    at = _open({"alpha": "0.2", "method": "jmcs", "view": "items"})
    assert not any("this page takes" in i.value for i in at.info)
    assert at.session_state[state.ALPHA] == 0.2


@pytest.mark.parametrize(("query", "named"), [({"sample": "bogus"}, "sample is"),
                                              ({"sample": samples.PAPER_SAMPLE, "score": "x"}, "score is")])
def test_a_sample_or_score_the_server_lacks_is_named(query, named):
    at = _open(query)
    assert any(f"The link's {named} not one this server offers; the default is shown instead." in i.value
               for i in at.info)



def test_the_leaderboard_names_the_values_it_cannot_use_too():
    # AppTest starts on Select: let it run, then open the Leaderboard as if the link had led there first.
    at = AppTest.from_file(APP, default_timeout=60).run()
    del at.session_state[select_view.URL_LOADED]
    at.query_params.update({"alpha": "2", "method": "evil"})
    at.switch_page("views/leaderboard_page.py").run()
    assert not at.exception and at.title[0].value != "Select a shared clean subset"
    assert any("The link's alpha, method are not values this page takes (α from 0.01 to 0.5)" in i.value
               for i in at.info)
