"""Fixtures for the real-browser tests: a live ``streamlit run app.py`` and Debian's Chromium."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from dashboard.testing import live_server

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - depends on the environment
    sync_playwright = None


def skip_reason() -> str | None:
    """Why the browser tests cannot run here, or ``None``."""
    if sync_playwright is None:
        return "the Python 'playwright' package is not installed (pip install -e '.[test]')"
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing (apt-get install chromium); the tests never download a browser"
    return None


_skip_reason = skip_reason  # the name earlier tests used


@contextlib.contextmanager
def serve(script: Path, *, log_name: str | None = None, env: dict | None = None):
    """``streamlit run script`` on a free local port; yields its URL, stops it afterwards."""
    ARTIFACTS.mkdir(exist_ok=True)
    with open(ARTIFACTS / (log_name or f"streamlit-{Path(script).stem}.log"), "wb") as log, \
            live_server(["-m", "streamlit", "run", str(script)], log=log, env=env, timeout=60, poll=0.3) as (url, _):
        yield url


@pytest.fixture(scope="session")
def app_url():
    """A live ``streamlit run app.py`` shared by the session's browser tests."""
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    with serve(ROOT / "app.py", log_name="streamlit.log") as url:
        yield url


@pytest.fixture
def fresh_app_url():
    """A server of its own (for tests whose first request must hit a fresh server)."""
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    with serve(ROOT / "app.py", log_name="streamlit-fresh.log") as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1440, "height": 1000}, accept_downloads=True)
    tab = context.new_page()
    tab.set_default_timeout(30_000)
    yield tab
    context.close()
