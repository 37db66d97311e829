"""``jecs select``: run the registered selection rules on a score table and export one of them."""

from __future__ import annotations

import argparse
import contextlib
import contextvars
import dataclasses
import functools
import os
from concurrent import futures
from concurrent.futures import Future, ThreadPoolExecutor

from .._shared_max_p import sharing_max_p
from .._threads import result_while_main_runs
from ..conformal import table_pvalues
from ..posthoc.copies import post_hoc_calibration_size
from ..posthoc.report import post_hoc_record
from ..rules import DEFAULT_METHOD, METHODS, REGISTRY, Guarantee, get_rule
from . import leaderboard as lm_eval_args  # --lm-eval-samples and --task
from .options import (
    add_post_hoc_delta,
    add_rule_options,
    add_shift_options,
    add_table_options,
    alpha_arg,
    covariate_fields,
    parse_shift_args,
    rule_options,
)
from .progress import add_progress_option, progress_bar, steps
from .select_summary import SelectOutcome, print_outcome

# Above this many test items the diagnostics take minutes (the pi0 bootstrap refits n max-p values
# hundreds of times; the twin check is O(twin tables x n x K)): they run only with --diagnostics, twin check off.
LARGE_TABLE = 200_000


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "select",
        help="select a shared clean subset from a score table",
        description="Compute conformal p-values, run every registered selection rule at level alpha, print a "
        "summary and optionally write one rule's selection as a CSV with its sidecar JSON.",
    )
    add_table_options(parser)
    parser.add_argument("--alpha", type=alpha_arg, default=0.1, help="target global contamination rate (default 0.1)")
    add_post_hoc_delta(parser)
    parser.add_argument("--method", choices=METHODS + ("all",), default=DEFAULT_METHOD,
                        help=f"selection written to --out (default {DEFAULT_METHOD}; 'all' adds one selected_<method> column per rule)")
    add_rule_options(parser)
    add_shift_options(parser, note="; also runs the shift check")
    parser.add_argument("--shift-check", action="store_true",
                        help="run the model-free shift check (covariates and text features) even without --covariates")
    diagnostics = parser.add_mutually_exclusive_group()
    diagnostics.add_argument("--no-diagnostics", action="store_true",
                             help="skip the label-free audit diagnostics (correlation, JECS tail, pi0 band, matched-twin check)")
    diagnostics.add_argument("--diagnostics", action="store_true",
                             help=f"run the diagnostics above {LARGE_TABLE:,} test items too (they are skipped there by default)")
    parser.add_argument("--cluster", choices=("none", "duplicates"), default="none",
                        help="'duplicates': one hypothesis per cluster of duplicated test items (identical score rows, "
                        "identical or near-duplicate texts), kept or dropped whole (docs/GUARANTEES.md); default none")
    parser.add_argument("--out", default=None, help="write the selection CSV here (and <name>.json beside it)")
    lm_eval_args.add_lm_eval_samples_options(parser)
    add_progress_option(parser)
    parser.add_argument("--raw-cells", action="store_true",
                        help="write text cells as they are; by default cells starting with = + - @ get a leading ' "
                        "so a spreadsheet shows them as text instead of running them as formulas")
    parser.set_defaults(handler=run)


def _shifted(args, table):
    """The shift check and covariate-aware p-values when asked for (scikit-learn is imported only then)."""
    if args.covariates is None and not args.shift_check:
        return None, None
    from ..shift.table import table_shift_check, table_shift_pvalues

    try:
        check = table_shift_check(table, covariates=args.covariates or "all")
        shift = None if args.covariates is None else table_shift_pvalues(table, covariates=args.covariates, method=args.shift_method)
    except ValueError as exc:  # an unknown covariate, nothing to check
        raise ValueError(f"{'--covariates' if args.covariates is not None else '--shift-check'}: {exc}") from exc
    return check, shift


def _table_checks(table, duplicates, plain_pvalues: Future, clustered: bool = False):
    """The reversed-score check, the table's warnings and its duplicate search (``duplicates`` when run
    already). The search goes first, beside the p-values; the reversed-score check then counts from
    ``plain_pvalues``, a future the caller fills with the plain p-values (``None``: it searches itself)."""
    from ..checks import data_warnings, find_duplicates, score_direction  # pandas-heavy: imported when a table is checked

    duplicates = find_duplicates(table) if duplicates is None else duplicates
    pvalues = result_while_main_runs(plain_pvalues)
    direction = score_direction(table, pvalues=pvalues)
    return direction, data_warnings(table, direction=direction, duplicates=duplicates, clustered=clustered,
                                    pvalues=pvalues), duplicates


def _post_hoc(checked: Future, table, comparison, selected, delta: float, plain: bool) -> dict:
    """The post-hoc record; the checks ran first in this one-thread pool and say if the urn may take part
    (``plain``: the rules ran on plain conformal p-values; the table may hold no test scores by then)."""
    size = post_hoc_calibration_size(table, duplicates=checked.result()[2], comparison=comparison, plain=plain)
    return post_hoc_record(comparison.pvalues, selected, delta=delta, calibration_size=size)


