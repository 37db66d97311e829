"""``jecs evaluate`` and ``jecs sweep``: the paper's Monte-Carlo protocol from the command line.

Numbers are parsed here rather than by argparse so that every bad value is
reported the same way: one line naming the option, exit status 2.
"""

from __future__ import annotations

import argparse
import sys

from .._validation import (
    check_at_most_n,
    check_finite,
    check_fraction,
    check_lambda,
)
from ..evaluate.defaults import DEFAULT_SWEEP_KNNS, DEFAULT_SWEEP_LAMBDAS, DEFAULT_SWEEP_RHOS, methods_taking
from ..rules import METHODS
from .options import add_rule_options, add_table_options, check_outputs, rule_options
from .progress import add_progress_option, progress_bar
from .run_options import run_options
from .values import count, counts, floats, join, number


def _digits(args: argparse.Namespace) -> int:
    digits = count(args.digits, "--digits", minimum=0)
    if digits > 10:
        raise ValueError(f"--digits must be in 0..10, got {digits}")
    return digits


def _write(frame, out: str | None, inputs=()) -> None:
    # The one table writer: .csv or .parquet only, atomic, spreadsheet-safe cells, never over an input.
    if not out:
        return
    from ..io import write_table

    path = write_table(frame, out, inputs=inputs)
    print(f"wrote {path} ({len(frame)} rows)")


def _add_run_options(parser: argparse.ArgumentParser, *, alphas: str, methods: str) -> None:
    parser.add_argument("--alphas", default=alphas, help=f"comma-separated target levels in (0, 1) (default {alphas})")
    parser.add_argument("--reps", default="500", help="Monte-Carlo repetitions (default 500, as in the paper)")
    parser.add_argument("--seed", default="0", help="seed of the subsample draws (default 0); results do not depend on --workers")
    parser.add_argument("--methods", "--method", dest="methods", default=methods,
                        help=f"comma-separated registered rules, any of {','.join(METHODS)}, or all (default {methods})")
    parser.add_argument("--draw-fraction", default="0.8", help="share of calibration and of test items drawn per repetition (default 0.8)")
    parser.add_argument("--workers", default=None, help="threads (default: every core); the numbers do not depend on it")
    parser.add_argument("--out", default=None, help="write the tidy results (one row per setting x method x alpha) to this .csv or .parquet")
    parser.add_argument("--digits", default="3", help="decimals printed for means and standard errors (default 3)")
    add_progress_option(parser)


def register(subparsers) -> None:
    """Add ``evaluate`` and ``sweep`` (with its four kinds) to ``subparsers``."""
    _register_evaluate(subparsers)
    _register_sweeps(subparsers)


def _register_evaluate(subparsers) -> None:
    parser = subparsers.add_parser(
        "evaluate",
        help="Monte-Carlo GCP and power of every registered rule on a labelled score table",
        description="Repeat the paper's protocol on a labelled score table (member_<model> columns): each repetition "
        "draws 80% of the calibration and 80% of the test items without replacement and runs the chosen rules at "
        "every alpha. Prints mean GCP and power with standard errors (std/sqrt(reps), ddof=1); a dagger marks a mean "
        "GCP above its alpha. Those standard errors cover subsampling noise on this one table only; --twin adds the "
        "unconditional estimate over fresh synthetic tables matched to this audit.",
    )
    add_table_options(parser)
    _add_run_options(parser, alphas="0.1,0.2,0.3", methods=",".join(METHODS))
    add_rule_options(parser)
    parser.add_argument("--per-rep-out", default=None,
                        help="also write every repetition's GCP, power and selection size (.csv or .parquet)")
    parser.add_argument("--twin", action="store_true",
                        help="also estimate each rule's unconditional GCR on fresh synthetic tables matched to this "
                        "audit (needs no labels; seconds), printed beside the protocol's numbers")
    parser.add_argument("--twin-tables", default=None, help="with --twin: fresh twin tables per exposure pattern "
                        "(default 200)")
    parser.add_argument("--twin-out", default=None, help="with --twin: write the twin summary (.csv or .parquet)")
    parser.set_defaults(handler=run_evaluate)


