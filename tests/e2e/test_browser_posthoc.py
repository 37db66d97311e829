"""The post-hoc line in real Chromium: dragging α redraws each card's bound, equal to jecs_core's."""

from __future__ import annotations

import re

import pytest

import jecs_core
from dashboard import samples

pytestmark = pytest.mark.browser

METHOD = jecs_core.DEFAULT_METHOD
SETTLED = ("document.querySelector('[data-testid=stApp]')?.getAttribute('data-test-script-state') == 'notRunning'"
           " && document.querySelector('.jecs-posthoc') && !document.querySelector('[data-stale=\"true\"]')")
LINE = re.compile(r"with 90% confidence at most (\d+) of these (\d+) items are contaminated")


def _settled(page, alpha: float) -> None:
    page.wait_for_function(f"a => new URLSearchParams(location.search).get('alpha') == a && {SETTLED}",
                           arg=f"{alpha:g}", timeout=60_000)
    page.wait_for_timeout(300)


def _line(page) -> tuple[int, int]:
    text = page.locator(f".jecs-card[data-method='{METHOD}'] .jecs-posthoc").inner_text()
    match = LINE.search(text)
    assert match, text
    return int(match[1]), int(match[2])


def _expected(alpha: float) -> tuple[int, int]:
    table = samples.get(samples.DEFAULT_SAMPLE).loader()
    selected = jecs_core.compare_methods(table, alpha=alpha).selected(METHOD)
    return jecs_core.post_hoc_bound(jecs_core.table_pvalues(table), selected, delta=0.1,
                                    calibration_size=table.m), int(selected.sum())


def test_dragging_alpha_moves_the_post_hoc_line(page, app_url):
    page.goto(f"{app_url}/select?alpha=0.1&delta=0.1")
    _settled(page, 0.1)
    assert _line(page) == _expected(0.10)
    slider = page.get_by_role("slider", name="Target GCR α")
    slider.focus()
    for step in range(1, 11):  # ten one-step moves, as a drag passes them
        slider.press("ArrowRight")
        _settled(page, round(0.1 + 0.01 * step, 2))
    assert _line(page) == _expected(0.20) != _expected(0.10)
    # A mouse drag of the thumb to the right: the line follows whatever α the drag lands on.
    box = slider.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2 + 150, box["y"] + box["height"] / 2, steps=15)
    page.mouse.up()
    page.wait_for_function("() => Number(new URLSearchParams(location.search).get('alpha')) > 0.2", timeout=60_000)
    alpha = float(page.evaluate("() => new URLSearchParams(location.search).get('alpha')"))
    _settled(page, alpha)
    assert _line(page) == _expected(alpha)
    assert page.locator('[data-testid="stException"]').count() == 0


def test_commit_alpha_first_hides_then_shows_without_an_error(page, app_url):
    """Hidden → shown → hidden goes through full runs: the page's fragment never fills a slot left empty."""
    page.goto(f"{app_url}/select?alpha=0.1&commit=first")
    page.get_by_role("button", name="Commit α", exact=True).wait_for(timeout=60_000)
    slider = page.get_by_role("slider", name="Target GCR α")
    slider.focus()
    slider.press("ArrowRight")  # a fragment rerun while the results are hidden
    page.wait_for_function("() => new URLSearchParams(location.search).get('alpha') == '0.11'", timeout=60_000)
    assert page.locator(".jecs-card").count() == 0
    page.get_by_role("button", name="Commit α", exact=True).click()
    _settled(page, 0.11)
    assert _line(page) == _expected(0.11) and page.get_by_text("α = 0.11 was committed at").count() == 1
    page.get_by_role("button", name="Uncommit α").click()
    page.get_by_role("button", name="Commit α", exact=True).wait_for(timeout=60_000)
    page.wait_for_timeout(500)
    assert page.locator(".jecs-card").count() == 0
    assert page.locator('[data-testid="stException"]').count() == 0