def _pvalues_beside_checks(args, table, duplicates, beside: ThreadPoolExecutor):
    """The table's checks started in ``beside``, then the shift check and the p-values here: returns the
    checks' future, the shift check and the covariate-aware p-values (each ``None`` unless asked for) and
    the p-values the rules take."""
    plain = Future()
    shares = args.covariates is None  # else no plain p-values to share: the checks count for themselves
    if not shares:
        plain.set_result(None)
    try:
        checked = beside.submit(_table_checks, table, duplicates, plain, args.cluster != "none")
        check, shift = _shifted(args, table)
        pvalues = table_pvalues(table) if shift is None else shift.pvalues
        pvalues.setflags(write=False)  # the comparison keeps it as it is, without a copy
    except BaseException as exc:  # the checks wait on the p-values: stop them too
        if not plain.done():  # without shared p-values it was filled with None already
            plain.set_exception(exc)
        raise
    if shares:
        plain.set_result(pvalues)
    return checked, check, shift, pvalues


def _skips_diagnostics(args, table) -> bool:
    return bool(args.no_diagnostics or (table.n > LARGE_TABLE and not args.diagnostics))


def _without_test_scores(table):
    """``table`` with NaN for its test scores (a broadcast value, no memory) and calibration scores
    that own their memory (copied when they are a view): the block both were read into can go back."""
    import numpy as np

    calibration = table.calibration if table.calibration.base is None else table.calibration.copy()
    return dataclasses.replace(table, test=np.broadcast_to(np.float64(np.nan), table.test.shape), calibration=calibration)


def _for_the_rest(args, table, checked: Future):
    """``table`` as the rules, the export and the tasks beside them take it: without its test scores
    when no diagnostic reads them later. The checks (``checked``, which include the duplicate search the
    post-hoc bound reads) are the scores' last readers and are waited for first, so that the scores'
    block goes back before the rules allocate beside it: a few tenths of a second for a lower peak."""
    if not _skips_diagnostics(args, table):
        return table
    futures.wait([checked])
    return _without_test_scores(table)


def _diagnostics(args, table, pvalues, direction):
    """The label-free audit diagnostics (``None`` when skipped) and one-line notes saying why or what was left out.

    ``pvalues`` (the unweighted conformal p-values) and ``direction`` are reused, not recomputed."""
    large = table.n > LARGE_TABLE
    if _skips_diagnostics(args, table):
        notes = [] if args.no_diagnostics else [
            f"note: audit diagnostics skipped above {LARGE_TABLE:,} test items (n = {table.n:,}); --diagnostics runs them "
            "(without the matched-twin check)"]
        return None, notes
    from ..diagnostics import audit_diagnostics

    notes = [f"note: the matched-twin check is skipped above {LARGE_TABLE:,} test items (n = {table.n:,})"] if large else []
    try:
        return audit_diagnostics(table, alpha=args.alpha, lam=args.lam, knn=args.knn, seed=0, twin=not large,
                                 pvalues=pvalues, direction=direction), notes
    except ValueError as exc:  # a table too small for a diagnostic must not stop the selection
        return None, [f"note: diagnostics skipped: {exc}"]


def _options(args, check, shift) -> dict:
    options = {**rule_options(args), "layout": args.layout, "raw_cells": bool(args.raw_cells), **covariate_fields(args.covariates, args.shift_method)}
    if args.cluster != "none":
        options["cluster"] = args.cluster
    if shift is not None:
        options["shift"] = shift.to_dict()
    if check is not None:
        options["shift_check"] = check.to_dict()
    return options


def _before_export(method: str) -> tuple[str, ...]:
    """The rules the export records: the one it writes and every rule with a guarantee (all with ``--method all``).

    The invalid baselines (union, intersection: a full sort of every column each) run after the
    export, for the printed comparison table only, unless the export writes them.
    """
    if method == "all":
        return METHODS
    chosen = get_rule(method).name
    return tuple(name for name in METHODS if name == chosen or REGISTRY[name].guarantee is not Guarantee.INVALID)


def _compare(args, table, pvalues, clusters, methods):
    """The rules ``methods`` on the one p-value matrix (one hypothesis per cluster with ``--cluster duplicates``)."""
    from ..compare import compare_pvalues

    if clusters is None:
        return compare_pvalues(pvalues, alpha=args.alpha, methods=methods, models=table.models,
                               contaminated=table.contaminated, **rule_options(args, table))
    from ..checks import cluster_comparison

    return cluster_comparison(pvalues, clusters, alpha=args.alpha, models=table.models, contaminated=table.contaminated,
                              methods=methods, **rule_options(args, table))


def _with(comparison, more):
    """``comparison`` with ``more``'s results added, in registry order."""
    results = {**comparison.results, **more.results}
    return dataclasses.replace(comparison, results={name: results[name] for name in METHODS if name in results})