def _register_sweeps(subparsers) -> None:
    sweep = subparsers.add_parser(
        "sweep",
        help="sensitivity sweeps of GCP and power: lambda, knn, k (models) or rho (training fraction)",
        description="Repeat the evaluation protocol over one parameter and print one block per alpha "
        "(rows: setting x method). 'lambda', 'knn' and 'k' read a labelled score table; 'rho' builds "
        "its tables with the three-block generator (see 'jecs sweep rho --help').",
    )
    kinds = sweep.add_subparsers(dest="parameter", metavar="PARAMETER", required=True)

    lam = kinds.add_parser("lambda", help="fixed right-tail thresholds lambda plus the data-driven choice",
                           description="JECS at fixed lambdas and with the data-driven lambda, on the same repetitions; "
                           "JMCS (lambda-free) is repeated on every row as a reference.")
    add_table_options(lam)
    lam.add_argument("--lambdas", default=join(DEFAULT_SWEEP_LAMBDAS), help="fixed lambdas (default %(default)s)")
    lam.add_argument("--no-auto", action="store_true", help="leave out the data-driven lambda")
    add_rule_options(lam, skip=("lam",))
    _add_run_options(lam, alphas="0.1", methods=",".join(methods_taking("lam")))
    lam.set_defaults(handler=run_sweep)

    knn = kinds.add_parser("knn", help="kNN size k_n of the boundary density",
                           description="JECS with several kNN sizes k_n ('auto' = ceil(sqrt(m_R))), on the same repetitions.")
    add_table_options(knn)
    knn.add_argument("--knns", default=join(DEFAULT_SWEEP_KNNS), help="kNN sizes, 'auto' allowed (default %(default)s)")
    add_rule_options(knn, skip=("knn",))
    _add_run_options(knn, alphas="0.1", methods=",".join(methods_taking("knn")))
    knn.set_defaults(handler=run_sweep)

    models = kinds.add_parser("k", help="number of audited models K (the table's first K models)",
                              description="Evaluate on the first K models of the table for each K; every K uses the same seed.")
    add_table_options(models)
    models.add_argument("--ks", default=None, help="values of K (default 2, 4, 8, ... up to and including the table's K)")
    add_rule_options(models)
    _add_run_options(models, alphas="0.1", methods=",".join(METHODS))
    models.set_defaults(handler=run_sweep)

    _register_rho(kinds)


def _register_rho(kinds) -> None:
    rho = kinds.add_parser(
        "rho", help="training fraction rho of the three-block split (synthetic pool)",
        description="For each rho, build a synthetic audit with the paper's three-block split (clean block a, "
        "calibration block b = members of every model, remainder where each model takes a fraction rho) and scores "
        "mu*M + noise (noise N(0,1) with correlation --correlation across models), then evaluate it. Takes no score "
        "table: the membership labels depend on rho, so the scores must be regenerated. Every rho uses the same "
        "--pool-seed and --seed.",
    )
    rho.add_argument("--rhos", default=join(DEFAULT_SWEEP_RHOS), help="training fractions in [0, 1] (default %(default)s)")
    rho.add_argument("--pool-size", default="789", help="items in the pool (default 789, WikiMIA's size)")
    rho.add_argument("--models", default="16", help="number of models K (default 16)")
    rho.add_argument("--mu", default="4.0", help="member score shift (default 4.0)")
    rho.add_argument("--correlation", default="0.0", help="noise correlation across models in [0, 1] (default 0)")
    rho.add_argument("--clean-fraction", default="0.3", help="clean block fraction a (default 0.3)")
    rho.add_argument("--calibration-fraction", default="0.3", help="calibration block fraction b (default 0.3)")
    rho.add_argument("--pool-seed", default="0", help="seed of the pool generator (default 0)")
    add_rule_options(rho)
    _add_run_options(rho, alphas="0.1", methods=",".join(METHODS))
    rho.set_defaults(handler=run_sweep)


def _twin_tables(args: argparse.Namespace) -> int:
    for flag, given in (("--twin-tables", args.twin_tables), ("--twin-out", args.twin_out)):
        if given is not None and not args.twin:
            raise ValueError(f"{flag}: applies to the twin estimate, which runs only with --twin; add --twin")
    tables = count(args.twin_tables or "200", "--twin-tables", minimum=0)
    if tables < 2:
        raise ValueError(f"--twin-tables: tables must be at least 2, got {tables}")
    return tables


def run_evaluate(args: argparse.Namespace) -> int:
    # pandas- and scipy-heavy: imported when the command runs, so `jecs evaluate --help` stays quick.
    from ..data import load_scores
    from ..diagnostics import twin_evaluate
    from ..evaluate import evaluate, format_evaluation, format_twin_comparison

    options = run_options(args)
    twin_tables = _twin_tables(args)  # checked before the protocol runs
    check_outputs((("--out", args.out), ("--twin-out", args.twin_out), ("--per-rep-out", args.per_rep_out)),
                  inputs=(args.scores,))
    table = load_scores(args.scores, layout=args.layout, lower_is_member=args.lower_is_member)
    if args.twin and (table.m < 2 or table.n < 2):  # before the protocol, whose results would be lost
        raise ValueError(f"--twin: a twin needs at least 2 calibration and 2 test items, got m={table.m}, n={table.n}")
    chosen = rule_options(args, table)
    for line in dict.fromkeys(line for alpha in options["alphas"] for line in table.warnings(alpha)):
        print(f"jecs evaluate: {line}", file=sys.stderr)
    with progress_bar(args, desc="repetitions", unit="rep") as progress:
        result = evaluate(table, **chosen, **options, progress=progress)
    print(format_evaluation(result, source=args.scores, digits=_digits(args)))
    if args.twin:
        with progress_bar(args, desc="twin tables", unit="table") as progress:
            twin = twin_evaluate(table, alphas=options["alphas"], tables=twin_tables, seed=options["seed"],
                                 methods=options["methods"], **chosen, progress=progress)
        print()
        print(format_twin_comparison(result, twin, digits=_digits(args)))
        _write(twin.summary, args.twin_out, inputs=(args.scores,))
    _write(result.summary, args.out, inputs=(args.scores,))
    if args.per_rep_out:
        _write(result.per_rep_frame(), args.per_rep_out, inputs=(args.scores,))
    return 0


