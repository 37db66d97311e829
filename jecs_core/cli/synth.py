"""``jecs synth``: write the paper's synthetic setup as a labelled wide table."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from .options import finite_arg, int_at_least, interval_arg, positive_int, seed_arg


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "synth",
        help="write the paper's synthetic setup as a labelled score table",
        description="Pool of items, K models, calibration share members of every model, test labels "
        "Bernoulli(contamination), scores mu*M + N(0,1) (paper appendix, synthetic setup).",
    )
    parser.add_argument("--out", required=True, help="output file (.csv or .parquet)")
    parser.add_argument("--seed", type=seed_arg, default=0, help="random seed, a non-negative integer (default 0)")
    # At least one calibration and one test item, as the generator needs.
    parser.add_argument("--pool-size", type=int_at_least(2), default=1200,
                        help="items in the pool, calibration and test together (default 1200)")
    parser.add_argument("--models", type=positive_int, default=4, help="number of models K (default 4)")
    parser.add_argument("--calibration-fraction", type=interval_arg(include_zero=False, include_one=False), default=0.3,
                        help="share of the pool drawn as calibration items, in (0, 1) (default 0.3)")
    parser.add_argument("--contamination", type=interval_arg(include_zero=True, include_one=True), default=0.3,
                        help="chance that a test item is in a given model's training data, in [0, 1] (default 0.3)")
    parser.add_argument("--mu", type=finite_arg, default=4.0,
                        help="score shift of a member over a non-member, in standard deviations (default 4)")
    parser.set_defaults(handler=run)


def write_frame(frame, out: str) -> Path:
    """Write through the one table writer (``jecs_core.io.write_table``; pandas-heavy, imported here)."""
    from ..io import write_table

    return write_table(frame, out)


# Score and label cells (pool size x models x 2) one table may hold: about 3 GB of float64 at the cap.
MAX_CELLS = 200_000_000


def run(args: argparse.Namespace) -> int:
    from jecs_core.io import check_output_path
    from jecs_core.simulate.synthetic import paper_synthetic

    check_output_path(args.out, what="--out")  # before the table is built
    cells = 2 * args.pool_size * args.models
    if cells > MAX_CELLS:
        raise ValueError(f"--pool-size {args.pool_size:,} with --models {args.models:,} asks for {cells:,} score and "
                         f"label cells; at most {MAX_CELLS:,} are written (pool size x models <= {MAX_CELLS // 2:,})")
    try:
        frame = paper_synthetic(
            np.random.default_rng(args.seed),
            pool_size=args.pool_size,
            n_models=args.models,
            calibration_fraction=args.calibration_fraction,
            contamination=args.contamination,
            mu=args.mu,
        )
    except MemoryError:
        raise ValueError(f"--pool-size {args.pool_size:,}: not enough memory for the table; ask for fewer items") from None
    path = write_frame(frame, args.out)
    n_test = int((frame["split"] == "test").sum())
    print(f"wrote {path}: {len(frame)} items ({len(frame) - n_test} calibration, {n_test} test), K = {args.models}, seed {args.seed}")
    return 0