def run(args: argparse.Namespace) -> int:
    # On a terminal, a bar names the step under way; it is cleared before anything is printed.
    with progress_bar(args, desc="jecs select", unit="step", rate=False) as progress:
        outcome = _select(args, steps(progress, total=5 if args.out else 4))
    print_outcome(args, outcome)
    lm_eval_args.write_lm_eval_selection(args, outcome.table.test_ids, outcome.comparison.selected(outcome.exported))
    return 0


def _select(args: argparse.Namespace, step) -> SelectOutcome:
    # pandas-heavy: imported when the command runs, so `jecs select --help` stays quick.
    # The side thread's modules too, before it starts: a Ctrl-C landing inside an import both threads
    # wait on would leave that module's lock held and the side thread blocked on it for ever.
    from .. import checks, compare  # noqa: F401
    from ..data import load_scores
    from ..export import check_selection_paths, rule_warnings, selection_metadata, sidecar_path, write_selection_files

    parse_shift_args(args)
    if args.out:  # refuse a bad output path before any work
        check_selection_paths(args.out, inputs=[args.scores], what="--out")
    lm_eval_args.check_lm_eval_samples_args(args, inputs=[args.scores], outputs=[] if not args.out else [args.out, sidecar_path(args.out)])
    step(f"reading {os.path.basename(args.scores)}")
    table = load_scores(args.scores, layout=args.layout, lower_is_member=args.lower_is_member)
    lm_eval_args.check_lm_eval_ids(args, table)
    # The table's own checks (reversed scores, duplicates) run beside the p-values, the rules and the
    # CSV export (numpy, pandas and Arrow release the GIL): only the sidecar, written after the CSV,
    # and the printed summary wait on them.
    duplicates = None
    if args.cluster == "duplicates":  # the clusters come first; the warnings reuse the same search
        from ..checks import find_duplicates

        duplicates = find_duplicates(table)
    clusters = None if duplicates is None else duplicates.clusters
    written = None  # the CSV's and the sidecar's paths, with --out
    with ThreadPoolExecutor(max_workers=1) as beside, contextlib.ExitStack() as scope:
        step("p-values")
        checked, check, shift, pvalues = _pvalues_beside_checks(args, table, duplicates, beside)
        # The rules, the export's p_max column and the post-hoc bound (its thread gets a copy of this
        # context) read one max-p vector and one sort of it.
        scope.enter_context(sharing_max_p(pvalues))
        table = _for_the_rest(args, table, checked)
        # The export waits only on the rules it records.
        step("rules")
        comparison = _compare(args, table, pvalues, clusters, _before_export(args.method) if args.out else METHODS)
        rest = tuple(name for name in METHODS if name not in comparison.results)
        # The post-hoc bound (the sidecar's and the printed line's) and then the invalid baselines the
        # export does not write (a full sort of every column each; for the printed table only) run
        # beside the export, after the checks.
        exported = DEFAULT_METHOD if args.method == "all" else args.method  # its line and sidecar carry the bound
        lm_eval_args.check_lm_eval_selection(args, comparison.selected(exported), alpha=args.alpha, method=exported)
        post_hoc = beside.submit(contextvars.copy_context().run, _post_hoc, checked, table, comparison,
                                 comparison.selected(exported), args.post_hoc_delta,
                                 shift is None or shift.method == "none")
        later = beside.submit(_compare, args, table, pvalues, clusters, rest) if rest else None

        @functools.cache
        def reported() -> tuple:
            """The checks' results, then the diagnostics (which reuse them) and every warning: computed once."""
            direction, table_warnings, _ = checked.result()
            diagnostics, notes = _diagnostics(args, table, pvalues if shift is None else None, direction)
            from ..diagnostics import plain_basis  # loaded by the diagnostics already

            basis = None if diagnostics is None or shift is None else plain_basis(shift.method)
            notes = notes if basis is None else [*notes, f"note: {basis}"]
            return diagnostics, notes, [*table.warnings(args.alpha), *table_warnings, *rule_warnings(table, comparison)]

        if args.out:
            def record() -> dict:
                diagnostics, _, warnings = reported()
                return selection_metadata(
                    table, comparison, args.method, options=_options(args, check, shift), warnings=warnings,
                    spreadsheet_safe_cells=not args.raw_cells, post_hoc_delta=args.post_hoc_delta,
                    post_hoc=post_hoc.result(), diagnostics=None if diagnostics is None else diagnostics.to_dict())

            # One core stays with the checks, the post-hoc bound and the baselines running beside the export.
            step(f"writing {os.path.basename(args.out)}")
            written = write_selection_files(
                args.out, table, comparison, args.method, spreadsheet_safe_cells=not args.raw_cells, record=record,
                workers=max(1, (os.cpu_count() or 1) - 1))
        step("checks")
        diagnostics, notes, warnings = reported()
        baselines = None if later is None else later.result()
        recorded = post_hoc.result()  # the exported rule's line says what its sidecar says
    if baselines is not None:
        comparison = _with(comparison, baselines)
        warnings = warnings + rule_warnings(table, baselines)
    return SelectOutcome(table, comparison, clusters, exported, recorded, (check, shift, diagnostics), notes, warnings, written)
