"""The Select page in real Chromium: alpha step, per-item explanation, the audit report, a link that reproduces a view.

Screenshots go to test-artifacts/; with JECS_UPDATE_SCREENSHOTS=1 they are also copied to
docs/screenshots/ (select.png, select_explain.png, select_compare.png, report.png).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import jecs_core
from dashboard import samples
from dashboard.figures import build_all

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
METHOD = jecs_core.DEFAULT_METHOD
# The run is over (the app root says so), the cards are drawn and nothing is left stale.
SETTLED = ("document.querySelector('[data-testid=stApp]')?.getAttribute('data-test-script-state') == 'notRunning'"
           " && document.querySelector('.jecs-card') && !document.querySelector('[data-stale=\"true\"]')")


def _expected(alpha: float) -> jecs_core.Comparison:
    return jecs_core.compare_methods(samples.get(samples.DEFAULT_SAMPLE).loader(), alpha=alpha)


def _settled(page, alpha: float) -> None:
    """The Select page has finished the run for ``alpha`` (it writes the URL last) and nothing is stale."""
    page.wait_for_function(f"a => new URLSearchParams(location.search).get('alpha') == a && {SETTLED}",
                           arg=f"{alpha:g}", timeout=60_000)
    page.wait_for_timeout(300)


def _count(page, method: str) -> int:
    return int(page.locator(f".jecs-card[data-method='{method}'] .jecs-count").inner_text().replace(",", ""))


def _shot(page, name: str, *, height: int | None = None) -> None:
    if height:
        page.set_viewport_size({"width": 1440, "height": height})
        page.wait_for_timeout(500)
    page.mouse.move(0, 0)
    page.screenshot(path=str(ARTIFACTS / name))
    if os.environ.get("JECS_UPDATE_SCREENSHOTS") == "1":
        target = ROOT / "docs" / "screenshots" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ARTIFACTS / name, target)


def test_alpha_step_updates_cards_and_url(page, app_url):
    page.goto(f"{app_url}/select?alpha=0.1")
    _settled(page, 0.1)
    assert _count(page, METHOD) == _expected(0.10).result(METHOD).n_selected
    slider = page.get_by_role("slider", name="Target GCR α")
    for step in range(1, 4):  # three one-step moves, each waited for until painted
        slider.press("ArrowRight")
        _settled(page, round(0.1 + 0.01 * step, 2))
    expected = _expected(0.13)
    for method in expected.methods:
        assert _count(page, method) == expected.result(method).n_selected, method
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator(".js-plotly-plot").count() == 1  # only the open figure is sent
    _shot(page, "select.png", height=1400)


def test_alpha_steps_through_a_one_page_items_list_keep_the_panel(page, app_url):
    # At alpha = 0.1 the kept list has several pages and a page box; at 0.01 it fits one page, so a
    # fragment rerun does not draw the box and Streamlit drops its state: the next step must draw page 1.
    page.goto(f"{app_url}/select?alpha=0.1&view=items&sample={samples.DEFAULT_SAMPLE}")
    _settled(page, 0.1)
    slider = page.get_by_role("slider", name="Target GCR α")
    slider.press("Home")
    _settled(page, 0.01)
    for step in range(1, 3):
        slider.press("ArrowRight")
        _settled(page, round(0.01 + 0.01 * step, 2))
        assert page.locator('[data-testid="stException"]').count() == 0
    assert page.get_by_text("kept items · page 1 of").count() == 1


def test_a_repeated_link_key_is_written_back_once_with_the_value_used(page, app_url):
    page.goto(f"{app_url}/select?alpha=0.2&alpha=0.3&sample={samples.DEFAULT_SAMPLE}")
    _settled(page, 0.3)  # URLSearchParams.get reads the first value: 0.3 only once the page rewrote the key
    assert page.evaluate("new URLSearchParams(location.search).getAll('alpha')") == ["0.3"]
    assert _count(page, METHOD) == _expected(0.3).result(METHOD).n_selected


def test_item_explanation_is_shown(page, app_url):
    table = samples.get(samples.DEFAULT_SAMPLE).loader()
    target = str(table.test_ids[11])
    page.goto(f"{app_url}/select?alpha=0.1&view=items")
    _settled(page, 0.1)
    box = page.get_by_label("Search id (exact, then prefix) or text")
    box.fill(target)
    box.press("Enter")
    explanation = page.locator(".st-key-item-explanation")
    explanation.get_by_text(target, exact=True).wait_for()
    text = explanation.inner_text()
    assert "ranks" in text and "r* =" in text and "p* = " in text
    assert ("keeps it" in text) == bool(_expected(0.1).selected(METHOD)[11])
    explanation.scroll_into_view_if_needed()
    page.wait_for_timeout(400)
    page.screenshot(path=str(ARTIFACTS / "select_explain.png"))
    if os.environ.get("JECS_UPDATE_SCREENSHOTS") == "1":
        shutil.copyfile(ARTIFACTS / "select_explain.png", ROOT / "docs" / "screenshots" / "select_explain.png")


def test_report_downloads_and_opens_offline_with_every_figure(page, app_url, browser, tmp_path):
    page.goto(f"{app_url}/select?alpha=0.1")
    _settled(page, 0.1)
    page.get_by_text("Export and report", exact=True).click()  # the panel switch, as a user does
    page.get_by_role("button", name="Audit report (HTML)").wait_for()
    with page.expect_download(timeout=120_000) as info:
        page.get_by_role("button", name="Audit report (HTML)").click()
    path = tmp_path / info.value.suggested_filename
    info.value.save_as(path)
    assert path.suffix == ".html" and path.stat().st_size > 1_000_000
    want = build_all(_expected(0.1), METHOD)
    offline = browser.new_context(offline=True, viewport={"width": 1200, "height": 900})
    try:
        report = offline.new_page()
        report.goto(path.as_uri())
        report.locator(".js-plotly-plot .main-svg").nth(len(want) - 1).wait_for(timeout=60_000)
        assert report.locator(".js-plotly-plot").count() == len(want)
        shown = [report.locator("section.figure").nth(i).get_attribute("data-figure") for i in range(len(want))]
        assert shown == list(want)
        report.locator("#figures").scroll_into_view_if_needed()
        report.wait_for_timeout(300)
        report.screenshot(path=str(ARTIFACTS / "report.png"))
        if os.environ.get("JECS_UPDATE_SCREENSHOTS") == "1":
            shutil.copyfile(ARTIFACTS / "report.png", ROOT / "docs" / "screenshots" / "report.png")
    finally:
        offline.close()


def test_a_link_reproduces_the_view_with_two_alphas(page, app_url):
    page.goto(f"{app_url}/select?alpha=0.25&method=jmcs&fig=stepup&alpha2=0.1")
    _settled(page, 0.25)
    assert float(page.get_by_role("slider", name="Target GCR α").input_value()) == pytest.approx(0.25)
    assert page.get_by_text("α = 0.1", exact=True).count() >= 1
    page.get_by_text("Step-up of JMCS").first.wait_for()
    assert page.locator('[data-testid="stException"]').count() == 0
    _shot(page, "select_compare.png", height=1500)


def test_lambda_and_knn_steps_update_cards_envelope_and_url(page, app_url):
    """λ and k_n live in the α fragment: each step must refit, redraw the open figure and write the URL."""
    page.goto(f"{app_url}/select?alpha=0.1&method=jecs&fig=envelope")
    _settled(page, 0.1)
    page.locator('[data-testid="stRadio"]', has_text="Tail threshold λ").get_by_text("Manual").click()
    page.wait_for_function(f"() => new URLSearchParams(location.search).get('lam') == '0.7' && {SETTLED}")
    page.get_by_role("slider", name="λ").press("ArrowLeft")
    page.wait_for_function(f"() => new URLSearchParams(location.search).get('lam') == '0.65' && {SETTLED}")
    page.locator('[data-testid="stRadio"]', has_text="kNN size k_n").get_by_text("Manual").click()
    # The manual k_n starts from its declared start value once the rerun after the switch has settled.
    page.wait_for_function(f"() => /^[0-9]+$/.test(new URLSearchParams(location.search).get('knn') || '') && {SETTLED}")
    start = page.evaluate("() => new URLSearchParams(location.search).get('knn')")
    box = page.locator('[data-testid="stNumberInput"]', has_text="k_n")
    assert box.locator("input").input_value() == start
    knn = int(start) + 1
    box.get_by_test_id("stNumberInputStepUp").click()
    page.wait_for_function(f"() => new URLSearchParams(location.search).get('knn') == '{knn}' && {SETTLED}")
    page.wait_for_timeout(300)
    table = samples.get(samples.DEFAULT_SAMPLE).loader()
    expected = jecs_core.compare_methods(table, alpha=0.1, lam=0.65, knn=knn)
    for method in expected.methods:
        assert _count(page, method) == expected.result(method).n_selected, method
    fit = expected.result("jecs")
    # The fit line of the inspected rule prints its result's fit_summary() rows: the manual λ, the new k_n.
    caption = page.get_by_text(f"JECS (paper): λ = 0.65 (manual) · k_n = {fit.k_n} · ").first.inner_text()
    assert all(row.text in caption for row in fit.fit_summary()), caption
    assert caption.endswith(f" · n = {table.n:,}"), caption
    anchor = page.locator(".js-plotly-plot text", has_text="anchor (λ, F_fit(λ)) = (0.65,")
    anchor.first.wait_for()  # the open figure was redrawn for the new λ
    assert page.locator(".js-plotly-plot").count() == 1
    assert page.locator('[data-testid="stException"]').count() == 0
