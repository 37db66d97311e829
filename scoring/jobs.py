"""One model's share of a scoring run, and its result (shared by the local and Ray engines)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .cache import ScoreCache
from .settings import SHARD_SIZE, ScoreSettings
from .sources import ModelSource


@dataclass(frozen=True)
class ModelJob:
    """One model's share of a run: what to score and how (shared by both engines)."""

    name: str
    source: ModelSource
    names: tuple[str, ...]
    settings: ScoreSettings
    token_budget: int
    device: str | None
    dtype: str | None
    cache_dir: Path | None
    reference: ModelSource | None = None
    reference_loss: pd.Series | None = None  # by text digest
    allow_pickle: bool = False
    shard_size: int = SHARD_SIZE
    head_memory_mib: int | None = None  # the LM head's memory budget; None: the device's default

    def resolved(self) -> tuple[str, str]:
        """(device, dtype name) this job runs with."""
        from . import loading

        dev = loading.resolve_device(self.device)
        return str(dev), loading.dtype_name(loading.resolve_dtype(dev, self.dtype))

    def open_cache(self) -> ScoreCache | None:
        if self.cache_dir is None:
            return None
        device, dtype = self.resolved()
        return ScoreCache.open(
            self.cache_dir, self.source, self.settings, names=self.names, device_type=device.split(":")[0],
            dtype=dtype, reference=self.reference,
        )

    def reference_for(self, digests) -> np.ndarray | None:
        return None if self.reference_loss is None else self.reference_loss.loc[list(digests)].to_numpy(dtype=float)


@dataclass(frozen=True)
class ModelRows:
    """Cache-format rows (indexed by text digest) for every distinct text under one model."""

    rows: pd.DataFrame
    device: str
    dtype: str
    n_from_cache: int
    n_scored: int
