"""Byte-level looks at the cells of an Arrow string array, without making a Python string per cell."""

from __future__ import annotations

import numpy as np

from ._few_values import equals_any


def text_buffers(array) -> tuple[np.ndarray, np.ndarray]:
    """``(offsets, data)`` of an Arrow string or large-string array: cell i is ``data[offsets[i]:offsets[i + 1]]``."""
    import pyarrow as pa

    width = np.int64 if pa.types.is_large_string(array.type) else np.int32
    _, offsets, data = array.buffers()
    offsets = np.frombuffer(offsets, dtype=width)[array.offset: array.offset + len(array) + 1]
    return offsets, np.zeros(0, dtype=np.uint8) if data is None else np.frombuffer(data, dtype=np.uint8)


def holds_any_byte(array, codes: np.ndarray) -> bool:
    """Whether any cell holds one of the byte values ``codes``, found by one scan of the cells' bytes.

    For ASCII ``codes`` this is exact on UTF-8 text: no byte of a multi-byte character is below 0x80.
    """
    if not len(array):
        return False
    offsets, data = text_buffers(array)
    return bool(equals_any(data[int(offsets[0]): int(offsets[-1])], codes).any())


# A polynomial hash of a cell's bytes modulo 2**64 (an odd multiplier, FNV's 64-bit prime), with the
# cell's length folded in: a few numpy passes over a block's bytes instead of one Python string per cell.
_MULTIPLIER = np.uint64(0x100000001B3)
_LENGTH_MIX = np.uint64(0x9E3779B97F4A7C15)


def text_hashes(array) -> np.ndarray:
    """One 64-bit hash per cell (``uint64``): equal cells always hash alike, distinct ones almost never.

    ``sum(byte[j] * M**j) xor length * C`` modulo 2**64. Its temporaries take about 16 bytes per byte
    of text, so large arrays are best hashed a block at a time.
    """
    offsets, data = text_buffers(array)
    lengths = np.diff(offsets)
    hashes = lengths.astype(np.uint64) * _LENGTH_MIX
    filled = lengths > 0
    if not filled.any():
        return hashes
    starts = (offsets[:-1] - offsets[0]).astype(np.intp)
    values = data[int(offsets[0]): int(offsets[-1])].astype(np.uint64)
    powers = np.ones(int(lengths.max()), dtype=np.uint64)
    np.cumprod(np.full(len(powers) - 1, _MULTIPLIER), out=powers[1:])
    values *= powers[np.arange(len(values)) - np.repeat(starts, lengths)]  # byte j of its cell times M**j
    hashes[filled] ^= np.add.reduceat(values, starts[filled])  # empty cells would break reduceat's ranges
    return hashes


def all_distinct(hashes: np.ndarray, values: np.ndarray) -> bool:
    """Whether ``values`` are pairwise distinct, given hashes under which equal values hash alike.

    Distinct hashes settle it for all but the rows whose hash repeats; only those are compared.
    """
    ordered = np.sort(hashes)
    repeated = ordered[1:][ordered[1:] == ordered[:-1]]
    if not len(repeated):
        return True
    rows = np.flatnonzero(np.isin(hashes, repeated))
    return len(set(values[rows].tolist())) == len(rows)
