"""End to end in a real browser: every page opens; the Data and Learn pages render.

The Select page's browser tests are in test_browser_select.py.  Screenshots go to
test-artifacts/; with JECS_UPDATE_SCREENSHOTS=1 the Learn screenshot is copied to docs/screenshots/.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from dashboard import samples

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


def test_data_page(page, app_url):
    # A direct link to a non-default page must work (no legacy pages/ router: the pages live in views/).
    page.goto(f"{app_url}/data")
    page.get_by_role("heading", name="Data", exact=True).wait_for()
    page.get_by_text(samples.get(samples.DEFAULT_SAMPLE).name).first.wait_for()
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
    """The lesson renders its six figures; its screenshot illustrates docs/DASHBOARD.md."""
    page.goto(f"{app_url}/")
    page.locator('[data-testid="stSidebarNavLink"]').first.wait_for()
    page.goto(f"{app_url}/learn")
    page.locator('[data-testid="stMainBlockContainer"] h1').first.wait_for()
    _wait_idle(page)
    page.locator(".js-plotly-plot").nth(5).wait_for()
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator(".js-plotly-plot").count() == 6
    page.screenshot(path=str(ARTIFACTS / "learn.png"))
    if os.environ.get("JECS_UPDATE_SCREENSHOTS") == "1":
        shutil.copyfile(ARTIFACTS / "learn.png", ROOT / "docs" / "screenshots" / "learn.png")
