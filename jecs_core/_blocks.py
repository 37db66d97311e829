"""Row blocks for the per-item passes over large arrays.

A pass over n items that makes a few temporary arrays per step (the p-value look-ups, the row
hashes, the post-hoc bound, the export's grid check) makes them column-sized when it runs over all
n at once: at 10^6 items, 8 MB each, beside the table they are computed from. In blocks of
``BLOCK_ROWS`` rows the temporaries stay a few hundred KiB (and in cache); every pass that uses
them is elementwise or sums exactly, so the results do not depend on the block size.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

BLOCK_ROWS = 1 << 16


def row_blocks(n: int, size: int | None = None) -> Iterator[slice]:
    """Consecutive slices covering ``range(n)``, ``size`` (default ``BLOCK_ROWS``) long, the last one shorter."""
    size = BLOCK_ROWS if size is None else size  # read at each call: a test can shrink it to make many blocks
    for start in range(0, n, size):
        yield slice(start, min(start + size, n))


def read_ahead(blocks: Iterator) -> Iterator:
    """``blocks``, the next one produced in another thread while the caller works on this one.

    For parsers that release the GIL (pandas' and Arrow's CSV readers): one block waits at most.
    """
    with ThreadPoolExecutor(max_workers=1) as producer:
        pending = producer.submit(next, blocks, None)
        while True:
            try:
                block = pending.result()
            except BaseException:
                # The future holds the error, whose traceback holds this frame: let go of the future,
                # or the two (and every frame the error passes through) wait for a garbage collection.
                pending = None
                raise
            if block is None:
                return
            pending = producer.submit(next, blocks, None)
            yield block
