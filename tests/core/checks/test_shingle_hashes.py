"""The vectorised shingle hashes behind the near-duplicate pass (``jecs_core.checks.duplicates``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jecs_core.checks.duplicates import NEAR_THRESHOLD, _near_edges
from jecs_core.checks.shingles import SHINGLE, shingle_array


def shingle_hashes(text: str) -> list[int]:
    return shingle_array(text).tolist()

MASK = (1 << 64) - 1


def _one_shingle(codes: list[int], length: int) -> int:
    """FNV-1a over the code points, then MurmurHash3's fmix64, top 32 bits: one shingle, in plain Python."""
    h = 0xCBF29CE484222325 ^ (length if length < SHINGLE else 0)
    for j in range(SHINGLE):
        h = ((h ^ (codes[j] if j < len(codes) else 0)) * 0x100000001B3) & MASK
    for mix in (0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53):
        h = ((h ^ (h >> 33)) * mix) & MASK
    return (h ^ (h >> 33)) >> 32


def _reference(text: str) -> list[int]:
    codes = [ord(c) for c in text]
    if len(codes) < SHINGLE:
        return [_one_shingle(codes, len(codes))]
    return [_one_shingle(codes[i:i + SHINGLE], SHINGLE) for i in range(len(codes) - SHINGLE + 1)]


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=40))
def test_matches_the_per_shingle_definition(text):
    assert shingle_hashes(text) == _reference(text)


@settings(max_examples=100, deadline=None)
@given(st.text(min_size=SHINGLE, max_size=30), st.text(max_size=10), st.text(max_size=10))
def test_a_shingle_hashes_alike_wherever_it_stands(core, before, after):
    inner = shingle_hashes(core)
    outer = shingle_hashes(before + core + after)
    start = len(before)
    assert outer[start:start + len(inner)] == inner
    assert all(0 <= h < 2**32 for h in outer)


def test_short_texts_and_lone_surrogates():
    assert len(shingle_hashes("cat")) == 1 and shingle_hashes("cat") != shingle_hashes("cat" + chr(0))
    assert shingle_hashes("a\ud800bcdef") == _reference("a\ud800bcdef")  # a str from the API may hold one


def test_distinct_shingles_rarely_collide():
    rng = np.random.default_rng(0)
    text = "".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz .,"), 60_000))
    windows = {text[i:i + SHINGLE] for i in range(len(text) - SHINGLE + 1)}
    hashes = dict(zip((text[i:i + SHINGLE] for i in range(len(text) - SHINGLE + 1)), shingle_hashes(text)))
    assert len(set(hashes.values())) >= len(windows) - 2  # ~0.2 collisions expected among 2**32 values


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_near_copies_are_found_and_unrelated_texts_are_not(seed):
    # Fresh random "documents": each has a near copy (a few words changed) and a stranger.
    pytest.importorskip("datasketch", reason="the near-duplicate pass needs the 'text' extra")
    rng = np.random.default_rng(seed)
    vocabulary = [f"w{i}" for i in range(3000)]
    texts, pairs = [], set()
    for k in range(60):
        words = list(rng.choice(vocabulary, 80))
        copy = list(words)
        copy[int(rng.integers(80))] = "changed"
        texts += [" ".join(words), " ".join(copy), " ".join(rng.choice(vocabulary, 80))]
        pairs.add((3 * k, 3 * k + 1))
    src, dst = _near_edges(pd.Series(texts))
    found = set(zip(src.tolist(), dst.tolist()))
    assert len(found & pairs) >= 57  # LSH finds a pair at Jaccard ~0.9 with probability near 1
    assert found <= pairs  # strangers share almost no 5-gram: never above NEAR_THRESHOLD
    assert NEAR_THRESHOLD < 0.9


def test_sketches_fed_deduplicated_and_in_chunks_equal_the_library_fed_every_shingle():
    datasketch = pytest.importorskip("datasketch", reason="the near-duplicate pass needs the 'text' extra")
    from jecs_core.checks.shingles import minhashes

    texts = ["the cat sat on the mat " * 40, "a b", "", "x" * 3000, "the cat sat on a mat " * 39]
    library = datasketch.MinHash.bulk([shingle_hashes(t) for t in texts], num_perm=64, seed=1, hashfunc=int)
    for chunk in (7, 4096):  # 7: a long text crosses many chunks, with repeated shingles in each
        ours = list(minhashes(texts, num_perm=64, chunk=chunk))
        assert all(np.array_equal(a.hashvalues, b.hashvalues) for a, b in zip(ours, library))
