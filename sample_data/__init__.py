"""Bundled sample score tables and the generators that make them."""

from pathlib import Path

from .synthetic import paper_synthetic

SAMPLE_DIR = Path(__file__).resolve().parent

__all__ = ["SAMPLE_DIR", "paper_synthetic"]
