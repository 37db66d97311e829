"""``jecs report SCORES --out report.html``: the Select page's audit report from the command line.

The lead mounts :func:`register` in the top-level ``jecs`` parser.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from jecs_core import DEFAULT_METHOD, METHODS, get_rule
from jecs_core.cli import OneLineParser
from jecs_core.cli import run as run_cli
from jecs_core.cli.options import (
    add_post_hoc_delta,
    add_rule_options,
    add_shift_options,
    add_table_options,
    alpha_arg,
    covariate_fields,
    parse_shift_args,
    rule_options,
)
from jecs_core.cli.progress import add_progress_option, progress_bar, steps


def register(subparsers) -> argparse.ArgumentParser:
    """Add the ``report`` command to an argparse sub-parser collection."""
    parser = subparsers.add_parser(
        "report", help="write a self-contained HTML audit report (settings, data, diagnostics, figures, provenance)",
        description=__doc__.splitlines()[0],
    )
    add_table_options(parser)
    parser.add_argument("--out", required=True, help="the HTML file to write (must end in .html)")
    parser.add_argument("--alpha", type=alpha_arg, default=0.1, help="target GCR (default 0.1)")
    parser.add_argument("--method", choices=METHODS, default=DEFAULT_METHOD,
                        help=f"rule whose figures and sidecar the report shows (default {DEFAULT_METHOD})")
    add_rule_options(parser)
    add_shift_options(parser)
    add_post_hoc_delta(parser)
    add_progress_option(parser)
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Write the report; bad input raises ValueError / ScoreTableError (one line from ``jecs``)."""
    # pandas- and plotly-heavy: imported when the command runs, so `jecs report --help` stays quick.
    from jecs_core import compare_methods, load_scores
    from jecs_core.io import check_output_path, write_files_atomic

    from .report import ReportInputs, audit_diagnostics_or_none, build_report
    from .report.posthoc import PostHocContext

    out = check_output_path(args.out, suffixes=(".html",), inputs=(args.scores,), what="--out")
    parse_shift_args(args)  # before the table is read: a bad list fails at once
    with progress_bar(args, desc="jecs report", unit="step", rate=False) as progress:
        step = steps(progress, 5)
        step(f"reading {Path(args.scores).name}")
        table = load_scores(args.scores, layout=args.layout, lower_is_member=args.lower_is_member)
        options = rule_options(args, table)
        step("p-values and rules")
        comparison, shift = _compared(args, table, options) if args.covariates is not None else (
            compare_methods(table, alpha=args.alpha, **options), None)
        step("diagnostics")  # they judge the paper's JECS, so they take its options only
        diagnostics = audit_diagnostics_or_none(table, alpha=args.alpha, **get_rule("jecs").accepted(options))
        inputs = ReportInputs(table=table, comparison=comparison, method=args.method, data_name=Path(args.scores).name,
                              options=options, diagnostics=diagnostics,
                              post_hoc=PostHocContext(delta=args.post_hoc_delta), shift=shift)
        step("figures and page")
        page = build_report(inputs)
        step(f"writing {out.name}")
        write_files_atomic({out: lambda path: path.write_text(page, encoding="utf-8")})  # all or nothing, as every export
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB)")
    return 0


def _compared(args: argparse.Namespace, table, options: dict):
    """The rules on covariate-aware p-values (as ``jecs select --covariates``), and the record of how they were made."""
    from jecs_core.compare import compare_pvalues
    from jecs_core.shift.table import table_shift_pvalues

    try:
        shifted = table_shift_pvalues(table, covariates=args.covariates, method=args.shift_method)
    except ValueError as exc:  # an unknown covariate, a table without any
        raise ValueError(f"--covariates: {exc}") from exc
    comparison = compare_pvalues(shifted.pvalues, alpha=args.alpha, models=table.models, contaminated=table.contaminated,
                                 **options)
    return comparison, {**covariate_fields(args.covariates, args.shift_method), "shift": shifted.to_dict()}


def main(argv=None) -> int:
    """``python -m dashboard.report_cli SCORES --out report.html`` (the same command, standalone)."""
    parser = OneLineParser(prog="jecs")
    register(parser.add_subparsers(dest="command", metavar="COMMAND"))
    return run_cli(parser, ["report", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
