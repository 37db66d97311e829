"""The Learn page's post-hoc lessons in real Chromium: moving a slider of the audit panel redraws them.

Uses the e2e conftest's ``page``/``app_url`` fixtures (skipped with the reason when Playwright or
Debian's chromium is missing).
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def _settle(page, ms: int = 1500) -> None:
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
        " || !document.querySelector('[data-testid=\"stStatusWidget\"]').innerText.includes('Running')"
    )
    page.wait_for_timeout(ms)


def test_audit_panel_redraws_the_post_hoc_lessons(page, app_url):
    page.goto(f"{app_url}/learn")
    page.locator(".js-plotly-plot").nth(5).wait_for()
    _settle(page)
    main = page.locator('[data-testid="stMain"]')
    assert "K = 1, 30% contaminated" in main.inner_text()
    k_slider = page.locator('input[aria-label="Models K"]')
    k_slider.focus()
    k_slider.press("ArrowRight")  # K = 2
    _settle(page, 2500)
    text = main.inner_text()
    assert "K = 2, 30% contaminated" in text
    assert "of 200 tables some set on the α path" in text
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator(".js-plotly-plot").count() == 6
    page.get_by_role("heading", name="5 · Picking α after looking").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "learn-post-hoc.png"))
