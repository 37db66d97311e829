"""Values of the ``evaluate`` and ``sweep`` options, read here rather than by argparse so that every bad value is
reported the same way: one line naming the option as typed, exit status 2.

A list option takes comma-separated entries; an empty entry or a repeated value is an error rather than skipped or
run twice (a repeat would be computed twice and written as duplicate rows).
"""

from __future__ import annotations

from .._validation import check_knn, check_positive_int
from ..rules.options import typed_value


def join(values) -> str:
    """``values`` as one comma-separated default (``None`` is ``auto``)."""
    return ",".join("auto" if v is None else f"{v:g}" if isinstance(v, float) else str(v) for v in values)


def parts(text: str, option: str) -> list[str]:
    """The comma-separated entries of ``text``; an empty one (``0.1,,0.2``, a trailing comma) is an error, not skipped."""
    entries = [part.strip() for part in text.split(",")]
    if not any(entries):
        raise ValueError(f"{option}: expected at least one value, got {text!r}")
    if not all(entries):
        raise ValueError(f"{option}: empty entry in {text!r}; expected comma-separated values")
    return entries


def once(values: list, text: str, option: str) -> list:
    """``values`` (read from ``text``) unchanged; a value given twice (``0.1,0.10`` too) is an error naming it."""
    seen = set()
    for value in values:
        if value in seen:
            shown = "auto" if value is None else f"{value:g}" if isinstance(value, float) else str(value)
            raise ValueError(f"{option}: {shown} given more than once in {text!r}; give each value once")
        seen.add(value)
    return values


def floats(text: str, option: str) -> list[float]:
    """Comma-separated numbers, each given once."""
    entries = parts(text, option)
    try:
        return once([float(part) for part in entries], text, option)
    except ValueError as exc:
        if str(exc).startswith(option):
            raise
        raise ValueError(f"{option}: expected comma-separated numbers, got {text!r}") from None


def number(text: str, option: str) -> float:
    """One number (a list is refused rather than cut to its first entry)."""
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{option}: expected one number, got {text!r}") from None


def count(text: str | None, option: str, *, minimum: int = 1) -> int | None:
    """One integer >= ``minimum`` (``2.0`` is 2, as in the API), or ``None`` when the option was not given."""
    return None if text is None else check_positive_int(typed_value(text.strip()), option, minimum=minimum)


def counts(text: str, option: str, *, auto: bool = False) -> list[int | None]:
    """Comma-separated integers >= 1 (``2.0`` is 2), each given once; with ``auto``, kNN sizes (``auto`` is ``None``),
    read by the API's own check so that a bad value gets one message."""
    check = check_knn if auto else check_positive_int
    return once([check(typed_value(part), option) for part in parts(text, option)], text, option)
