"""The dashboard's rule-option controls, generated from the declared options.

Every option a registered rule declares (:func:`jecs_core.rules.declared_options`) with
``shown`` set gets a widget drawn from its ``Option.widget_spec()`` (an Auto / Manual switch
where its default is automatic, then a slider for a number, a number input for an integer, a
text input for a grid) and a URL query key (``Option.url_key``: ``lam`` and ``knn`` for the
paper's JECS).  The chosen values travel as one :class:`RuleSettings`: hashable (a cache key
of ``st.cache_resource``) and a mapping (``compare_pvalues(p, alpha=a, **settings)``), so the
computations, the export's sidecar and the report receive it unchanged.  A new rule's option
appears here with no edit to this module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import streamlit as st

from jecs_core import REGISTRY, JECSFit, Option
from jecs_core.rules import declared_options

AUTO, MANUAL = "Auto", "Manual"


@dataclass(frozen=True)
class RuleSettings(Mapping):
    """The value of every declared rule option, as the dashboard's controls set it.

    Attributes
    ----------
    pairs : tuple of (str, object)
        ``(option name, value)`` in declaration order; ``"auto"`` / ``None`` for an automatic choice.
    """

    pairs: tuple[tuple[str, object], ...] = ()

    def __getitem__(self, name: str):
        for key, value in self.pairs:
            if key == name:
                return value
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return (key for key, _ in self.pairs)

    def __len__(self) -> int:
        return len(self.pairs)

    def for_rule(self, method: str) -> dict:
        """The options the rule ``method`` takes (``Rule.accepted``): another rule's never reach it."""
        return REGISTRY[method].accepted(self)


def defaults() -> RuleSettings:
    """Every declared option at its default."""
    return RuleSettings(tuple((name, option.default) for name, (option, _) in declared_options().items()))


def shown_options() -> tuple[Option, ...]:
    """The declared options that get a control, in registry order."""
    return tuple(option for option, _ in declared_options().values() if option.shown)


def value_key(option: Option) -> str:
    """Session-state key of the option's value widget (``jecs.lam``, ``jecs.knn``, ...)."""
    return f"jecs.{option.name}"


def mode_key(option: Option) -> str:
    """Session-state key of the option's Auto / Manual switch (``jecs.lam_mode``, ...)."""
    return f"jecs.{option.name}_mode"


def session_defaults() -> dict:
    """First values of every control's session keys (kept across page switches by the frame)."""
    found = {}
    for option in shown_options():
        spec = option.widget_spec()
        if spec["switch"]:
            found[mode_key(option)] = AUTO
        found[value_key(option)] = option.to_url(spec["start"]) if spec["kind"] == "grid" else spec["start"]
    return found


def _automatic(option: Option):
    return "auto" if option.auto else None


def current(values: Mapping | None = None) -> RuleSettings:
    """The settings the controls hold now (defaults for options without a control or not yet set).

    ``values`` stands in for the session state (e.g. :func:`session_defaults`: a new session's settings).
    """
    s = st.session_state if values is None else values
    values = dict(defaults().pairs)
    for option in shown_options():
        spec = option.widget_spec()
        if spec["switch"] and s.get(mode_key(option), AUTO) == AUTO:
            values[option.name] = _automatic(option)
        elif value_key(option) in s:
            values[option.name] = _manual_value(option, s[value_key(option)])
    return RuleSettings(tuple(values.items()))


def _manual_value(option: Option, raw):
    if option.widget == "grid":
        try:
            return option.from_url(str(raw))
        except ValueError:
            return option.default  # the control shows why under the input
    return int(raw) if option.widget == "int" else float(raw)


def restore_from_url(query: Mapping) -> list[str]:
    """Set each control from its URL key when the value is one the control can show; returns the keys ignored."""
    s, ignored = st.session_state, []
    for option in shown_options():
        text = query.get(option.url_key)
        if text is None:
            continue
        spec = option.widget_spec()
        if text == "auto" and spec["switch"]:
            s[mode_key(option)] = AUTO
            continue
        try:
            value = option.from_url(str(text))
        except ValueError:
            ignored.append(option.url_key)
            continue
        if option.widget in ("number", "int"):
            if not spec["low"] <= value <= spec["high"]:
                ignored.append(option.url_key)
                continue
            if option.widget == "number":  # the slider's grid
                value = round(round(value / spec["step"]) * spec["step"], 10)
        else:
            value = option.to_url(value)
        if spec["switch"]:
            s[mode_key(option)] = MANUAL
        s[value_key(option)] = value
    return ignored


