"""The sample registry: every sample loads a valid table; the registry refuses duplicates."""

from __future__ import annotations

import pytest

from dashboard import samples


@pytest.mark.parametrize("key", list(samples.SAMPLES))
def test_every_sample_loads(key):
    sample = samples.get(key)
    assert sample.name and sample.description and "\n" not in sample.description
    table = sample.loader()
    assert table.n > 0 and table.m > 0 and table.K >= 1


def test_default_sample_is_the_paper_setup():
    table = samples.get(samples.PAPER_SAMPLE).loader()
    assert (table.n, table.m, table.K, table.has_labels) == (840, 360, 4, True)


def test_scale_sample_has_audit_size():
    table = samples.get("synthetic-k16-10k").loader()
    assert (table.n, table.K) == (10_000, 16)


def test_registry_errors():
    with pytest.raises(ValueError, match="already registered"):
        samples.register(samples.get(samples.DEFAULT_SAMPLE))
    with pytest.raises(KeyError, match="unknown sample 'nope'"):
        samples.get("nope")
