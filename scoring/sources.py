"""Where a model lives on disk: parsing ``NAME=PATH`` and checking the path.

Torch-free, so that bad model arguments fail fast, before torch and
transformers are imported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

# Model names become column names (``score_<name>``, ``member_<name>``), so keep
# them to characters that survive CSV headers, shells and Parquet alike.
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")


class ModelLoadError(ValueError):
    """A model that cannot be used: one line naming the file (a ``ValueError``, so CLIs print it)."""


@dataclass(frozen=True)
class ModelSource:
    """A local model: a Hugging Face directory, or a GGUF file inside one.

    Attributes
    ----------
    directory : pathlib.Path
        The directory given to ``from_pretrained`` (absolute).
    gguf_file : str or None
        File name of a GGUF checkpoint inside ``directory``; ``None`` for a
        regular Hugging Face directory (``config.json`` plus weights).
    """

    directory: Path
    gguf_file: str | None = None

    @property
    def display(self) -> str:
        """The path as the user would write it."""
        return str(self.directory / self.gguf_file) if self.gguf_file else str(self.directory)


def model_source(path: str | Path, *, name: str = "model") -> ModelSource:
    """Check a model path and return its :class:`ModelSource`.

    Parameters
    ----------
    path : str or pathlib.Path
        A Hugging Face model directory (with ``config.json``), or a path
        ending in ``.gguf``, which means that GGUF file inside its parent
        directory.
    name : str
        The model's name, used in error messages.

    Raises
    ------
    ValueError
        If the directory or file does not exist, or the directory has no
        ``config.json``.
    """
    p = Path(path).expanduser()
    if p.suffix.lower() == ".gguf":
        if not p.is_file():
            raise ModelLoadError(f"model {name!r}: GGUF file {str(p)!r} does not exist")
        return ModelSource(directory=p.parent.resolve(), gguf_file=p.name)
    if not p.exists():
        raise ModelLoadError(f"model {name!r}: directory {str(p)!r} does not exist")
    if not p.is_dir():
        raise ModelLoadError(
            f"model {name!r}: {str(p)!r} is not a directory (give a Hugging Face model "
            "directory or a path ending in .gguf)"
        )
    if not (p / "config.json").is_file():
        ggufs = sorted(p.glob("*.gguf"))
        if len(ggufs) == 1:  # a directory holding one GGUF checkpoint means that file
            return ModelSource(directory=p.resolve(), gguf_file=ggufs[0].name)
        raise ModelLoadError(
            f"model {name!r}: directory {str(p)!r} has no config.json, so it is not a "
            "Hugging Face model directory (for a GGUF checkpoint give the .gguf file's path, or a directory "
            "holding exactly one .gguf file)"
        )
    return ModelSource(directory=p.resolve())


def check_model_name(name: str) -> str:
    """Return ``name`` if it can be used in column names, else raise ``ValueError``."""
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise ValueError(
            f"model name {name!r} must start with a letter or digit and hold only letters, digits, '_', '.' and '-'"
        )
    return name


def parse_model_spec(spec: str) -> tuple[str, ModelSource]:
    """Parse a CLI ``NAME=PATH`` argument.

    Raises
    ------
    ValueError
        If the argument has no ``=``, the name is not usable as a column
        suffix, or the path is not a usable model (see :func:`model_source`).
    """
    name, sep, path = spec.partition("=")
    if not sep or not name or not path:
        raise ValueError(f"--model expects NAME=DIR (or NAME=DIR/file.gguf), got {spec!r}")
    check_model_name(name)
    return name, model_source(path, name=name)


def check_models(models: dict) -> dict[str, ModelSource]:
    """Validate a ``{name: path or ModelSource}`` mapping; return names to sources."""
    if not models:
        raise ValueError("models must name at least one model")
    out: dict[str, ModelSource] = {}
    for name, path in models.items():
        check_model_name(name)
        out[name] = path if isinstance(path, ModelSource) else model_source(path, name=name)
    return out
