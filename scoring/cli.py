"""The ``jecs score`` subcommand.

``jecs_core.cli`` wires it in with ``scoring.cli.register(subparsers)``; the
parsed namespace then carries ``handler`` (returns the exit status). Importing
this module imports neither torch nor pandas; the handler does, when run.

Example::

    jecs score --texts items.csv --model small=models/small --model big=models/big.gguf \\
        --score minkpp --out scores.csv --all-scores all.parquet
"""

from __future__ import annotations

import argparse
import re
import sys
import warnings
from pathlib import Path

from jecs_core.cli import OneLineParser
from jecs_core.cli.progress import add_progress_option, progress_bar
from jecs_core.formats import WRITE_SUFFIXES

from .settings import (
    DEFAULT_CACHE_DIR,
    DEFAULT_K,
    DEFAULT_MAX_LENGTH,
    DEFAULT_SCORE,
    DEFAULT_TOKEN_BUDGET,
    DTYPE_CHOICES,
    LONG_TEXT_MODES,
    SCORE_LABELS,
    SCORE_NAMES,
)


def register(subparsers) -> argparse.ArgumentParser:
    """Add the ``score`` subcommand to an argparse ``subparsers`` object."""
    parser = subparsers.add_parser(
        "score",
        help="score texts under K local causal LMs (needs torch + transformers)",
        description=(
            "Score every text under every model and write the wide score table "
            "(item_id, split, text, score_<model>, carried member_<model> columns) that "
            "'jecs select' reads. Scores are oriented larger = member. A text with no scored "
            "token (empty, or one token without BOS) gets NaN scores and a warning."
        ),
    )
    parser.add_argument(
        "--texts", required=True, type=Path,
        help="CSV or Parquet with item_id, split, text[, member_<model>], or a directory of such shards"
    )
    parser.add_argument(
        "--model",
        required=True,
        action="append",
        metavar="NAME=DIR",
        help="a local Hugging Face model directory, or NAME=DIR/file.gguf; repeat for K models",
    )
    parser.add_argument(
        "--score",
        choices=SCORE_NAMES,
        default=DEFAULT_SCORE,
        help="score written to --out (default %(default)s): "
        # Labels hold '%' (Min-K%), which argparse would read as a format directive.
        + "; ".join(f"{n} = {label}" for n, label in SCORE_LABELS.items()).replace("%", "%%"),
    )
    parser.add_argument(
        "--reference", metavar="DIR", help="reference model (directory or .gguf) for the reference-based scores (refratio)"
    )
    parser.add_argument("--out", required=True, type=Path, help="wide score table to write (.csv or .parquet)")
    parser.add_argument("--all-scores", type=Path, help="also write every computed score as a long table (.csv or .parquet)")
    parser.add_argument(
        "--max-length", type=int, default=DEFAULT_MAX_LENGTH, help="truncate texts to N tokens (default %(default)s)"
    )
    parser.add_argument(
        "--token-budget", type=int, default=DEFAULT_TOKEN_BUDGET, help="padded tokens per batch (default %(default)s)"
    )
    parser.add_argument(
        "--head-memory-mib", type=int, default=None, metavar="MIB",
        help="MiB of LM-head logits held at once (default 64 on a CPU, 512 on a GPU); more launches fewer kernels",
    )
    parser.add_argument("--k-mink", type=float, default=DEFAULT_K, help="Min-K%% ratio (default %(default)s)")
    parser.add_argument("--k-minkpp", type=float, default=DEFAULT_K, help="Min-K%%++ ratio (default %(default)s)")
    parser.add_argument("--device", default="auto", help="cpu, cuda, cuda:N or auto (default: CUDA if available)")
    parser.add_argument(
        "--dtype",
        choices=DTYPE_CHOICES,
        default="auto",
        help="weight dtype (default: bf16 on GPUs that support it, else float32)",
    )
    parser.add_argument(
        "--prepend-bos", action="store_true", help="put BOS before each text so its first token is scored"
    )
    _add_run_options(parser)
    parser.set_defaults(handler=handle_score)
    return parser


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    """Long texts, weight safety, the cache and the engine."""
    parser.add_argument(
        "--long-texts", choices=LONG_TEXT_MODES, default="truncate",
        help="texts over --max-length tokens: truncate, or score every token in sliding windows (default %(default)s)",
    )
    parser.add_argument("--stride", type=int, default=None, help="window step for --long-texts window (default half a window)")
    parser.add_argument(
        "--allow-pickle-weights", action="store_true",
        help="accept pickled pytorch_model.bin weights (refused by default; loaded with weights_only)",
    )
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE_DIR, help="score cache (default %(default)s)")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the score cache")
    add_progress_option(parser)
    ray = parser.add_argument_group("distributed scoring (--engine ray, needs the distributed extra)")
    ray.add_argument("--engine", choices=("local", "ray"), default="local", help="where forward passes run (default local)")
    ray.add_argument("--address", help="Ray cluster to join; without it a small local Ray is started")
    ray.add_argument("--workers", type=int, default=1, help="actors per model, each holding one copy (default 1)")
    ray.add_argument("--shard-size", type=int, default=512, help="texts per shard, the unit of resumption (default 512)")


