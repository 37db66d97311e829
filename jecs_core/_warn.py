"""Warnings shown at the user's line: the first frame outside this package, however deep the call."""

from __future__ import annotations

import os
import sys
import warnings

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn_at_caller(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn(message, category)`` pointing at the first caller outside ``jecs_core``.

    A fixed ``stacklevel`` is right for one entry point only: the same check reached through
    ``fit_post_hoc`` and through ``post_hoc_path`` sits at different depths.
    """
    frame, level = sys._getframe(0), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)
