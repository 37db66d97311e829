"""Numpy simulation generators: the paper's synthetic setup, dependence and exposure
scenarios, and the paper's three-block split of a labelled pool.

These make score tables for the evaluator, the validity study, the dashboard's
scenario samples and the Learn page; they need nothing beyond numpy / scipy / pandas.
"""

from .catalog import SCENARIOS, Scenario, make_scenario
from .split import attach_scores, three_block_split
from .synthetic import paper_synthetic, wide_table

__all__ = ["SCENARIOS", "Scenario", "make_scenario", "attach_scores", "three_block_split", "paper_synthetic", "wide_table"]
