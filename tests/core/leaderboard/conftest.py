"""A labelled audit where contamination turns the full-benchmark ranking upside down."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from jecs_core.simulate.scenarios import score_table

# Skill on unseen items falls with the model's index; exposure (answered right when seen) rises with it.
SKILL = (0.6, 0.5, 0.4)
EXPOSURE = (0.0, 0.35, 0.7)


@dataclass(frozen=True)
class Audit:
    scores: Path
    results: Path
    members: np.ndarray  # (n, K) test membership
    correct: np.ndarray  # (n, K) 0/1 results on the test items
    test_ids: np.ndarray
    calibration_ids: np.ndarray
    models: tuple[str, ...]


def make_audit(directory: Path, *, seed: int = 0, n_test: int = 3000, n_cal: int = 600) -> Audit:
    """Nested exposure (a seen item of model k is seen by every model after it), memorised answers right."""
    rng = np.random.default_rng(seed)
    order = rng.random(n_test)
    members = np.column_stack([order < rho for rho in EXPOSURE]).astype(np.int8)
    frame = score_table(rng, members, calibration_size=n_cal, mu=4.0)
    models = tuple(c[len("score_"):] for c in frame.columns if c.startswith("score_"))
    skill = rng.random(members.shape) < np.asarray(SKILL)
    correct = np.where(members == 1, 1, skill).astype(int)
    test = frame["split"].to_numpy() == "test"
    test_ids = frame.loc[test, "item_id"].astype(str).to_numpy()
    calibration_ids = frame.loc[~test, "item_id"].astype(str).to_numpy()
    scores = directory / "scores.csv"
    frame.to_csv(scores, index=False)
    long = pd.DataFrame({"item_id": np.repeat(test_ids, len(models)), "model": np.tile(models, len(test_ids)),
                         "correct": correct.reshape(-1)})
    results = directory / "results.csv"
    long.to_csv(results, index=False)
    return Audit(scores, results, members, correct, test_ids, calibration_ids, models)


@pytest.fixture(scope="module")
def audit(tmp_path_factory) -> Audit:
    return make_audit(tmp_path_factory.mktemp("audit"))


@pytest.fixture()
def audit_factory():
    """``make_audit`` itself, for tests that draw fresh audits."""

    def build(directory: Path, **options) -> Audit:
        directory.mkdir(parents=True, exist_ok=True)
        return make_audit(directory, **options)

    return build
