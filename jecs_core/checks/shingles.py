"""Character shingles of a text, hashed for MinHash: the unit of the near-duplicate search."""

from __future__ import annotations

import numpy as np

SHINGLE = 5  # characters per shingle
_FNV_OFFSET, _FNV_PRIME = np.uint64(0xCBF29CE484222325), np.uint64(0x100000001B3)
_MIX1, _MIX2, _SHIFT = np.uint64(0xFF51AFD7ED558CCD), np.uint64(0xC4CEB9FE1A85EC53), np.uint64(33)


def shingle_array(text: str) -> np.ndarray:
    """32-bit hashes of ``text``'s character ``SHINGLE``-grams (the whole text when it is shorter), one per window.

    Computed for all windows at once in numpy (FNV-1a over the code points, then MurmurHash3's 64-bit
    finaliser, top 32 bits): hashing each shingle in Python was most of the near-duplicate pass.  The
    same shingle hashes alike in every text and every process.

    Examples
    --------
    >>> a, b = shingle_array("the cat sat"), shingle_array("a cat sat")
    >>> len(a), bool(a[-1] == b[-1]), bool(shingle_array("cat") != shingle_array("cat" + chr(0)))
    (7, True, True)
    """
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.uint64)
    windows = max(codes.shape[0] - SHINGLE + 1, 1)
    # A text shorter than a shingle is one shingle of its own length: the length keeps "cat" apart from "cat\0".
    h = np.full(windows, _FNV_OFFSET ^ np.uint64(codes.shape[0] if codes.shape[0] < SHINGLE else 0))
    for j in range(SHINGLE):
        h = (h ^ (codes[j:j + windows] if j < codes.shape[0] else np.uint64(0))) * _FNV_PRIME
    h = (h ^ (h >> _SHIFT)) * _MIX1
    h = (h ^ (h >> _SHIFT)) * _MIX2
    return (h ^ (h >> _SHIFT)) >> np.uint64(32)


def minhashes(texts, *, num_perm: int, chunk: int = 4096):
    """One ``datasketch.MinHash`` per text of ``texts``, computed one text at a time.

    A MinHash depends only on the set of a text's shingles, so each text's hashes are deduplicated
    first, and fed ``chunk`` at a time: the library's buffer is ``num_perm`` 64-bit values per
    shingle fed, half a gigabyte for a one-megabyte text fed whole.
    """
    from datasketch import MinHash

    base = MinHash(num_perm=num_perm, seed=1, hashfunc=int)
    for text in texts:
        sketch, hashes = base.copy(), np.unique(shingle_array(text))
        for start in range(0, hashes.shape[0], chunk):
            sketch.update_batch(hashes[start:start + chunk])
        yield sketch
