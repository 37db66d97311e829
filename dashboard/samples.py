"""The registry of bundled sample data sets shown on the Data page.

To add a sample, call :func:`register` with a :class:`Sample` (a key, a name, a
one-line description and a loader returning a :class:`jecs_core.ScoreTable`)::

    register(Sample("my-audit", "My audit (K = 3)", "What it shows, in one line.",
                    lambda: jecs_core.load_scores(SAMPLE_DIR / "my_audit.csv")))

Loaders must be deterministic: the dashboard caches their tables by key.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from jecs_core import ScoreTable, load_scores, table_from_frame
from jecs_core.all_scores import pivot_scores
from jecs_core.io import read_as_written, read_table
from jecs_core.simulate import SCENARIOS, make_scenario, paper_synthetic
from sample_data import SAMPLE_DIR


@dataclass(frozen=True)
class Sample:
    """A bundled data set.

    ``scores`` lists the detection scores a sample carries (empty for one-score
    samples); ``score_loader(name)`` then loads the table with that score in the
    ``score_<model>`` columns, and ``loader()`` loads ``scores[0]``.
    ``results_file`` is a shipped per-item results file of the same models (the
    Leaderboard page's input), when the sample has one; ``alpha`` the α that page opens the
    sample at when no α is chosen yet (a small calibration block selects nothing at 0.1).
    """

    key: str
    name: str
    description: str
    loader: Callable[[], ScoreTable]
    scores: tuple[str, ...] = ()
    score_loader: Callable[[str], ScoreTable] | None = None
    results_file: Path | None = None
    alpha: float | None = None

    def load(self, score: str | None = None) -> ScoreTable:
        if score is None or not self.scores or score == self.scores[0]:
            return self.loader()
        if score not in self.scores:
            raise ValueError(f"sample {self.key!r} has no score {score!r}; it has {list(self.scores)}")
        return self.score_loader(score)


SAMPLES: dict[str, Sample] = {}


def register(sample: Sample) -> Sample:
    """Add ``sample`` to the registry (a key may be registered once)."""
    if sample.key in SAMPLES:
        raise ValueError(f"sample key {sample.key!r} is already registered")
    SAMPLES[sample.key] = sample
    return sample


def get(key: str) -> Sample:
    try:
        return SAMPLES[key]
    except KeyError:
        raise KeyError(f"unknown sample {key!r}; known samples: {list(SAMPLES)}") from None


def _synthetic_k16() -> ScoreTable:
    # Paper generator at audit scale: 10,000 test items, 16 models, sparse exposure (2% per model).
    frame = paper_synthetic(np.random.default_rng(2016), pool_size=14286, n_models=16, contamination=0.02)
    return table_from_frame(frame, source="sample: synthetic K=16, n=10,000 (seed 2016)")


REAL_DIR = SAMPLE_DIR / "real"
REAL_STEM = "wiki_smollm2_k8"
# Min-K%++ first: it is the score of the committed wide table.
REAL_SCORES = ("minkpp", "ppl", "mink", "mentr")


def _real_audit(score: str = "minkpp") -> ScoreTable:
    """The shipped Wikipedia / SmolLM2 audit with the chosen detection score (all four are in the long table)."""
    wide_path = REAL_DIR / f"{REAL_STEM}.csv"
    if score == "minkpp":
        return load_scores(wide_path)
    frame = read_table(wide_path, text_columns=read_as_written)  # as load_scores reads it
    long = pd.read_parquet(REAL_DIR / f"{REAL_STEM}_all_scores.parquet")
    chosen = pivot_scores(long, score, item_ids=frame["item_id"].to_numpy())
    for column in chosen.columns:
        frame[column] = chosen[column].to_numpy()
    return table_from_frame(frame, source=f"sample: {REAL_STEM} ({score})")


REAL_SAMPLE = "wiki-smollm2-k8"
PAPER_SAMPLE = "paper-synthetic-k4"
# The real audit is the default when its files ship with the checkout.
DEFAULT_SAMPLE = REAL_SAMPLE if (REAL_DIR / f"{REAL_STEM}.csv").exists() else PAPER_SAMPLE

if (REAL_DIR / f"{REAL_STEM}.csv").exists():
    register(
        Sample(
            REAL_SAMPLE,
            "Real audit: Wikipedia × 8 fine-tuned SmolLM2-135M",
            "Wikipedia summaries split into clean / calibration / remainder blocks (ρ = 0.125); 8 LoRA fine-tunes of "
            "SmolLM2-135M, each on the calibration block plus its own share of the remainder; scored by every model "
            "(jecs build-sample; details in sample_data/real/*.provenance.json). Labelled.",
            _real_audit,
            scores=REAL_SCORES,
            score_loader=_real_audit,
        )
    )

# The Leaderboard page's sample: fine-tunes that saw 0% to 56% of the test items, with a per-item task result.
LEADERBOARD_STEM = "wiki_smollm2_exposure_k4"
LEADERBOARD_SAMPLE = "wiki-smollm2-exposure-k4"
if (REAL_DIR / f"{LEADERBOARD_STEM}_results.csv").exists():
    register(
        Sample(
            LEADERBOARD_SAMPLE,
            "Real leaderboard: Wikipedia × 4 SmolLM2-135M fine-tunes, 0% to 56% of the test items seen",
            "4 LoRA fine-tunes of SmolLM2-135M that saw 0, 60, 120 and 180 of the 320 test items (equal training "
            "sizes, padded with other Wikipedia texts), scored by Min-K%++, with each model's greedy exact match of "
            "every test text's last 4 tokens (jecs build-sample --rhos --task-tokens; sample_data/real/"
            f"{LEADERBOARD_STEM}.provenance.json). 80 calibration items only: the rules select little below "
            "α = 0.3. Labelled.",
            lambda: load_scores(REAL_DIR / f"{LEADERBOARD_STEM}.csv"),
            results_file=REAL_DIR / f"{LEADERBOARD_STEM}_results.csv",
            alpha=0.3,
        )
    )

register(
    Sample(
        PAPER_SAMPLE,
        "Paper synthetic setup (K = 4)",
        "The paper's table 1 setup: 1,200 items, 4 models, 30% contamination per model, members shifted by 4 SD; labelled.",
        lambda: load_scores(SAMPLE_DIR / "synthetic_k4.csv"),
    )
)
register(
    Sample(
        "synthetic-k16-10k",
        "Synthetic audit at scale (K = 16, n = 10,000)",
        "Same generator with 16 models and 2% exposure per model: 10,000 test items, about 28% contaminated; labelled.",
        _synthetic_k16,
    )
)


# Simulation scenarios of jecs_core.simulate.SCENARIOS (fixed seeds, so each sample is one table).
_SCENARIO_SAMPLES = {
    "shared_latent": "Scenario: shared latent (noise correlation 0.5)",
    "copula_mixture": "Scenario: copula mixture (η = 0.5)",
    "heterogeneous_exposure": "Scenario: heterogeneous exposure (c = 1..K)",
    "heterogeneous_strength": "Scenario: heterogeneous model strength (μ from 1.5 to 4)",
    "three_block": "Scenario: the paper's three-block split (K = 16)",
    "shift_location": "Scenario: calibration shift, location (covariate x_len)",
    "shift_mixture": "Scenario: calibration shift, mixture of sources",
    "shift_none": "Scenario: no calibration shift (control for the shift scenarios)",
}


def _scenario_loader(name: str) -> Callable[[], ScoreTable]:
    def load() -> ScoreTable:
        frame = make_scenario(name, np.random.default_rng(7))
        return table_from_frame(frame, source=f"sample: scenario {name} (seed 7)")

    return load


for _name, _title in _SCENARIO_SAMPLES.items():
    register(Sample(f"scenario-{_name.replace('_', '-')}", _title, SCENARIOS[_name].description, _scenario_loader(_name)))
