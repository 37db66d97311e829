"""The Select page's rule controls come from the declared options: a rule registered in a test gets its
widget and URL key with no other change, and the paper's JECS keeps its ``lam`` / ``knn`` URL keys."""

from __future__ import annotations

from types import MappingProxyType

import pytest

pytest.importorskip("streamlit", reason="the dashboard needs the app extra")

from streamlit.testing.v1 import AppTest  # noqa: E402

import jecs_core as jc  # noqa: E402
import jecs_core.rules as rules_pkg  # noqa: E402
from dashboard import rule_controls  # noqa: E402
from jecs_core.rules import REGISTRY, Guarantee, Option, Rule  # noqa: E402
from jecs_core.rules import registry as registry_module  # noqa: E402
from jecs_core.validation import check_fraction  # noqa: E402

SHRINK = Option(name="shrink", default=0.5, check=lambda v, name: check_fraction(v, name, include_zero=False),
                label="share of α", help="toy rule only: the share of alpha it spends")
TOY = Rule(name="toy", label="Toy rule", guarantee=Guarantee.INVALID, summary="A test-only rule.",
           run=lambda pvalues, *, alpha, shrink=0.5: jc.select(pvalues, alpha=alpha * shrink, method="jmcs"),
           options=(SHRINK,))


def _page():
    """The controls as the Select page draws them: URL once, one control per option, URL written back."""
    import streamlit as st

    from dashboard import rule_controls

    if not st.session_state.get("url_read"):
        st.session_state["url_read"] = True
        rule_controls.restore_from_url(st.query_params)
    settings = rule_controls.render(list(st.columns(2)))
    st.query_params.update(rule_controls.url_values(settings))
    st.session_state["settings"] = settings


@pytest.fixture
def toy_registered(monkeypatch):
    patched = MappingProxyType({**REGISTRY, "toy": TOY})
    for module in (registry_module, rules_pkg, rule_controls):
        monkeypatch.setattr(module, "REGISTRY", patched)
    return patched


def test_a_registered_rule_gets_its_widget_and_url_key_by_itself(toy_registered):
    at = AppTest.from_function(_page, default_timeout=30).run()
    assert not at.exception
    slider = at.slider(key="jecs.shrink")
    assert slider.label == "share of α" and slider.value == 0.5
    slider.set_value(0.3).run()
    settings = at.session_state["settings"]
    assert settings["shrink"] == 0.3 and settings.for_rule("toy") == {"shrink": 0.3}
    assert "shrink" not in settings.for_rule("jecs")
    assert at.query_params["shrink"] == "0.3"


def test_a_link_sets_the_toy_control(toy_registered):
    at = AppTest.from_function(_page, default_timeout=30)
    at.query_params["shrink"] = "0.25"
    at.run()
    assert not at.exception and at.slider(key="jecs.shrink").value == 0.25
    assert at.session_state["settings"]["shrink"] == 0.25


def test_lam_and_knn_keep_their_url_keys_and_auto_switches():
    at = AppTest.from_function(_page, default_timeout=30)
    at.query_params["lam"], at.query_params["knn"] = "0.65", "7"
    at.run()
    assert not at.exception
    assert at.radio(key="jecs.lam_mode").value == rule_controls.MANUAL and at.slider(key="jecs.lam").value == 0.65
    assert at.number_input(key="jecs.knn").value == 7
    settings = at.session_state["settings"]
    assert (settings["lam"], settings["knn"]) == (0.65, 7)
    at.radio(key="jecs.knn_mode").set_value(rule_controls.AUTO).run()
    assert at.session_state["settings"]["knn"] is None and at.query_params["knn"] == "auto"
    assert [o.name for o in rule_controls.shown_options()] == ["lam", "knn"]  # storey_lam, lambda_grid: CLI only


@pytest.mark.parametrize(("lam", "knn"), [("2", "abc"), ("abc", "-1"), ("-1", "0"), ("0.0", "1.5"), ("0.99", "200000")])
def test_a_link_with_a_value_the_control_cannot_show_is_ignored(lam, knn):
    at = AppTest.from_function(_page, default_timeout=30)
    at.query_params["lam"], at.query_params["knn"] = lam, knn
    at.run()
    assert not at.exception
    settings = at.session_state["settings"]
    assert settings["lam"] == "auto" and settings["knn"] is None


def test_the_frame_keeps_every_control_across_pages():
    from dashboard import state
    from jecs_core.rules.options import KNN, LAM

    assert (rule_controls.mode_key(LAM), rule_controls.value_key(LAM)) == (state.LAM_MODE, state.LAM)
    assert (rule_controls.mode_key(KNN), rule_controls.value_key(KNN)) == (state.KNN_MODE, state.KNN)
    assert rule_controls.session_defaults().items() <= state.PERSISTENT_DEFAULTS.items()
