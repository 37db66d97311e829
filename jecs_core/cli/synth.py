"""``jecs synth``: write the paper's synthetic setup as a labelled wide table."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from ..io import write_table
from .options import positive_int


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "synth",
        help="write the paper's synthetic setup as a labelled score table",
        description="Pool of items, K models, calibration share members of every model, test labels "
        "Bernoulli(contamination), scores mu*M + N(0,1) (paper appendix, synthetic setup).",
    )
    parser.add_argument("--out", required=True, help="output file (.csv or .parquet)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--pool-size", type=positive_int, default=1200)
    parser.add_argument("--models", type=positive_int, default=4, help="number of models K (default 4)")
    parser.add_argument("--calibration-fraction", type=float, default=0.3)
    parser.add_argument("--contamination", type=float, default=0.3)
    parser.add_argument("--mu", type=float, default=4.0)
    parser.set_defaults(handler=run)


def write_frame(frame, out: str) -> Path:
    """Write through the one table writer (``jecs_core.io.write_table``)."""
    return write_table(frame, out)


def run(args: argparse.Namespace) -> int:
    from jecs_core.simulate.synthetic import paper_synthetic

    frame = paper_synthetic(
        np.random.default_rng(args.seed),
        pool_size=args.pool_size,
        n_models=args.models,
        calibration_fraction=args.calibration_fraction,
        contamination=args.contamination,
        mu=args.mu,
    )
    path = write_frame(frame, args.out)
    n_test = int((frame["split"] == "test").sum())
    print(f"wrote {path}: {len(frame)} items ({len(frame) - n_test} calibration, {n_test} test), K = {args.models}, seed {args.seed}")
    return 0
