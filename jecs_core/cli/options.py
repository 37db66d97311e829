"""Public argparse types and option groups shared by every layer's subcommands."""

from __future__ import annotations

import argparse

from .._validation import (
    check_alpha,
    check_at_most_n,
    check_finite,
    check_fraction,
    check_positive_int,
    check_positive_number,
)
from ..rules.options import LAM, typed_value


def _typed(text: str, convert, check, expected: str, *args, **kwargs):
    """Parse ``text`` with ``convert`` and check it with the shared validator; errors become argparse's."""
    try:
        value = convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
    try:
        return check(value, *args, **kwargs)
    except ValueError as exc:  # argparse names the flag itself: "argument --alpha: must be ..."
        raise argparse.ArgumentTypeError(str(exc).removeprefix("value ")) from None


def alpha_arg(text: str) -> float:
    """A number in (0, 1)."""
    return _typed(text, float, check_alpha, "a number in (0, 1)", "value")


def check_outputs(flags, *, inputs=()) -> None:
    """Each given ``(flag, path)`` output checked before any work (extension, directory, not an input),
    and no two flags naming the same file."""
    from ..io import check_output_path

    written = {}
    for flag, out in flags:
        if out:
            path = check_output_path(out, inputs=inputs, what=flag).resolve()
            if path in written:
                raise ValueError(f"{written[path]} and {flag} name the same file {out}; give each its own")
            written[path] = flag


def seed_arg(text: str) -> int:
    """A non-negative integer (the API's ``None``, fresh entropy, has no flag: a run is reproducible)."""
    return _typed(text, typed_value, check_positive_int, "an integer >= 0", "value", minimum=0)


def interval_arg(*, include_zero: bool, include_one: bool):
    """An argparse type for a number in [0, 1] with each end closed or open (:func:`fraction_arg`: both closed)."""
    def parse(text: str) -> float:
        return _typed(text, float, check_fraction, "a number", "value", include_zero=include_zero,
                      include_one=include_one)
    return parse


def finite_arg(text: str) -> float:
    """A finite number."""
    return _typed(text, float, check_finite, "a number", "value")


def lam_arg(text: str):
    """``auto`` or a number in (0, 1)."""
    return LAM.parse(text)


def positive_int(text: str) -> int:
    """An integer >= 1."""
    return _typed(text, typed_value, check_positive_int, "a positive integer", "value")


def int_at_least(minimum: int):
    """An argparse type for an integer >= ``minimum`` (:func:`positive_int`: ``minimum = 1``)."""
    def parse(text: str) -> int:
        return _typed(text, typed_value, check_positive_int, f"an integer >= {minimum}", "value", minimum=minimum)
    return parse


def add_table_options(parser: argparse.ArgumentParser) -> None:
    """Options every command that reads a score table takes."""
    parser.add_argument("scores", help="score table (.csv or .parquet), wide or long layout")
    parser.add_argument(
        "--layout", choices=("auto", "wide", "long"), default="auto", help="table layout (default: detect from the columns)"
    )
    parser.add_argument(
        "--lower-is-member",
        action="store_true",
        help="the file's scores run the other way (smaller = more member-like, e.g. raw perplexity); negate them",
    )


def fraction_arg(text: str) -> float:
    """A number in [0, 1]."""
    return _typed(text, float, check_fraction, "a number in [0, 1]", "value")


def positive_float(text: str) -> float:
    """A number > 0."""
    return _typed(text, float, check_positive_number, "a positive number", "value")


def alphas_arg(text: str) -> tuple[float, ...]:
    """A comma-separated list of alphas, each in (0, 1) and given once (a repeat would be run and reported twice)."""
    alphas = tuple(alpha_arg(part.strip()) for part in text.split(","))
    repeated = next((alpha for i, alpha in enumerate(alphas) if alpha in alphas[:i]), None)
    if repeated is not None:
        raise argparse.ArgumentTypeError(f"{repeated:g} given more than once in {text!r}; give each value once")
    return alphas


