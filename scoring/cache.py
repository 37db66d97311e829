"""On-disk score cache: Parquet parts per (model, settings), rows keyed by text.

Layout: ``<cache_dir>/<key>/part-*.parquet`` plus a human-readable
``meta.json``, where ``key`` digests the model's fingerprint, the
:class:`~scoring.settings.ScoreSettings`, the device type and the dtype (see
:func:`cache_key`). Each row holds one text's four scores, keyed by the SHA-256
of the text, so the text table itself needs no key: a table that shares texts
with an earlier one (a re-split, a few added rows) reuses their scores, and an
interrupted run resumes from the parts already written. The token budget is
not in the key, since it changes batching, not the scores.

Parts are written to a temporary name and renamed, so a crash never leaves a
half-written part; duplicate rows (two runs racing, a compaction) are
harmless, the most recent part wins.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .settings import SCORE_NAMES, ScoreSettings
from .sources import ModelSource

#: Bump when the meaning of cached values changes, to orphan old entries.
SCHEMA_VERSION = 1

CACHE_COLUMNS = ("text_sha", "n_scored", "truncated", "max_length", *SCORE_NAMES)


def text_digest(text: str) -> str:
    """The cache's row key for a text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cache_key(source: ModelSource, settings: ScoreSettings, *, device_type: str, dtype: str) -> tuple[str, dict]:
    """Digest of everything a cached score depends on, and the dict it digests."""
    meta = {
        "schema": SCHEMA_VERSION,
        "model": source.display,
        "model_fingerprint": source.fingerprint(),
        "settings": settings.as_dict(),
        "device_type": device_type,
        "dtype": dtype,
    }
    return hashlib.sha256(json.dumps(meta, sort_keys=True).encode()).hexdigest()[:32], meta


@dataclass(frozen=True)
class ScoreCache:
    """The cache directory of one (model, settings, device type, dtype)."""

    directory: Path
    meta: dict

    @classmethod
    def open(
        cls, root: str | Path, source: ModelSource, settings: ScoreSettings, *, device_type: str, dtype: str
    ) -> "ScoreCache":
        key, meta = cache_key(source, settings, device_type=device_type, dtype=dtype)
        return cls(directory=Path(root) / key, meta=meta)

    def _parts(self) -> list[Path]:
        return sorted(self.directory.glob("part-*.parquet")) if self.directory.is_dir() else []

    def load(self) -> pd.DataFrame:
        """Every cached row, indexed by ``text_sha`` (empty frame when nothing is cached)."""
        parts = self._parts()
        if not parts:
            return pd.DataFrame(columns=list(CACHE_COLUMNS)).set_index("text_sha")
        frame = pd.concat([pd.read_parquet(p) for p in parts], ignore_index=True)
        return frame.drop_duplicates("text_sha", keep="last").set_index("text_sha")

    def write(self, rows: pd.DataFrame) -> None:
        """Add rows (columns :data:`CACHE_COLUMNS`) as a new part, atomically."""
        if rows.empty:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        meta_path = self.directory / "meta.json"
        if not meta_path.exists():
            meta_path.write_text(json.dumps(self.meta, indent=2, sort_keys=True))
        # Time first, so that sorted names are in write order ("last wins").
        name = f"part-{time.time_ns():020d}-{uuid.uuid4().hex[:8]}.parquet"
        tmp = self.directory / f".{name}.tmp"
        rows.loc[:, list(CACHE_COLUMNS)].to_parquet(tmp, index=False)
        os.replace(tmp, self.directory / name)

    def compact(self) -> None:
        """Merge the parts into one, so later loads read a single file."""
        parts = self._parts()
        if len(parts) <= 1:
            return
        self.write(self.load().reset_index())
        for p in parts:
            p.unlink(missing_ok=True)
