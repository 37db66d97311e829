"""End to end in a real browser: start the app, open every page, move alpha, download the export.

Screenshots go to test-artifacts/.  With JECS_UPDATE_SCREENSHOTS=1 the Select page
screenshot is also copied to docs/screenshots/select.png for the README.
"""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest

import jecs_core
from dashboard import samples

try:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
except ImportError:  # the fixtures skip these tests with the reason
    PlaywrightTimeout = TimeoutError

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"  # git-ignored


def _wait_idle(page) -> None:
    """Wait until Streamlit has finished the current script run and the charts are drawn."""
    page.wait_for_selector('[data-testid="stApp"]')
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
        " || !document.querySelector('[data-testid=\"stStatusWidget\"]').innerText.includes('Running')"
    )
    page.wait_for_timeout(400)


def _full_screenshot(page, name: str) -> None:
    """Streamlit scrolls inside its main block, so grow the viewport to capture the whole page."""
    height = page.evaluate("() => document.querySelector('[data-testid=stMain]').scrollHeight")
    size = page.viewport_size
    page.set_viewport_size({"width": size["width"], "height": max(size["height"], min(int(height) + 40, 6000))})
    page.wait_for_timeout(500)
    page.screenshot(path=str(ARTIFACTS / name))
    page.set_viewport_size(size)


def _jecs_count(page) -> int:
    return int(page.locator('.st-key-card-jecs [data-testid="stMetricValue"]').inner_text().replace(",", ""))


def _expected(alpha: float) -> jecs_core.Comparison:
    table = samples.get(samples.DEFAULT_SAMPLE).loader()
    p = jecs_core.conformal_pvalues(table.test, table.calibration)
    return jecs_core.compare_pvalues(p, alpha=alpha, models=table.models, contaminated=table.contaminated)


def test_select_page_alpha_and_export(page, app_url):
    page.goto(f"{app_url}/")  # Select is the default page, served at the root
    page.get_by_role("heading", name="Select a shared clean subset").wait_for()
    page.locator(".js-plotly-plot").first.wait_for()
    _wait_idle(page)
    assert _jecs_count(page) == _expected(0.10).jecs.n_selected

    slider = page.get_by_role("slider", name="Target GCR α")
    # Keyboard arrows move the slider one step (0.01) each; a press can be lost while a rerun
    # redraws the widget, so press until the slider reads 0.20.
    for _ in range(40):
        value = float(slider.input_value())
        if value >= 0.20 - 1e-9:
            break
        slider.press("ArrowRight")
        try:
            page.wait_for_function("([el, v]) => parseFloat(el.value) != v", arg=[slider.element_handle(), value], timeout=3_000)
        except PlaywrightTimeout:  # the press was lost to a redraw: press again
            pass
    assert float(slider.input_value()) == pytest.approx(0.20)
    expected = _expected(0.20)
    page.wait_for_function(
        "n => document.querySelector('.st-key-card-jecs [data-testid=\"stMetricValue\"]').innerText.replace(/,/g, '') == String(n)",
        arg=expected.jecs.n_selected,
    )
    assert expected.jecs.n_selected != _expected(0.10).jecs.n_selected
    _wait_idle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    page.mouse.move(0, 0)
    page.set_viewport_size({"width": 1440, "height": 1320})  # controls, cards and the first chart
    page.wait_for_timeout(500)
    page.screenshot(path=str(ARTIFACTS / "select.png"))
    page.set_viewport_size({"width": 1440, "height": 1000})
    _full_screenshot(page, "select_full.png")
    if os.environ.get("JECS_UPDATE_SCREENSHOTS") == "1":
        target = ROOT / "docs" / "screenshots" / "select.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ARTIFACTS / "select.png", target)

    with page.expect_download() as info:
        page.get_by_role("button", name="Selection CSV").click()
    downloaded = pd.read_csv(io.BytesIO(open(info.value.path(), "rb").read()), dtype={"item_id": str})
    table = samples.get(samples.DEFAULT_SAMPLE).loader()
    want = jecs_core.selection_frame(table, expected, "jecs")
    assert info.value.suggested_filename.endswith("_jecs_alpha0.20.csv")
    pd.testing.assert_frame_equal(downloaded, want, check_dtype=False)

    for name in ("Envelope", "Step-up", "Overlap", "λ grid"):
        page.get_by_role("tab", name=name).click()
        page.wait_for_timeout(300)
        slug = name.lower().replace(" ", "-").replace("λ", "lambda")
        _full_screenshot(page, f"select_tab_{slug}.png")


def test_data_page(page, app_url):
    # A direct link to a non-default page must work (no legacy pages/ router: the pages live in views/).
    page.goto(f"{app_url}/data")
    page.get_by_role("heading", name="Data", exact=True).wait_for()
    page.get_by_text(f"Active: {samples.get(samples.DEFAULT_SAMPLE).name}").wait_for()
    page.locator(".js-plotly-plot").first.wait_for()
    _wait_idle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.get_by_text("Page not found").count() == 0
    _full_screenshot(page, "data.png")


def test_every_page_in_the_navigation_opens(page, app_url):
    """Every page the sidebar lists (pages added later included) renders without an exception."""
    page.goto(f"{app_url}/")
    page.locator('[data-testid="stSidebarNavLink"]').first.wait_for()
    links = page.locator('[data-testid="stSidebarNavLink"]')
    targets = [(links.nth(i).inner_text().split("\n")[-1].strip(), links.nth(i).get_attribute("href")) for i in range(links.count())]
    assert {"Data", "Select", "Evaluate", "The super-uniformity tax"} <= {name for name, _ in targets}
    for name, href in targets:
        page.goto(href if href.startswith("http") else f"{app_url}/{href.lstrip('/')}")
        page.locator('[data-testid="stMainBlockContainer"] h1').first.wait_for()
        _wait_idle(page)
        assert page.locator('[data-testid="stException"]').count() == 0, name
        page.screenshot(path=str(ARTIFACTS / f"page_{name.lower().replace(' ', '_')}.png"))


def test_learn_page(page, app_url):
    """The lesson renders its four figures; its screenshot illustrates the README."""
    page.goto(f"{app_url}/")
    page.locator('[data-testid="stSidebarNavLink"]').first.wait_for()
    page.goto(f"{app_url}/learn")
    page.locator('[data-testid="stMainBlockContainer"] h1').first.wait_for()
    _wait_idle(page)
    page.locator(".js-plotly-plot").nth(3).wait_for()
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator(".js-plotly-plot").count() == 4
    page.screenshot(path=str(ARTIFACTS / "learn.png"))
    if os.environ.get("JECS_UPDATE_SCREENSHOTS") == "1":
        shutil.copyfile(ARTIFACTS / "learn.png", ROOT / "docs" / "screenshots" / "learn.png")
