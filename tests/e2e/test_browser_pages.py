"""The pages in real Chromium: deep links on a fresh server, the sidebar after an upload, Learn with K = 1,
offline assets, an 800 px window, and user strings shown as written.

Uses the e2e conftest's ``browser``/``page``/``app_url`` fixtures (skipped with the reason when Playwright
or Debian's chromium is missing); the deep-link tests start their own fresh server.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
SAMPLE = ROOT / "sample_data" / "synthetic_k4.csv"
NOT_FOUND = "Page not found"


def _settle(page, ms: int = 2500) -> None:
    page.wait_for_selector("h1")
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
        " || !document.querySelector('[data-testid=\"stStatusWidget\"]').innerText.includes('Running')"
    )
    page.wait_for_timeout(ms)  # a "Page not found" dialog, when there is one, opens after the first paint


def _dialogs(page) -> list[str]:
    return [d.inner_text() for d in page.locator('[role="dialog"]').all()]


@pytest.mark.parametrize(("path", "title"), [("/select", "Select a shared clean subset"), ("/data", "Data")])
def test_deep_link_on_a_fresh_server_opens_its_page(browser, fresh_app_url, path, title):
    url = fresh_app_url  # the health check that waits for it is not a page request: this is the first
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(f"{url}{path}?sample=paper-synthetic-k4")
    _settle(page)
    page.screenshot(path=str(ARTIFACTS / f"deep-link{path.replace('/', '-')}.png"))
    assert not any(NOT_FOUND in d for d in _dialogs(page)), _dialogs(page)
    assert page.locator("h1").first.inner_text() == title
    assert page.url.startswith(f"{url}{path}") and "sample=paper-synthetic-k4" in page.url
    assert "Paper synthetic setup (K = 4)" in page.locator('[data-testid="stSidebar"]').inner_text()
    context.close()


def test_root_forwards_to_select_keeping_the_query(page, app_url):
    page.goto(f"{app_url}/?sample=paper-synthetic-k4")
    _settle(page, 1000)
    assert page.locator("h1").first.inner_text() == "Select a shared clean subset"
    assert "/select" in page.url and "sample=paper-synthetic-k4" in page.url
    assert not _dialogs(page)


def test_sidebar_names_the_upload_at_once_and_the_sample_button_stays(page, app_url):
    external = []
    page.on("request", lambda r: external.append(r.url) if not r.url.startswith((app_url, "data:", "blob:")) else None)
    page.goto(f"{app_url}/data")
    _settle(page, 1000)
    name = "my_scores*v2*.csv"  # Markdown would turn *v2* into italics and drop the stars
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
        files=[{"name": name, "mimeType": "text/csv", "buffer": SAMPLE.read_bytes()}])
    page.wait_for_selector('[data-testid="stAlertContentSuccess"]')
    _settle(page, 1000)
    sidebar = page.locator('[data-testid="stSidebar"]').inner_text()
    assert name in sidebar
    assert f"Loaded {name}: 840 test items" in page.locator('[data-testid="stAlertContentSuccess"]').inner_text()
    button = page.get_by_role("button", name="Use this sample")
    assert button.is_visible() and button.is_enabled()
    assert "data=" in page.url
    page.reload()  # F5: a new session finds the upload through the URL
    _settle(page, 1000)
    assert name in page.locator('[data-testid="stSidebar"]').inner_text()
    page.screenshot(path=str(ARTIFACTS / "data-after-upload.png"))
    assert external == []  # offline: no favicon or font from another host


def test_learn_with_one_model_and_exposure_off_renders(page, app_url):
    page.goto(f"{app_url}/learn")
    _settle(page, 1000)
    page.get_by_text("Item seen by all K models").click()
    _settle(page, 1000)
    k_slider = page.get_by_role("slider").first
    k_slider.focus()
    k_slider.press("Home")  # K = 1
    _settle(page, 1500)
    assert page.locator('[data-testid="stSliderThumbValue"]').first.inner_text() == "1"
    assert page.locator('[data-testid="stException"]').count() == 0
    assert "With K = 1 the item is seen by that one model" in page.locator('[data-testid="stMain"]').inner_text()
    page.screenshot(path=str(ARTIFACTS / "learn-k1.png"))


@pytest.mark.parametrize("path", ["/select", "/data", "/leaderboard", "/evaluate", "/score", "/learn"])
def test_nothing_truncates_at_800_px(browser, app_url, path):
    context = browser.new_context(viewport={"width": 800, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(f"{app_url}{path}")
    _settle(page, 1500)
    clipped = page.evaluate("""() => [...document.querySelectorAll(
        '[data-testid=stMetricLabel] *, [data-testid=stMetricValue] *, button p, label p')]
        .filter(e => e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1).map(e => e.innerText)""")
    page.screenshot(path=str(ARTIFACTS / f"w800{path.replace('/', '-')}.png"), full_page=True)
    context.close()
    assert clipped == []
