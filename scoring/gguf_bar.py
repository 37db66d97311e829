"""transformers' progress-bar switch, extended to its GGUF conversion.

``transformers.utils.logging.disable_progress_bar()`` turns off the library's bars, but its
GGUF loader draws "Converting and de-quantizing GGUF tensors" with a plain ``tqdm``
(transformers 5.x), a bar ``jecs score --no-progress`` must not print.  While a GGUF file loads
with the switch off, that loader's ``tqdm`` is the disabled one transformers' switch gives.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

_LOCK = threading.Lock()  # two loads in parallel threads must not restore each other's tqdm


@contextlib.contextmanager
def following_transformers_switch() -> Iterator[None]:
    """Within the block, the GGUF loader draws its bar only when transformers' progress bars are on."""
    from transformers.utils import logging as hf_logging

    if hf_logging.is_progress_bar_enabled():
        yield
        return
    try:
        from transformers import modeling_gguf_pytorch_utils as gguf_loader
    except ImportError:  # a transformers without the loader: nothing to quiet
        yield
        return
    with _LOCK:
        drawn = getattr(gguf_loader, "tqdm", None)
        if drawn is None:
            yield
            return
        gguf_loader.tqdm = hf_logging.tqdm  # transformers' own tqdm, which honours the switch
        try:
            yield
        finally:
            gguf_loader.tqdm = drawn
