"""Declared rule options: each rule lists the options it takes as :class:`Option` objects.

An option is declared once (name, default, the validator of its kind, help text) and
everything else is generated from the declaration: the CLI flag (:func:`add_rule_options`
in ``jecs_core/cli/options.py``), the dashboard widget and URL key, and the export
sidecar's ``options`` block.  An option belongs to the rules that declare it; a value
given for it never reaches a rule that does not (``Rule.accepted``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass, field

from .._validation import check_knn, check_lam, check_lambda, check_lambda_grid
from ..envelope import DEFAULT_LAMBDA_GRID


@dataclass(frozen=True)
class Option:
    """One rule option.

    Attributes
    ----------
    name : str
        Keyword passed to the rule's ``run`` / ``fit`` and key in the sidecar's ``options``.
    default : object
        Value used when none is given.
    check : callable
        ``check(value, name)`` returns the validated value or raises a one-line ``ValueError``
        (one of the validators in ``jecs_core/_validation.py``).
    help : str
        One sentence for the CLI help and the dashboard's tooltip.
    flag : str or None
        The CLI flag (default ``--`` + name with dashes); ``None``: no flag.
    widget : str
        Dashboard widget kind: ``"number"`` (a number input, or "auto"), ``"int"`` or ``"none"``.
    low, high, step : float
        The widget's range and step (numbers only).
    url_key : str
        Query-parameter key of the dashboard's URL (default: the name).
    auto : bool
        ``"auto"`` is a value of its own (a data-driven choice); the widget offers Auto / Manual.
    label : str
        The widget's short label (default: the name).
    auto_label : str
        The label of the widget's Auto / Manual switch (default: the label).
    start : object
        The widget's first manual value where the default is automatic (``"auto"`` or ``None``).
    shown : bool
        Whether the dashboard shows a control for it (the URL key is read only when shown).
    at_most_n : bool
        A count that may not exceed the table's test items (checked once the table is read).
    """

    name: str
    default: object
    check: Callable
    help: str
    flag: str | None = ""
    widget: str = "number"
    low: float = 0.0
    high: float = 1.0
    step: float = 0.01
    url_key: str = ""
    auto: bool = field(default=False)
    label: str = ""
    auto_label: str = ""
    start: object = None
    shown: bool = True
    at_most_n: bool = False

    def __post_init__(self):
        if self.flag == "":
            object.__setattr__(self, "flag", "--" + self.name.replace("_", "-"))
        if not self.url_key:
            object.__setattr__(self, "url_key", self.name)
        if not self.label:
            object.__setattr__(self, "label", self.name)
        if not self.auto_label:
            object.__setattr__(self, "auto_label", self.label)

    def validate(self, value):
        """``value`` checked by the option's validator (``None`` is the default)."""
        return self.default if value is None else self.check(value, self.name)

    def widget_spec(self) -> dict:
        """What a dashboard control needs: kind, range, step, default, labels, help and URL key.

        ``switch`` is True when the default is automatic (``"auto"`` or ``None``): the control is an
        Auto / Manual switch, and ``start`` the first manual value.
        """
        switch = self.auto or self.default is None
        start = self.start if self.start is not None else (self.low if switch else self.default)
        return {"name": self.name, "kind": self.widget, "low": self.low, "high": self.high, "step": self.step,
                "default": self.default, "auto": self.auto, "help": self.help, "url_key": self.url_key,
                "label": self.label, "auto_label": self.auto_label, "switch": switch, "start": start,
                "shown": self.shown}

    def to_url(self, value) -> str:
        """The value as its URL query text (``auto`` for the automatic default)."""
        if value is None or value == "auto":
            return "auto"
        if isinstance(value, tuple):
            return ",".join(f"{v:g}" for v in value)
        return f"{value:g}" if isinstance(value, float) else str(value)

    def from_url(self, text: str):
        """The value a URL query text stands for, validated; ``ValueError`` when it is not one."""
        if text == "auto" and (self.auto or self.default is None):
            return "auto" if self.auto else None
        return self.check(_from_text(text, self), self.name)

    def parse(self, text: str):
        """The argparse type of the flag: the validator applied to the typed text."""
        try:
            value = _from_text(text, self)
            return self.check(value, self.name)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None


def typed_value(text: str):
    """The value ``text`` spells: an int (``3``), a float (``3.0``, ``0.5``) or the text itself (``auto``, ``0.6x``),
    for the option's validator to accept or refuse, so the command line and the API give one message."""
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return text


def _from_text(text: str, option: Option):
    if option.widget == "grid":
        return tuple(typed_value(part.strip()) for part in text.split(","))
    return typed_value(text)


LAM = Option(
    name="lam", default="auto", check=check_lam, auto=True, low=0.05, high=0.95, step=0.05, start=0.7,
    label="λ", auto_label="Tail threshold λ",
    help="paper JECS only: right-tail threshold lambda, 'auto' (data-driven, default) or a number in (0, 1)",
)
KNN = Option(
    name="knn", default=None, check=check_knn, widget="int", low=1, high=100_000, step=1, start=10, at_most_n=True,
    label="k_n", auto_label="kNN size k_n",
    help="paper JECS only: kNN size k_n of the boundary density, a positive integer or 'auto' "
    "(default: ceil(sqrt(m_R))); at most n",
)
# Not on the dashboard: the grid is an expert setting of the CLI and the API (the page's
# lambda-grid figure shows the default grid's table).
LAMBDA_GRID = Option(
    name="lambda_grid", default=DEFAULT_LAMBDA_GRID, check=check_lambda_grid, widget="grid", shown=False,
    help="paper JECS only: candidate lambdas for lam='auto', comma-separated",
)
# Not on the dashboard: storey-maxp's guarantee needs lambda fixed before the data is seen, and a
# control beside the cards invites tuning it on them.
STOREY_LAM = Option(
    name="storey_lam", default=0.5, check=check_lambda, shown=False,
    help="Storey-BH on max-p only: its fixed lambda in (0, 1), default 0.5; the cap correction c(n) is "
    "computed for that lambda, which must be chosen before looking at the data",
)

__all__ = ["KNN", "LAM", "LAMBDA_GRID", "STOREY_LAM", "Option", "typed_value"]
