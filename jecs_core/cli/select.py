"""``jecs select``: run the selection rules on a score table and export the result."""

from __future__ import annotations

import argparse

from ..compare import METHOD_LABELS, METHODS, compare_methods
from ..data import load_scores
from ..export import write_selection
from .options import add_table_options, alpha_arg, lam_arg, positive_int


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "select",
        help="select a shared clean subset from a score table",
        description="Compute conformal p-values and run JECS, JMCS, union and intersection at level alpha; "
        "print a summary and optionally write the selection CSV with its sidecar JSON.",
    )
    add_table_options(parser)
    parser.add_argument("--alpha", type=alpha_arg, default=0.1, help="target global contamination rate (default 0.1)")
    parser.add_argument("--method", choices=METHODS + ("all",), default="jecs", help="selection written to --out (default jecs)")
    parser.add_argument("--lam", type=lam_arg, default="auto", help="right-tail threshold lambda: 'auto' (default) or a number")
    parser.add_argument("--knn", type=positive_int, default=None, help="kNN size k_n (default ceil(sqrt(m_R)))")
    parser.add_argument("--out", default=None, help="write the selection CSV here (and <name>.json beside it)")
    parser.set_defaults(handler=run)


def format_summary(table, comparison) -> str:
    jecs = comparison.jecs
    lines = [
        f"input: {table.source}",
        f"n (test) = {table.n}   m (calibration) = {table.m}   K = {table.K}   alpha = {comparison.alpha:g}",
    ]
    if jecs.fallback_to_jmcs:
        lines.append(f"JECS fell back to JMCS: {jecs.fallback_reason}")
    else:
        mode = "data-driven" if jecs.fit.lambda_mode == "auto" else "manual"
        lines.append(
            f"lambda = {jecs.lam:g} ({mode})   k_n = {jecs.k_n}   F_fit(lambda) = {jecs.F_fit_lambda:.4f}   "
            f"pi0_hat = {jecs.pi0_hat:.4f}"
        )
        if jecs.fit.envelope.m_tail < 10:
            lines.append(f"warning: only {jecs.fit.envelope.m_tail} max-p values above lambda; the envelope is noisy")
    header = f"{'method':<34}{'selected':>9}"
    if table.has_labels:
        header += f"{'GCP':>8}{'power':>8}"
    lines.append(header)
    for method in METHODS:
        row = f"{METHOD_LABELS[method]:<34}{int(comparison.selected(method).sum()):>9}"
        found = comparison.metrics(method)
        if found is not None:
            flag = " *" if found.gcp > comparison.alpha else ""
            row += f"{found.gcp:>8.3f}{found.power:>8.3f}{flag}"
        lines.append(row)
    if table.has_labels:
        lines.append("(* GCP above alpha on this table)")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    table = load_scores(args.scores, layout=args.layout, lower_is_member=args.lower_is_member)
    comparison = compare_methods(table, alpha=args.alpha, lam=args.lam, knn=args.knn)
    print(format_summary(table, comparison))
    if args.out:
        csv_path, json_path = write_selection(args.out, table, comparison, args.method)
        print(f"wrote {csv_path} ({args.method}) and {json_path}")
    return 0
