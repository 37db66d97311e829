"""Character shingles of a text, hashed for MinHash: the unit of the near-duplicate search."""

from __future__ import annotations

import numpy as np

SHINGLE = 5  # characters per shingle
_FNV_OFFSET, _FNV_PRIME = np.uint64(0xCBF29CE484222325), np.uint64(0x100000001B3)
_MIX1, _MIX2, _SHIFT = np.uint64(0xFF51AFD7ED558CCD), np.uint64(0xC4CEB9FE1A85EC53), np.uint64(33)


def shingle_hashes(text: str) -> list[int]:
    """32-bit hashes of ``text``'s character ``SHINGLE``-grams (the whole text when it is shorter), one per window.

    Computed for all windows at once in numpy (FNV-1a over the code points, then MurmurHash3's 64-bit
    finaliser, top 32 bits): hashing each shingle in Python was most of the near-duplicate pass.  The
    same shingle hashes alike in every text and every process.

    Examples
    --------
    >>> a, b = shingle_hashes("the cat sat"), shingle_hashes("a cat sat")
    >>> len(a), a[-1] == b[-1], shingle_hashes("cat") != shingle_hashes("cat" + chr(0))
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
    return ((h ^ (h >> _SHIFT)) >> np.uint64(32)).tolist()
