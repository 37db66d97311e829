"""Operator settings of the dashboard: which server paths the Score page may read, where it caches.

Streamlit's ``.streamlit/config.toml`` accepts only Streamlit's own options, so the
dashboard reads its settings from the environment, then from a ``jecs-dashboard.toml``
file, then falls back to a default:

``JECS_ALLOWED_DIRS``
    Directories (separated by ``os.pathsep``, ``:`` on Linux) under which the Score page
    may read model directories and texts tables named by path. ``none`` (or an empty
    value) allows no server path at all: users can only upload files.
``JECS_SCORING_CACHE_DIR``
    Where scoring caches its per-text scores (shared by every session; entries are keyed by
    text and model content). Unset: a private temporary directory per session, deleted with it.
``JECS_DASHBOARD_CONFIG``
    A TOML file with ``[paths] allowed_dirs = [...]`` and ``scoring_cache_dir = "..."``
    (default ``jecs-dashboard.toml`` in the working directory, read only if it exists).

Default (nothing set): when Streamlit listens on a loopback address only (``localhost``,
as ``.streamlit/config.toml`` ships), the one person at that machine may read paths under
their home and working directories; bound to any other address, no server path is read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

try:  # Python 3.11+
    import tomllib
except ImportError:  # Python 3.10: the TOML file needs tomli; the environment variables work without it
    tomllib = None

ENV_ALLOWED = "JECS_ALLOWED_DIRS"
ENV_CACHE = "JECS_SCORING_CACHE_DIR"
ENV_CONFIG = "JECS_DASHBOARD_CONFIG"
CONFIG_FILE = "jecs-dashboard.toml"
LOOPBACK = ("localhost", "127.0.0.1", "::1")
_NONE_WORDS = ("", "none", "uploads-only")


class PathNotAllowed(ValueError):
    """A path outside the allowed directories (the message never says whether it exists)."""


@dataclass(frozen=True)
class OperatorSettings:
    """What the dashboard may touch on the server.

    Attributes
    ----------
    allowed_dirs : tuple of Path
        Resolved directories; an empty tuple means uploads only.
    scoring_cache_dir : Path or None
        A shared scoring cache, or None for a private temporary directory per session.
    origin : str
        Where the setting came from, in words (shown to the operator).
    """

    allowed_dirs: tuple[Path, ...]
    scoring_cache_dir: Path | None
    origin: str

    @property
    def paths_allowed(self) -> bool:
        return bool(self.allowed_dirs)


def _split_dirs(text: str) -> tuple[Path, ...]:
    if text.strip().lower() in _NONE_WORDS:
        return ()
    return tuple(Path(p).expanduser().resolve() for p in text.split(os.pathsep) if p.strip())


def _read_config(path: Path) -> dict:
    if tomllib is None:
        raise ValueError(f"{path}: reading it needs Python 3.11 (tomllib); set {ENV_ALLOWED} instead")
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh).get("paths", {})
    except (OSError, ValueError) as exc:  # TOMLDecodeError is a ValueError
        raise ValueError(f"{path}: could not be read as the dashboard's TOML settings ({exc})") from None


def load_settings(*, environ=None, address: str | None = None, cwd: Path | None = None,
                  home: Path | None = None) -> OperatorSettings:
    """Read the operator settings (environment first, then the TOML file, then the default).

    Parameters
    ----------
    environ : mapping, optional
        Environment variables (default ``os.environ``).
    address : str or None
        Streamlit's ``server.address``; ``None`` or empty means every interface.
    cwd, home : Path, optional
        The working and home directories of the default (for tests).
    """
    environ = os.environ if environ is None else environ
    cwd = Path.cwd() if cwd is None else Path(cwd)
    config_path = Path(environ.get(ENV_CONFIG) or cwd / CONFIG_FILE)
    config = _read_config(config_path) if config_path.is_file() else {}
    cache = environ.get(ENV_CACHE) or config.get("scoring_cache_dir")
    cache_dir = Path(cache).expanduser().resolve() if cache else None
    if ENV_ALLOWED in environ:
        return OperatorSettings(_split_dirs(environ[ENV_ALLOWED]), cache_dir, f"environment variable {ENV_ALLOWED}")
    if "allowed_dirs" in config:
        dirs = config["allowed_dirs"]
        if not isinstance(dirs, list) or not all(isinstance(d, str) for d in dirs):
            raise ValueError(f"{config_path}: [paths] allowed_dirs must be a list of directory names")
        return OperatorSettings(tuple(Path(d).expanduser().resolve() for d in dirs), cache_dir, str(config_path))
    if (address or "").strip() in LOOPBACK:
        home = Path.home() if home is None else Path(home)
        dirs = tuple(dict.fromkeys(p.resolve() for p in (cwd, home)))  # a relative path starts where the CLI's does
        return OperatorSettings(dirs, cache_dir, "default for a dashboard bound to localhost")
    return OperatorSettings((), cache_dir, "default for a dashboard served on the network (uploads only)")


def resolve_path(text: str, settings: OperatorSettings, *, what: str) -> Path:
    """The real path of ``text`` if it lies inside an allowed directory.

    Symbolic links and ``..`` are resolved before the check, so neither leads outside.
    A relative path is taken from the first allowed directory (the working directory by default).

    Raises
    ------
    PathNotAllowed
        The same message for a path outside the allowed directories whether or not it exists.
    ValueError
        ``what``: not found, for a missing path inside an allowed directory.
    """
    text = (text or "").strip()
    if not settings.paths_allowed:
        raise PathNotAllowed(f"{what}: this dashboard reads no server paths; upload the file instead")
    if not text:
        raise ValueError(f"{what}: give a path")
    if "\0" in text:
        raise ValueError(f"{what}: a path cannot hold a NUL character")
    raw = Path(text).expanduser()
    base = settings.allowed_dirs[0]
    try:
        real = (raw if raw.is_absolute() else base / raw).resolve()
    except (OSError, RuntimeError):  # a symlink loop, an unreadable component
        real = None
    if real is None or not any(real.is_relative_to(d) for d in settings.allowed_dirs):
        raise PathNotAllowed(f"{what}: {text} is not inside a directory this dashboard allows")
    try:
        found = real.exists()
    except OSError as exc:  # a name too long for the file system, say
        raise ValueError(f"{what}: {text[:80]}{'...' if len(text) > 80 else ''} cannot be read "
                         f"({exc.strerror or exc.__class__.__name__})") from None
    if not found:
        raise ValueError(f"{what}: {text} was not found")
    return real


def describe(settings: OperatorSettings) -> str:
    """One sentence for the Score page on what may be read."""
    if not settings.paths_allowed:
        return "This dashboard reads no server paths (uploads only)."
    dirs = ", ".join(str(d) for d in settings.allowed_dirs)
    return f"Paths are read only inside: {dirs} ({settings.origin})."
