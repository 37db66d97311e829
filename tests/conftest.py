"""Shared test set-up: hypothesis profiles and the location of the team's conformance cases."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("default", deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", deadline=None, max_examples=100, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "default")

REPO_ROOT = Path(__file__).resolve().parents[1]


def conformance_dir() -> Path | None:
    """``$JECS_CONFORMANCE_DIR``, else ``../shared/conformance`` beside the checkout."""
    env = os.environ.get("JECS_CONFORMANCE_DIR")
    candidates = [Path(env)] if env else []
    candidates.append(REPO_ROOT.parent / "shared" / "conformance")
    for path in candidates:
        if path.is_dir():
            return path
    return None


@pytest.fixture(scope="session")
def conformance_cases() -> list[Path]:
    found = conformance_dir()
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("conformance cases not found: expected ../shared/conformance beside the checkout")
        pytest.skip("conformance cases not found (set JECS_CONFORMANCE_DIR)")
    return sorted(found.glob("case*.csv"))