def usable(settings: RuleSettings, check: Callable[[RuleSettings], object]) -> tuple[RuleSettings, str | None]:
    """``(settings, None)`` when ``check(settings)`` accepts them, else settings ``check`` accepts and why.

    An option can be valid on its own yet not on this table (a k_n above the number of test items,
    from a link or a switch of data set). The first option set away from its default whose default
    alone makes ``check`` raise no ``ValueError`` goes back to it; failing that, every one does.
    """
    try:
        check(settings)
        return settings, None
    except ValueError as exc:
        reason = " ".join(str(exc).split())
    chosen, default = dict(settings.pairs), dict(defaults().pairs)
    moved = [name for name in chosen if name in default and chosen[name] != default[name]]
    for reset in [[name] for name in moved] + ([moved] if len(moved) > 1 else []):
        candidate = RuleSettings(tuple((name, default[name] if name in reset else value)
                                       for name, value in chosen.items()))
        try:
            check(candidate)
        except ValueError:
            continue
        return candidate, f"{reason}: using the default {', '.join(reset)} on this table"
    return settings, None  # no option is to blame: the caller's own error handling reports it


def clipped_notes(settings: RuleSettings, fits: Mapping[str, object]) -> list[str]:
    """What a fit used in place of an option it could not take as set: a k_n above the values in the
    chosen tail is cut to them (the library says so in a warning the page would not show)."""
    fit = fits.get("jecs")
    knn, envelope = dict(settings.pairs).get("knn"), fit.envelope if isinstance(fit, JECSFit) else None
    if knn is None or envelope is None or envelope.k_n >= knn:
        return []
    return [f"k_n = {knn} is more than the {envelope.k_n} max-p values above λ = {envelope.lam:g}; the paper's JECS "
            f"uses k_n = {envelope.k_n}"]


def url_values(settings: RuleSettings) -> dict[str, str]:
    """The URL query text of every shown option (``auto`` for an automatic choice)."""
    return {option.url_key: option.to_url(settings[option.name]) for option in shown_options()}


def render(slots: Sequence) -> RuleSettings:
    """Draw one control per shown option, the i-th in ``slots[i]`` (later ones in the last slot), and
    return the settings they hold."""
    s = st.session_state
    for key, first in session_defaults().items():
        if key not in s:
            s[key] = first
    options = shown_options()
    for index, option in enumerate(options):
        _control(slots[min(index, len(slots) - 1)], option)
    return current()


def _control(slot, option: Option) -> None:
    spec = option.widget_spec()
    s = st.session_state
    if spec["switch"]:
        slot.radio(spec["auto_label"], [AUTO, MANUAL], key=mode_key(option), horizontal=True, help=spec["help"])
        if s[mode_key(option)] == AUTO:
            return
    key = value_key(option)
    if spec["kind"] == "int":
        slot.number_input(spec["label"], min_value=int(spec["low"]), max_value=int(spec["high"]),
                          step=int(spec["step"]), key=key, help=spec["help"])
    elif spec["kind"] == "grid":
        slot.text_input(spec["label"], key=key, help=spec["help"])
        try:
            option.from_url(str(s[key]))
        except ValueError as exc:
            slot.error(f"{exc}; using the default", icon=":material/error:")
    else:
        slot.slider(spec["label"], min_value=float(spec["low"]), max_value=float(spec["high"]),
                    step=float(spec["step"]), format="%.2f", key=key, help=spec["help"])


__all__ = ["AUTO", "MANUAL", "RuleSettings", "current", "defaults", "mode_key", "render", "restore_from_url",
           "session_defaults", "shown_options", "url_values", "usable", "value_key"]
