"""Bundled sample score tables and the generators that make them."""

from pathlib import Path

from .scenarios import SCENARIOS, Scenario, make_scenario
from .split import attach_scores, three_block_split
from .synthetic import paper_synthetic

SAMPLE_DIR = Path(__file__).resolve().parent

__all__ = [
    "SAMPLE_DIR", "paper_synthetic",
    "SCENARIOS", "Scenario", "make_scenario", "attach_scores", "three_block_split",
]
