"""The catalogue of named simulation scenarios: :data:`SCENARIOS` and :func:`make_scenario`.

A new scenario is a generator ``fn(rng, **params) -> wide DataFrame`` in its own
module and one entry here; the dashboard's scenario samples and the evaluator's
listings read this catalogue.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import pandas as pd

from .scenarios import copula_mixture, heterogeneous_exposure, heterogeneous_strength, shared_latent, three_block
from .shift_scenarios import curved_shift, location_shift, mixture_shift, no_shift, scale_shift
from .synthetic import paper_synthetic


class Scenario(NamedTuple):
    """A registry entry: a one-line description and the generator ``fn(rng, **params)``."""

    description: str
    generate: Callable[..., pd.DataFrame]


SCENARIOS: dict[str, Scenario] = {
    "paper": Scenario(
        "Paper synthetic setup: 1200 items, K=4, 30% calibration, members Bernoulli(0.3), T = 4M + N(0,1).",
        paper_synthetic,
    ),
    "shared_latent": Scenario(
        "Paper setup with a shared per-item latent: noise correlation r across models (default 0.5).",
        shared_latent,
    ),
    "copula_mixture": Scenario(
        "Paper setup with copula eta*comonotone + (1-eta)*independent (default eta 0.5): max-p null CDF eta*x + (1-eta)*x^c.",
        copula_mixture,
    ),
    "heterogeneous_exposure": Scenario(
        "Contaminated items sit in c = 1..K models' training data (c uniform by default); 24% jointly pure.",
        heterogeneous_exposure,
    ),
    "heterogeneous_strength": Scenario(
        "Paper setup with a different signal mu_k per model (default 1.5 to 4): weak and strong detectors mixed.",
        heterogeneous_strength,
    ),
    "three_block": Scenario(
        "Paper's three-block split (clean a=0.3 / calibration b=0.3 / remainder, rho=0.125) on a 789-item pool, K=16, mu=4.",
        three_block,
    ),
    "shift_location": Scenario(
        "Calibration shift, location: calibration covariate x_len ~ N(1, 1), test N(0, 1); T = 3M + 1.5 x_len + N(0,1), K=3.",
        location_shift,
    ),
    "shift_scale": Scenario(
        "Calibration shift, scale: calibration x_len ~ N(0, 0.5^2), test N(0, 1); T = 3M + 1.5 x_len + N(0,1), K=3.",
        scale_shift,
    ),
    "shift_mixture": Scenario(
        "Calibration shift, mixture of sources: calibration 90% source 1, test 50%; T = 3M + x_len + 2 x_src + N(0,1), K=3.",
        mixture_shift,
    ),
    "shift_curved": Scenario(
        "Calibration shift, curved effect: x_len ~ N(1, 1) vs N(0, 1); T = 3M - 0.5 x_len^2 + N(0,1), K=3 (residual model wrong).",
        curved_shift,
    ),
    "shift_none": Scenario(
        "Control for the shift scenarios: x_len ~ N(0, 1) in both splits; T = 3M + 1.5 x_len + N(0,1), K=3.",
        no_shift,
    ),
}


def make_scenario(name: str, rng: np.random.Generator, **params) -> pd.DataFrame:
    """Run the scenario ``name`` of :data:`SCENARIOS` with keyword ``params``."""
    if name not in SCENARIOS:
        raise ValueError(f"scenario must be one of {sorted(SCENARIOS)}, got {name!r}")
    return SCENARIOS[name].generate(rng, **params)
