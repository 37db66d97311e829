"""Content fingerprints of local models, so a score cache follows the model, not its path.

A fingerprint is the SHA-256 over the names and SHA-256 digests of the files
that define the model's scores: for a directory every regular file directly in
it (config, weights, tokenizer files such as ``merges.txt`` and ``vocab.txt``)
except documentation (``*.md``, README, LICENSE, NOTICE), lock files and dot-files;
for a GGUF checkpoint the GGUF file alone (it carries its tokenizer). Hashing
gigabytes costs seconds, so the result is memoised in the process and, when a
``store`` directory is given (the score cache), on disk keyed by the model's
absolute path and each file's size, modification and status-change times and
inode: a model is hashed once per place and change (a file replaced by a copy
that keeps its size and modification time, as ``rsync -a`` does, gets a new
inode and status-change time), and a copy elsewhere hashes to the same value.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from jecs_core.io import file_sha256

from .sources import ModelSource

#: Files that do not change a score: documentation, lock files and hidden files. A ``.txt`` file
#: may be a tokenizer's (BPE ``merges.txt``, WordPiece ``vocab.txt``), so only documentation by name.
_IGNORED_SUFFIXES = (".md", ".lock")
_IGNORED_STEMS = ("readme", "license", "licence", "notice")

_MEMO: dict[str, str] = {}


def model_files(source: ModelSource) -> list[Path]:
    """The files a fingerprint covers, sorted by name."""
    if source.gguf_file:
        return [source.directory / source.gguf_file]
    return sorted(
        p for p in source.directory.iterdir()
        if p.is_file() and not p.name.startswith(".") and p.suffix.lower() not in _IGNORED_SUFFIXES
        and p.stem.lower() not in _IGNORED_STEMS
    )


def _signature(files: list[Path]) -> str:
    stats = [[str(p), s.st_size, s.st_mtime_ns, s.st_ctime_ns, s.st_ino] for p in files for s in [p.stat()]]
    return hashlib.sha256(json.dumps(stats).encode()).hexdigest()


def content_fingerprint(source: ModelSource, *, store: str | Path | None = None) -> str:
    """The model's content fingerprint (hex SHA-256); see the module docstring."""
    files = model_files(source)
    signature = _signature(files)
    if signature in _MEMO:
        return _MEMO[signature]
    record = Path(store) / "fingerprints" / f"{signature}.json" if store is not None else None
    if record is not None and record.is_file():
        try:
            found = json.loads(record.read_text())["fingerprint"]
            _MEMO[signature] = found
            return found
        except (ValueError, KeyError):
            pass  # an unreadable record is recomputed below
    entries = [[p.name if not source.gguf_file else "model.gguf", file_sha256(p)] for p in files]
    fingerprint = hashlib.sha256(json.dumps(entries).encode()).hexdigest()
    _MEMO[signature] = fingerprint
    if record is not None:
        record.parent.mkdir(parents=True, exist_ok=True)
        tmp = record.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"model": source.display, "files": entries, "fingerprint": fingerprint}, indent=1))
        os.replace(tmp, record)
    return fingerprint