def _rho_table_factory(args: argparse.Namespace):
    """``make_table(rho)`` for the rho sweep, from the generator options."""
    import numpy as np

    from jecs_core.simulate.scenarios import three_block
    from jecs_core.simulate.split import block_sizes

    params = {
        "pool_size": count(args.pool_size, "--pool-size", minimum=2),
        "n_models": count(args.models, "--models"),
        "mu": check_finite(number(args.mu, "--mu"), "--mu"),
        "correlation": check_fraction(number(args.correlation, "--correlation"), "--correlation"),
        "clean_fraction": check_fraction(number(args.clean_fraction, "--clean-fraction"), "--clean-fraction"),
        "calibration_fraction": check_fraction(number(args.calibration_fraction, "--calibration-fraction"),
                                               "--calibration-fraction"),
    }
    # The three blocks, checked before any table is built.
    block_sizes(params["pool_size"], clean_fraction=params["clean_fraction"],
                calibration_fraction=params["calibration_fraction"],
                names={key: "--" + key.replace("_", "-") for key in ("pool_size", "clean_fraction", "calibration_fraction")})
    pool_seed = count(args.pool_seed, "--pool-seed", minimum=0)
    return lambda rho: three_block(np.random.default_rng(pool_seed), rho=rho, **params)


def _checked(frame, args: argparse.Namespace):
    """The generated ``frame`` as a table, once the rule options a table bounds (a k_n at most its n) fit it."""
    from ..data import table_from_frame

    table = table_from_frame(frame, source=f"the rho sweep's table ({len(frame):,} items)")
    rule_options(args, table)
    return table


def run_sweep(args: argparse.Namespace) -> int:
    from ..evaluate import format_sweep
    from ..io import check_output_path

    options = run_options(args)
    if args.out:
        check_output_path(args.out, inputs=tuple(p for p in [getattr(args, "scores", None)] if p), what="--out")
    with progress_bar(args, desc=f"sweep {args.parameter}", unit="rep") as progress:
        frame = _sweep(args, progress=progress, **options)
    print(format_sweep(frame, digits=_digits(args)))
    _write(frame, args.out)
    return 0


def _sweep(args: argparse.Namespace, **options):
    """The sweep ``args.parameter`` names, with the run options ``options``."""
    from ..data import load_scores
    from ..evaluate import sweep_k, sweep_knn, sweep_lambda, sweep_rho

    if args.parameter == "rho":
        rhos = [check_fraction(rho, "--rhos") for rho in floats(args.rhos, "--rhos")]
        make = _rho_table_factory(args)
        return sweep_rho(lambda rho: _checked(make(rho), args), rhos=rhos, **rule_options(args), **options)
    if args.parameter == "lambda":  # range-checked before the table is read
        lambdas = [check_lambda(value, "--lambdas") for value in floats(args.lambdas, "--lambdas")]
    settings = counts(args.knns, "--knns", auto=True) if args.parameter == "knn" else None
    ks = counts(args.ks, "--ks") if args.parameter == "k" and args.ks is not None else None
    table = load_scores(args.scores, layout=args.layout, lower_is_member=args.lower_is_member)
    chosen = rule_options(args, table)  # a count above the table's n, named by its flag
    if args.parameter == "lambda":
        return sweep_lambda(table, lambdas=lambdas, include_auto=not args.no_auto, **chosen, **options)
    if args.parameter == "knn":
        for knn in settings:
            if knn is not None:
                check_at_most_n(knn, table.n, "--knns", of=args.scores)
        return sweep_knn(table, knns=settings, **chosen, **options)
    too_big = [k for k in ks or () if k > table.K]
    if too_big:
        raise ValueError(f"--ks: K={too_big[0]} is larger than the table's {table.K} models ({', '.join(table.models)})")
    return sweep_k(table, ks=ks, **chosen, **options)
