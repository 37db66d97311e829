"""Hashes of Arrow text cells and the uniqueness check built on them (jecs_core._arrow_text)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jecs_core._arrow_text import all_distinct, text_hashes

MASK = 2**64 - 1


def reference_hash(text: str) -> int:
    """The documented hash, in plain Python integers: sum(byte[j] * M**j) xor length * C, modulo 2**64."""
    data = text.encode("utf-8")
    total = sum(byte * pow(0x100000001B3, j, 2**64) for j, byte in enumerate(data)) & MASK
    return total ^ ((len(data) * 0x9E3779B97F4A7C15) & MASK)


texts = st.lists(st.text(st.characters(blacklist_categories=("Cs",)), max_size=12), max_size=60)


@settings(max_examples=200, deadline=None)
@given(values=texts, start=st.integers(0, 5), large=st.booleans())
def test_hashes_equal_the_reference_on_any_cells_and_any_slice(values, start, large):
    array = pa.array(values, type=pa.large_string() if large else pa.string()).slice(min(start, len(values)))
    got = text_hashes(array)
    assert got.dtype == np.uint64
    assert got.tolist() == [reference_hash(v) for v in array.to_pylist()]


@settings(max_examples=200, deadline=None)
@given(pool=st.lists(st.text(max_size=6), min_size=1, max_size=8), picks=st.lists(st.integers(0, 7), max_size=40))
def test_uniqueness_agrees_with_a_set_when_values_repeat_or_not(pool, picks):
    values = [pool[i % len(pool)] for i in picks]
    objects = np.array(values, dtype=object)
    assert all_distinct(text_hashes(pa.array(values, type=pa.string())), objects) == (len(set(values)) == len(values))


@given(values=st.lists(st.text(max_size=6), max_size=30), colliding=st.integers(0, 3))
def test_uniqueness_stays_exact_when_distinct_values_share_a_hash(values, colliding):
    # A hash that puts every value in one of a few buckets: distinct values collide all the time.
    hashes = np.array([len(v) % (colliding + 1) for v in values], dtype=np.uint64)
    assert all_distinct(hashes, np.array(values, dtype=object)) == (len(set(values)) == len(values))


def test_equal_cells_hash_alike_and_near_misses_do_not():
    cells = ["t1", "t1", "t10", "1t", "t\u00e91", "", "", "t1 "]
    hashes = text_hashes(pa.array(cells))
    assert hashes[0] == hashes[1] and hashes[5] == hashes[6]
    assert len(set(hashes[[0, 2, 3, 4, 5, 7]].tolist())) == 6


@pytest.mark.parametrize("n", [0, 1, 2])
def test_tiny_inputs(n):
    values = ["a"] * n
    assert all_distinct(text_hashes(pa.array(values, type=pa.string())), np.array(values, dtype=object)) == (n < 2)


def test_a_million_distinct_ids_hash_without_a_collision():
    # Ids shaped like the benchmark's and a real audit's: a prefix and a counter.
    ids = pa.array([f"item-{j}" for j in range(10**6)])
    hashes = text_hashes(ids)
    assert len(np.unique(hashes)) == len(ids)
