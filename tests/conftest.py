"""Shared test set-up: hypothesis profiles, and torch on one thread for the tiny-model tests."""

from __future__ import annotations

import os
from importlib.util import find_spec
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("default", deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", deadline=None, max_examples=100, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "default")

TESTS = Path(__file__).resolve().parent
# Only these folders run tiny torch models; elsewhere torch is never imported for the pin.
TORCH_TEST_DIRS = (TESTS / "scoring", TESTS / "build")


@pytest.fixture(scope="session")
def _one_torch_thread():
    """Tiny models are all overhead, so the scoring and build tests pin torch to one thread."""
    if find_spec("torch") is None or find_spec("transformers") is None:
        yield
        return
    from scoring.testing import pinned_torch_threads

    yield from pinned_torch_threads()


@pytest.fixture(autouse=True)
def _torch_pin_for_model_tests(request):
    if any(Path(request.node.path).is_relative_to(folder) for folder in TORCH_TEST_DIRS):
        request.getfixturevalue("_one_torch_thread")
