"""On-disk score cache: Parquet parts per (model content, settings), rows keyed by text.

Layout: ``<cache_dir>/<key>/part-*.parquet`` plus a human-readable
``meta.json``, where ``key`` digests everything a cached value depends on
(:func:`cache_key`): the model's *content* fingerprint (config, weights and
tokenizer files, :mod:`scoring.fingerprint`) -- never its path, so a copy of
the model on another disk or machine reads the same entries --, the
:class:`~scoring.settings.ScoreSettings`, the scores computed and the score
code's version (:data:`scoring.registry.SCORE_CODE_VERSION`), the reference
model's fingerprint when there is one, the device type, the dtype and the
versions of torch, transformers and tokenizers. Each row
holds one text's scores keyed by the SHA-256 of the text, so a table that
shares texts with an earlier one reuses their scores and an interrupted run
resumes from the parts already written. The token budget is not in the key:
it changes batching, not the scores.

Integrity: a part's file name carries the SHA-256 of its content
(:func:`frame_digest`). A part whose content no longer matches, that cannot be
read, or that lacks a column is set aside (renamed ``*.bad``) with a warning
naming it, and its rows are scored again. Parts are written to a temporary
name and renamed, so a crash never leaves a half-written part; duplicate rows
are harmless, the most recent part wins.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import warnings
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .cache_parts import cache_columns, columns_digest, write_part
from .fingerprint import content_fingerprint
from .registry import registry_versions
from .settings import ScoreSettings
from .sources import ModelSource

#: Bump when the layout of the cache changes, to orphan old entries.
SCHEMA_VERSION = 2

class CacheWarning(UserWarning):
    """A cache part was set aside and its rows will be scored again."""


def library_versions() -> dict[str, str | None]:
    """The installed versions of the libraries that turn a text into scores: an upgrade may change a
    model's implementation or a tokenizer's output, so its scores are cached apart."""
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for name in ("torch", "transformers", "tokenizers"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = None
    return found


def text_digest(text: str) -> str:
    """The cache's row key for a text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def frame_digest(frame: pd.DataFrame) -> str:
    """SHA-256 of a part's content (:func:`scoring.cache_parts.columns_digest` of its columns)."""
    return columns_digest({column: frame[column].to_numpy() for column in frame.columns})


def cache_key(
    source: ModelSource,
    settings: ScoreSettings,
    *,
    names,
    device_type: str,
    dtype: str,
    reference: ModelSource | None = None,
    store: Path | None = None,
) -> tuple[str, dict]:
    """Digest of everything a cached score depends on, and the dict it digests."""
    meta = {
        "schema": SCHEMA_VERSION,
        "model_fingerprint": content_fingerprint(source, store=store),
        "reference_fingerprint": None if reference is None else content_fingerprint(reference, store=store),
        "settings": settings.as_dict(),
        "scores": list(names),
        "score_code": registry_versions(),
        "device_type": device_type,
        "dtype": dtype,
        "libraries": library_versions(),
    }
    return hashlib.sha256(json.dumps(meta, sort_keys=True).encode()).hexdigest()[:32], meta


@dataclass(frozen=True)
class ScoreCache:
    """The cache directory of one (model content, settings, scores, device type, dtype)."""

    directory: Path
    meta: dict
    names: tuple[str, ...]

    @classmethod
    def open(
        cls,
        root: str | Path,
        source: ModelSource,
        settings: ScoreSettings,
        *,
        names,
        device_type: str,
        dtype: str,
        reference: ModelSource | None = None,
    ) -> ScoreCache:
        root = Path(root)
        key, meta = cache_key(
            source, settings, names=names, device_type=device_type, dtype=dtype, reference=reference, store=root
        )
        return cls(directory=root / key, meta={**meta, "model": source.display}, names=tuple(names))

    @property
    def columns(self) -> tuple[str, ...]:
        return cache_columns(self.names)

    def _parts(self) -> list[Path]:
        return sorted(self.directory.glob("part-*.parquet")) if self.directory.is_dir() else []

    def _read_part(self, path: Path) -> pd.DataFrame | None:
        """A part's rows, or ``None`` (with a warning, the part set aside) when it fails its checks."""
        try:
            frame = pd.read_parquet(path)
        except Exception as exc:  # noqa: BLE001 - any unreadable part is recomputed
            return self._reject(path, f"unreadable ({type(exc).__name__})")
        missing = [c for c in self.columns if c not in frame.columns]
        if missing:
            return self._reject(path, f"missing column(s) {', '.join(missing)}")
        frame = frame.loc[:, list(self.columns)]
        expected = path.stem.rsplit("-", 1)[-1]
        if frame_digest(frame)[: len(expected)] != expected:
            return self._reject(path, "content does not match its hash")
        return frame

    def _reject(self, path: Path, why: str) -> None:
        warnings.warn(f"score cache part {path}: {why}; its rows will be scored again", CacheWarning, stacklevel=4)
        with contextlib.suppress(OSError):
            os.replace(path, path.with_name(path.name + ".bad"))
        return None

    def load(self) -> pd.DataFrame:
        """Every valid cached row, indexed by ``text_sha`` (empty frame when nothing is cached)."""
        frames = [f for f in (self._read_part(p) for p in self._parts()) if f is not None]
        if not frames:
            return pd.DataFrame(columns=list(self.columns)).set_index("text_sha")
        frame = pd.concat(frames, ignore_index=True)
        return frame.drop_duplicates("text_sha", keep="last").set_index("text_sha")

    def write(self, rows: pd.DataFrame, *, tag: str = "") -> Path | None:
        """Add rows (columns :attr:`columns`) as a new part, atomically; return its path."""
        return self.write_columns({c: rows[c].to_numpy() for c in self.columns}, tag=tag)

    def write_columns(self, columns, *, tag: str = "") -> Path | None:
        """:meth:`write` for rows given as a mapping of :attr:`columns` to equal-length arrays."""
        return write_part(self.directory, self.meta, {c: columns[c] for c in self.columns}, tag=tag)

    def compact(self) -> None:
        """Merge the parts into one, so later loads read a single file."""
        parts = self._parts()
        if len(parts) <= 1:
            return
        self.write(self.load().reset_index())
        for p in parts:
            p.unlink(missing_ok=True)
