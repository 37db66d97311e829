"""AppTest: the Learn page's default-rule note and its post-hoc sections render and follow their sliders."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.lesson_data import power_lesson
from dashboard.lesson_granularity import unreachable_thresholds

PAGE = str(Path(__file__).resolve().parents[2] / "views" / "learn_page.py")


def _text(at) -> str:
    return " ".join(m.value for m in at.markdown) + " " + " ".join(c.value for c in at.caption)


@pytest.fixture(scope="module")
def page():
    at = AppTest.from_file(PAGE, default_timeout=180).run()
    assert not at.exception
    return at


def test_default_rule_and_the_k_chart_note_follow_the_data(page):
    text = _text(page)
    assert "Storey-BH on max-p" in text and "`storey-maxp`" in text
    # Defaults: K = 8, eta = 0, alpha = 0.1; the note names exactly the K where the paper's JECS is above alpha.
    above = power_lesson(max_models=8, eta=0.0, alpha=0.1).above_alpha("jecs")
    assert above and above[0][0] == 1
    for k, gcp in above:
        assert f"K = {k} ({gcp:.3f})" in text
    assert "asymptotic" in text and "At K = 1 the null max-p is uniform" in text


def test_post_hoc_sections_render_with_their_numbers(page):
    text = _text(page)
    assert len(page.get("plotly_chart")) == 6
    assert "200 fresh audits (500 test items,\n214 calibration rows, K = 1" in text
    assert "of 200 tables some set on the α path" in text
    table = page.table[0].value
    assert list(table["how α is chosen"]) == ["α fixed before looking", "the α with the most items",
                                              "the unluckiest α on the slider"]
    assert f"first **{unreachable_thresholds(500, 200, 0.1)}** thresholds" in text
    assert "Why the bound has a floor." in text  # the library's note, quoted


@pytest.mark.parametrize("n_items, n_models, share, mu, delta, m", [
    (300, 3, 0.5, 2.0, 0.05, 50),
    (100, 16, 0.0, 6.0, 0.2, 10),
    (2000, 1, 0.9, 1.0, 0.01, 2000),
])
def test_post_hoc_sections_follow_their_sliders(n_items, n_models, share, mu, delta, m):
    at = AppTest.from_file(PAGE, default_timeout=300).run()
    at.slider(key="learn.audit.n").set_value(n_items)
    at.slider(key="learn.audit.k").set_value(n_models)
    at.slider(key="learn.audit.share").set_value(share)
    at.slider(key="learn.audit.mu").set_value(mu)
    at.select_slider(key="learn.audit.delta").set_value(delta)
    at.select_slider(key="learn.m").set_value(m).run()
    assert not at.exception
    text = _text(at)
    assert f"K = {n_models}, {share:.0%} contaminated" in text
    assert f"With m = {m} calibration rows" in text
    assert f"first **{unreachable_thresholds(n_items, m, delta)}** thresholds" in text
    assert f"δ = {delta:g} allows up to {delta * 200:.0f} of 200" in text