def _check_output(path: Path | None, option: str, *, inputs) -> None:
    """The core's one output check (suffix, not a directory, never the input file); a new parent folder is allowed."""
    if path is None:
        return
    if path.suffix.lower() in WRITE_SUFFIXES and not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)  # the writer would create it anyway
    from jecs_core.io import check_output_path  # pandas-heavy: imported when a command runs

    check_output_path(path, suffixes=WRITE_SUFFIXES, inputs=inputs, what=option)


def _check_planned_header(texts, models) -> None:
    """Refuse now, before any model loads, a score table ``jecs select`` would refuse for its names (a reserved
    model name, a column named like the export's); labels of models not scored in this run are warned about
    (models scored in batches are joined later)."""
    import numpy as np
    import pandas as pd

    from jecs_core.contract import Where, column_roles

    planned = pd.DataFrame(columns=[*texts.columns, *(f"score_{name}" for name in models)])
    problems = column_roles(planned, Where("the score table", np.arange(0), False))[-1]
    labels = [p for p in problems if "member columns do not match" in p]
    for line in labels:
        print(f"warning: {line}; jecs select reads it once every labelled model has its score column", file=sys.stderr)
    names = [p for p in problems if p not in labels]
    if names:
        raise ValueError(f"{names[0]}; it would be refused when read, so nothing was scored")


def _write_table(frame, path: Path) -> None:
    # The core's one writer (atomic), cells as they are: this table is the next command's input, and
    # a quote put before an id such as "-q0" would part it from the benchmark's own. The exports meant
    # for spreadsheets (jecs select --out, the leaderboard) neutralise formula-like cells.
    from jecs_core.io import write_table

    path.parent.mkdir(parents=True, exist_ok=True)
    write_table(frame, path, spreadsheet_safe=False)


_SETTINGS = ("k_mink", "k_minkpp", "max_length", "stride")


def _check_paths_and_device(args: argparse.Namespace) -> None:
    """The output paths, the cache directory, the shard size and the device, before any model is opened."""
    _check_output(args.out, "--out", inputs=[args.texts])
    _check_output(args.all_scores, "--all-scores", inputs=[args.texts])
    if args.all_scores is not None and args.all_scores.resolve() == args.out.resolve():
        raise ValueError(f"--all-scores: {args.all_scores} is also --out; name two different files")
    for path, option in ((args.out, "--out"), (args.all_scores, "--all-scores")):
        if path is not None and args.texts.is_dir() and args.texts.resolve() in path.resolve().parents:
            raise ValueError(f"{option}: {path} is inside the --texts directory, whose every table is read as texts; "
                             "write it elsewhere")
    if args.shard_size < 1:
        raise ValueError(f"--shard-size: expected a number of texts >= 1, got {args.shard_size}")
    if args.token_budget is not None and args.token_budget < 1:
        raise ValueError(f"--token-budget: expected a number of tokens >= 1, got {args.token_budget}")
    if args.engine == "ray" and args.workers < 1:
        raise ValueError(f"--workers: expected a number of actors >= 1, got {args.workers}")
    if args.engine == "ray" and args.no_cache:
        raise ValueError("--no-cache: engine ray hands its results over through the score cache; leave --no-cache out")
    if not args.no_cache and args.cache_dir.exists() and not args.cache_dir.is_dir():
        raise ValueError(f"--cache-dir: {args.cache_dir} is a file, not a directory")
    # torch, which the models need next anyway; importing .loading also sets the offline switches before
    # transformers' logging set-up below imports huggingface_hub.
    from .loading import resolve_device

    try:
        resolve_device(args.device)
    except ValueError as exc:
        raise ValueError(f"--device: {exc}") from None


