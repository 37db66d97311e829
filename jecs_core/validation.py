"""The argument checks of :mod:`jecs_core`, for the layers above it (scoring, the dashboard, the build).

One validator per kind of value; each returns the checked value or raises a one-line
``ValueError`` naming the argument.  The implementations live in ``jecs_core/_validation.py``
(the core's own modules import them from there); this module is the public doorway, so code
outside ``jecs_core`` never imports a private module.

==========================  ==============================================================
``check_alpha``             a level in (0, 1)
``check_fraction``          a share in [0, 1] (``include_zero`` / ``include_one`` to open an end)
``check_positive_int``      an integer at least ``minimum`` (bools refused)
``check_positive_number``   a finite number > 0
``check_seed``              ``None`` or a non-negative integer
``check_rng``               a ``numpy.random.Generator`` (``None`` -> a fresh one where allowed)
==========================  ==============================================================

Examples
--------
>>> from jecs_core.validation import check_fraction
>>> check_fraction(0.25, "share")
0.25
>>> check_fraction("0.25", "share")
Traceback (most recent call last):
...
ValueError: share must be a number in [0, 1], got '0.25'
"""

from __future__ import annotations

from ._validation import (
    check_alpha,
    check_fraction,
    check_positive_int,
    check_positive_number,
    check_rng,
    check_seed,
)

__all__ = ["check_alpha", "check_fraction", "check_positive_int", "check_positive_number", "check_rng", "check_seed"]
