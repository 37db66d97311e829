"""Small helpers shared by the build stages (no torch at import)."""

from __future__ import annotations

import contextlib
import os
import re
import time
import warnings

#: Where a build keeps its resumable state, relative to the working directory.
DEFAULT_CACHE_DIR = os.path.join(".jecs_cache", "build")

#: The pipeline's stages, in order (``--stop-after``).
STAGES = ("prepare", "finetune", "score", "assemble")

# Build names become file names inside the output and cache directories, so they
# may not hold a path separator or start with a dot ("..", hidden files).
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")


def check_build_name(name) -> str:
    """Return ``name`` if it is a plain file stem, else raise ``ValueError`` naming ``--name``."""
    if not isinstance(name, str) or not _NAME_RE.match(name) or ".." in name:
        raise ValueError(
            f"--name {name!r}: use letters, digits, '_', '.' and '-' only (no path separators, no '..'); "
            "the files go inside --out-dir and --cache-dir"
        )
    return name


def device() -> str:
    """``"cuda"`` when torch sees a GPU, else ``"cpu"``."""
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def say(message: str) -> None:
    """A time-stamped progress line."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


@contextlib.contextmanager
def quiet_libraries(progress: bool):
    """Inside: transformers' own progress bars follow ``progress`` (``--no-progress`` hides them), and peft's
    read of a deprecated transformers attribute does not reach the user as a warning they cannot act on."""
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:  # the stages that need it say so themselves
        hf_logging = None
    hide = hf_logging is not None and not progress and hf_logging.is_progress_bar_enabled()
    if hide:
        hf_logging.disable_progress_bar()
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="`is_gradient_checkpointing` is deprecated", category=FutureWarning)
            yield
    finally:
        if hide:
            hf_logging.enable_progress_bar()