def _settings(args: argparse.Namespace):
    """The scoring settings; an error names each setting by the flag a user typed."""
    from .settings import ScoreSettings

    try:
        return ScoreSettings(k_mink=args.k_mink, k_minkpp=args.k_minkpp, max_length=args.max_length,
                             prepend_bos=args.prepend_bos, long_texts=args.long_texts, stride=args.stride)
    except ValueError as exc:
        message = str(exc)
        for name in sorted(_SETTINGS, key=len, reverse=True):  # k_minkpp before k_mink
            message = re.sub(rf"\b{name}\b", "--" + name.replace("_", "-"), message)
        raise ValueError(message) from None


def handle_score(args: argparse.Namespace) -> int:
    """Run ``jecs score``; return the exit status.

    Raises
    ------
    ValueError
        On bad input: a missing texts file or column, a malformed or
        repeated ``--model NAME=DIR``, a model path that does not exist, an
        output name that is neither .csv nor .parquet, a bad setting.
    """
    from .sources import parse_model_spec

    _check_paths_and_device(args)
    models = {}
    for spec in args.model:
        name, source = parse_model_spec(spec)
        if name in models:
            raise ValueError(f"--model: the name {name!r} is given twice")
        models[name] = source
    settings = _settings(args)
    if args.head_memory_mib is not None and args.head_memory_mib < 1:
        raise ValueError(f"--head-memory-mib: expected a whole number of MiB >= 1, got {args.head_memory_mib}")
    engine_options = None
    if args.engine == "ray":
        engine_options = {"address": args.address, "workers": args.workers}
    elif args.address is not None or args.workers != 1:
        raise ValueError("--address and --workers apply to --engine ray only")

    from transformers.utils import logging as hf_logging

    from .cache import CacheWarning
    from .runner import run_scoring
    from .texts import read_texts

    # One progress bar: transformers' own per-load bars would interleave with it.
    hf_logging.disable_progress_bar()

    texts = read_texts(args.texts)
    _check_planned_header(texts, models)
    # Cache problems are reported, not fatal: the part is set aside and its rows scored again.
    with progress_bar(args, desc="jecs score", unit="text") as progress, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CacheWarning)
        output = run_scoring(
            texts, models, args.score, settings=settings, token_budget=args.token_budget, device=args.device,
            dtype=args.dtype, cache_dir=None if args.no_cache else args.cache_dir, progress=progress,
            reference=args.reference, allow_pickle=args.allow_pickle_weights, engine=args.engine,
            engine_options=engine_options, shard_size=args.shard_size, head_memory_mib=args.head_memory_mib,
        )
    for warning in caught:
        if issubclass(warning.category, CacheWarning):
            print(f"warning: {warning.message}", file=sys.stderr)
    for note in output.report.notes:
        print(f"warning: {note}", file=sys.stderr)
    _write_table(output.wide, args.out)
    if args.all_scores is not None:
        _write_table(output.long, args.all_scores)
    print(output.report.summary())
    print(f"wrote {args.out}" + (f" and {args.all_scores}" if args.all_scores is not None else ""))
    if output.report.nan_item_ids:
        print(
            f"warning: {len(output.report.nan_item_ids)} item(s) have NaN scores (no scored token); "
            "drop those rows before selection (--prepend-bos rescues one-token texts)",
            file=sys.stderr,
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry point (``python -m scoring.cli score ...``)."""
    parser = OneLineParser(prog="jecs")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
