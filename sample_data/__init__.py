"""Bundled sample score tables (data only; the generators live in :mod:`jecs_core.simulate`)."""

from pathlib import Path

SAMPLE_DIR = Path(__file__).resolve().parent

__all__ = ["SAMPLE_DIR"]