def add_post_hoc_delta(parser: argparse.ArgumentParser) -> None:
    """``--post-hoc-delta``: the error level of the post-hoc bound (select, leaderboard, report)."""
    parser.add_argument("--post-hoc-delta", type=alpha_arg, default=0.1,
                        help="error level of the post-hoc bound on contaminated items in the subset, which holds even "
                        "for an alpha picked after looking (default 0.1: 90%% confidence)")


def parsed_covariates(text: str | None):
    """``--covariates`` read: ``None``, ``"all"`` or a tuple of names; a bad list is a ``ValueError`` naming the flag
    (one line from ``jecs``, where an argparse type would print the usage too)."""
    if text is None:
        return None
    from ..shift.table import parse_covariates  # numpy and the shift tools: only when the flag is given

    try:
        return parse_covariates(text)
    except ValueError as exc:
        raise ValueError(f"--covariates: {exc}") from None


def parse_shift_args(args) -> None:
    """Read ``--covariates`` and settle ``--shift-method`` in ``args``, before any work.

    A method other than ``none`` given without ``--covariates`` would do nothing, while the record
    written with the selection would name it: refused, naming both flags.
    """
    args.covariates = parsed_covariates(args.covariates)
    if args.covariates is None and args.shift_method not in (None, "none"):
        raise ValueError(f"--shift-method {args.shift_method}: says how --covariates are used, and none are given; "
                         "name the covariate columns with --covariates, or leave --shift-method out")
    args.shift_method = args.shift_method or "auto"


def covariate_fields(covariates, shift_method: str) -> dict:
    """The covariates (``--covariates``, already read) and the method (``--shift-method``) as a selection record
    holds them, from the command line or the dashboard: the covariates as ``None``, ``"all"`` or a list of names."""
    return {"covariates": None if covariates is None else covariates if covariates == "all" else list(covariates),
            "shift_method": shift_method}


def add_shift_options(parser: argparse.ArgumentParser, *, note: str = "") -> None:
    """``--covariates`` (read with :func:`parsed_covariates`) and ``--shift-method``: p-values that account for a
    calibration shift (select, leaderboard, report)."""
    from ..shift.methods import SHIFT_METHODS

    parser.add_argument("--covariates", default=None,
                        help="covariate columns (x_len,x_src or len,src, or 'all') for p-values that account for a "
                        f"calibration shift (docs/CALIBRATION-SHIFT.md){note}. Default: plain p-values")
    parser.add_argument("--shift-method", choices=SHIFT_METHODS, default=None,  # None: not given (auto)
                        help="how the --covariates are used: auto (documented rule), weighted, residual, none (default auto; "
                        "with --covariates only)")


def add_rule_options(parser: argparse.ArgumentParser, *, skip: tuple[str, ...] = ()) -> None:
    """One flag per declared rule option (:func:`jecs_core.rules.declared_options`), generated from its declaration.

    The flag's value reaches only the rules that declare the option; its help names them. ``skip`` names
    options the command sets otherwise (a sweep's varied option).
    """
    from ..rules import REGISTRY, declared_options

    group = parser.add_argument_group("rule options (each reaches only the rules named in its help)")
    for option, owners in declared_options().values():
        if option.flag is None or option.name in skip:
            continue
        labels = ", ".join(REGISTRY[name].label for name in owners)
        group.add_argument(option.flag, dest=option.name, type=option.parse, default=option.default,
                           help=f"{option.help} [taken by: {labels}; default {_shown(option.default)}]")


def rule_options(args: argparse.Namespace, table=None) -> dict:
    """The declared rule options' values from parsed ``args`` (one dict for the rules, the sidecar and the report).

    With the ``table`` read, a count that may not exceed its test items is checked, naming the flag.
    """
    from ..rules import declared_options

    chosen = {}
    for name, (option, _) in declared_options().items():
        if option.flag is None or not hasattr(args, name):
            continue
        value = chosen[name] = getattr(args, name)
        if table is not None and option.at_most_n and isinstance(value, int):
            check_at_most_n(value, table.n, option.flag, of=table.source)
    return chosen


def _shown(value) -> str:
    if isinstance(value, tuple):
        return ",".join(f"{v:g}" for v in value)
    return "automatic" if value is None else str(value)
