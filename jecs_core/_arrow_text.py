"""Byte-level looks at the cells of an Arrow string array, without making a Python string per cell."""

from __future__ import annotations

import numpy as np


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
    return bool(np.isin(data[int(offsets[0]): int(offsets[-1])], codes).any())
