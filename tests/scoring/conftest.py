"""Shared set-up: torch on one thread for the tiny-model tests (the helper lives in scoring.testing)."""

from importlib.util import find_spec

import pytest


@pytest.fixture(scope="session", autouse=True)
def _one_torch_thread():
    if find_spec("torch") is None or find_spec("transformers") is None:
        yield
        return
    from scoring.testing import pinned_torch_threads

    yield from pinned_torch_threads()
