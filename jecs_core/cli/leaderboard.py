"""``jecs leaderboard``: rank the models on the clean subset ``jecs select`` picks, beside the full benchmark."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from ..rules import DEFAULT_METHOD, METHODS, REGISTRY
from .options import (
    add_post_hoc_delta,
    add_rule_options,
    add_shift_options,
    add_table_options,
    alpha_arg,
    parse_shift_args,
    rule_options,
    seed_arg,
)


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "leaderboard",
        help="rank the models on the clean subset, beside the full benchmark",
        description="Select the clean subset exactly as `jecs select` does at the same settings, then give each "
        "model's mean per-item result on the full benchmark and on the clean subset, its 95% interval, the range "
        "of its mean on the truly clean items (post-hoc bound), its inflation and both rankings; list the rank "
        "differences on the clean subset that are significant. See docs/LEADERBOARD.md.",
    )
    add_table_options(parser)
    _hint_scores_after_results(parser)
    parser.add_argument("--results", nargs="+", action="extend", required=True, metavar="RESULTS",
                        help="per-item results: a long (item_id, model, METRIC) or wide (item_id, METRIC_<model>) "
                        ".csv/.parquet (or several, each with other models), or lm-eval --log_samples files as MODEL=samples_<task>_<time>.jsonl (one per "
                        "model, or MODEL=DIR holding one; repeat --results or list them), or one directory with a sub-directory per model")
    parser.add_argument("--metric", default=None,
                        help="the per-item metric: a column (default 'correct') or a sample-log key (default 'acc'; "
                        "'NAME,FILTER' picks a filter)")
    parser.add_argument("--id-field", default=None, help="sample logs: a field of doc to use as item_id (default doc_id)")
    parser.add_argument("--alpha", type=alpha_arg, default=0.1, help="target global contamination rate (default 0.1)")
    parser.add_argument("--method", choices=METHODS, default=DEFAULT_METHOD,
                        help=f"selection rule of the clean subset (default {DEFAULT_METHOD})")
    add_shift_options(parser)
    add_post_hoc_delta(parser)
    parser.add_argument("--seed", type=seed_arg, default=0, help="seed of the bootstrap and sign-flip draws (metrics not 0/1)")
    parser.add_argument("--out", default=None, help="write the leaderboard CSV (or .parquet) here")
    parser.add_argument("--pairwise-out", default=None, help="write the pairwise table CSV (or .parquet) here")
    parser.add_argument("--raw-cells", action="store_true",
                        help="write text cells as they are (default: a leading ' before = + - @ so a spreadsheet shows text)")
    add_rule_options(parser)  # the rules' own options, as `jecs select` takes them
    parser.set_defaults(handler=run)


def add_lm_eval_samples_options(parser: argparse.ArgumentParser) -> None:
    """``--lm-eval-samples`` and ``--task`` for ``jecs select``: the selection as an ``lm_eval --samples`` file."""
    parser.add_argument("--lm-eval-samples", default=None, metavar="KEEP.json",
                        help="also write the selected item ids as {TASK: [ids]} for `lm_eval --samples KEEP.json` "
                        "(re-run only the clean items); the test item ids must be the task's doc indices; needs --task")
    parser.add_argument("--task", default=None, help="the lm-eval task name keyed in --lm-eval-samples")


def check_lm_eval_samples_args(args: argparse.Namespace, inputs=(), outputs=()) -> None:
    """Refuse ``--lm-eval-samples`` without ``--task`` (or the reverse) or a bad path, before any work.

    ``outputs`` are the command's other files (written or not yet): the samples file must be none of them.
    """
    from ..io import check_output_path

    path, task = getattr(args, "lm_eval_samples", None), getattr(args, "task", None)
    if path is None and task is None:
        return
    if path is None or task is None:
        raise ValueError("--lm-eval-samples and --task go together: --lm-eval-samples KEEP.json --task TASK")
    if not str(task).strip() or str(task) != str(task).strip():
        raise ValueError(f"--task: an lm-eval task name without surrounding spaces, got {task!r}")
    check_output_path(path, suffixes=(".json",), inputs=inputs, what="--lm-eval-samples")
    clash = [str(out) for out in outputs if out is not None and Path(out).resolve() == Path(path).resolve()]
    if clash:
        raise ValueError(f"--lm-eval-samples: {path} is also written by this command (the selection's JSON sidecar "
                         "sits beside --out under the same name); name another file")


def check_lm_eval_ids(args: argparse.Namespace, table) -> None:
    """With ``--lm-eval-samples``, every test item id must be an lm-eval doc index: checked once the table is read."""
    if getattr(args, "lm_eval_samples", None) is None:
        return
    from ..leaderboard.lmeval import lm_eval_sample_ids

    try:
        lm_eval_sample_ids(table.test_ids)
    except ValueError as exc:
        raise ValueError(f"--lm-eval-samples: {args.scores}: test {exc}") from None


def check_lm_eval_selection(args: argparse.Namespace, selected, *, alpha: float, method: str) -> None:
    """Refuse, before anything is written, an empty selection for ``--lm-eval-samples``."""
    if getattr(args, "lm_eval_samples", None) is not None and not np.asarray(selected, dtype=bool).any():
        raise ValueError(f"--lm-eval-samples: {method} selects no item at alpha = {alpha:g}, and lm_eval reads an "
                         "empty --samples list as every document; nothing written (raise --alpha, or leave out "
                         "--lm-eval-samples)")


def write_lm_eval_selection(args: argparse.Namespace, item_ids, selected) -> None:
    """Write the selected ids to ``--lm-eval-samples`` when asked (ascending doc indices), and say so."""
    if getattr(args, "lm_eval_samples", None) is None:
        return
    from ..leaderboard import write_lm_eval_samples

    ids = np.asarray(item_ids)[np.asarray(selected, dtype=bool)]
    path = write_lm_eval_samples(args.lm_eval_samples, ids, task=args.task)
    print(f"wrote {path} ({len(ids)} doc indices for task {args.task.strip()!r}, ascending)")


def _number(value: float, digits: int = 3) -> str:
    return "-" if value is None or not np.isfinite(value) else f"{value:.{digits}f}"


def _rank(rank) -> str:
    from pandas import isna  # loaded with the leaderboard; not with `jecs --help`

    return "-" if isna(rank) else str(int(rank))


def _move(move) -> str:
    from pandas import isna

    if isna(move):  # counted only among models ranked on both sides (the frame's 'move' column)
        return "-"
    change = int(move)
    return f"+{change}" if change > 0 else str(change) if change < 0 else "="


def format_leaderboard(board, *, scores: str, results: str) -> str:
    """The printed summary: settings, one line per model (best clean rank first), the significant differences."""
    from ..leaderboard import by_rank
    from ..posthoc.report import confidence_percent

    pct = f"{board.confidence:.0%}"
    frame = by_rank(board.frame)
    # Columns as wide as their widest entry: lm-eval's model folders run long, a 0-100 metric's intervals too.
    width = max([20, *(len(str(m)) + 2 for m in frame["model"])])
    cell = max([17, *(len(f"[{_number(lo)}, {_number(hi)}]") + 1 for lo, hi in
                      zip([*frame["ci_low"], *frame["bound_low"]], [*frame["ci_high"], *frame["bound_high"]]))])
    lines = [
        f"input: {scores}   results: {results}   metric: {board.metric} ({'0/1' if board.binary else 'mean'})",
        f"clean subset: {REGISTRY[board.method].label} at alpha = {board.alpha:g}: {board.n_clean} of "
        f"{board.selected.shape[0]} test items; at most {board.max_contaminated} contaminated with "
        f"{confidence_percent(board.delta)} confidence (post-hoc bound)",
        f"{'rank':>4}  {'model':<{width}}{'clean':>8}  {pct + ' interval':<{cell}}{'truly clean':<{cell}}{'n_clean':>8}"
        f"{'all':>8}{'n_all':>8}{'rank_all':>9}{'move':>6}  inflation [{pct}]",
    ]
    for row in frame.itertuples(index=False):
        interval = f"[{_number(row.ci_low)}, {_number(row.ci_high)}]"
        truly = f"[{_number(row.bound_low)}, {_number(row.bound_high)}]"
        inflation = f"{_number(row.inflation, 4)} [{_number(row.inflation_low, 4)}, {_number(row.inflation_high, 4)}]"
        lines.append(f"{_rank(row.rank_clean):>4}  {str(row.model):<{width}}{_number(row.accuracy_clean):>8}  "
                     f"{interval:<{cell}}{truly:<{cell}}"
                     f"{row.n_clean:>8}{_number(row.accuracy_all):>8}{row.n_all:>8}{_rank(row.rank_all):>9}"
                     f"{_move(row.move):>6}  {inflation}")
    if not board.n_clean:
        lines.append(f"no test item is selected at alpha = {board.alpha:g}, so there is no clean subset to rank on: "
                     "raise --alpha or pick another --method")
        return "\n".join(lines)
    significant = board.pairwise[board.pairwise["significant"]]
    test = f"{board.pairwise['test'].iloc[0]}, " if len(board.pairwise) else ""
    head = f"significant differences on the clean subset ({test}Holm, family-wise error {board.level:g}):"
    lines.append(head + ("" if len(significant) else " none"))
    for row in significant.itertuples(index=False):
        # Oriented by the test's own means on the shared items: where a model lacks some results, the ranks
        # (over each model's own items) can put the pair the other way round.
        (high, high_mean), (low, low_mean) = sorted(((row.model_a, row.mean_a), (row.model_b, row.mean_b)),
                                                    key=lambda pair: -pair[1])
        lines.append(f"  {high} > {low}: {_number(high_mean)} vs {_number(low_mean)} on "
                     f"{row.n_shared} shared items, adjusted p = {row.p_holm:.3g}")
    return "\n".join(lines)


def _hint_scores_after_results(parser) -> None:
    """A score table written after ``--results`` joins the results list; say so when SCORES is then missing."""
    plain = parser.error

    def error(message: str):
        if "required: scores" in message:
            message += (" (a table written after --results is read as one more results file: put SCORES "
                        "before --results, or end the results list with --)")
        plain(message)

    parser.error = error


def run(args: argparse.Namespace) -> int:
    # pandas-heavy: imported when the command runs, so `jecs leaderboard --help` stays quick.
    from ..checks import data_warnings
    from ..conformal import table_pvalues
    from ..data import load_scores
    from ..io import check_output_path, write_table
    from ..leaderboard import by_rank, leaderboard, load_results

    parse_shift_args(args)
    outputs = [p for p in (args.out, args.pairwise_out) if p]
    for path, what in ((args.out, "--out"), (args.pairwise_out, "--pairwise-out")):
        if path:  # refuse a bad output path before any work
            check_output_path(path, inputs=[args.scores, *args.results], what=what)
    if len(set(outputs)) < len(outputs):
        raise ValueError("--out and --pairwise-out name the same file; give two")
    table = load_scores(args.scores, layout=args.layout, lower_is_member=args.lower_is_member)
    source = args.results[0] if len(args.results) == 1 else args.results
    results = load_results(source, metric=args.metric, id_field=args.id_field)
    # One p-value matrix for the ranking and the table's checks (which read counts only from plain p-values).
    pvalues = table_pvalues(table, covariates=args.covariates, shift_method=args.shift_method)
    pvalues.setflags(write=False)
    board = leaderboard(table, results, alpha=args.alpha, method=args.method, delta=args.post_hoc_delta,
                        **rule_options(args, table), pvalues=pvalues, seed=args.seed)
    print(format_leaderboard(board, scores=args.scores, results=" ".join(args.results)))
    # One line each, on stderr so the table stays parseable: the table's own checks (as jecs select runs
    # them: reversed scores, split scales, copies), then the ranking's.
    plain = pvalues if args.covariates is None else None
    for line in [*table.warnings(args.alpha), *data_warnings(table, pvalues=plain)]:
        print(f"jecs leaderboard: {line}", file=sys.stderr)
    for line in board.warnings:
        print(f"jecs leaderboard: warning: {line}", file=sys.stderr)
    safe = not args.raw_cells
    if args.out:
        print(f"wrote {write_table(by_rank(board.frame), args.out, spreadsheet_safe=safe, inputs=[args.scores])}")
    if args.pairwise_out:
        print(f"wrote {write_table(board.pairwise, args.pairwise_out, spreadsheet_safe=safe, inputs=[args.scores])}")
    return 0
