"""Where lm-eval's sample logs are: the one log of a model's directory, the models of a directory of runs.

``lm_eval --log_samples --output_path DIR`` writes ``DIR/<model name>/samples_<task>_<time>.jsonl`` beside
``results_<time>.json``; without ``--log_samples`` only the results file is written, and it holds no
per-item result.
"""

from __future__ import annotations

from pathlib import Path

SAMPLES_GLOB = "samples_*.jsonl"
RESULTS_GLOB = "results_*.json"


def _nested(directory: Path) -> list[Path]:
    """The sub-directories of ``directory`` that hold a sample log (lm-eval writes into ``DIR/<model name>/``)."""
    return [d for d in sorted(directory.iterdir()) if d.is_dir() and any(d.glob(SAMPLES_GLOB))]


def _holds_log(directory: Path) -> bool:
    """A sample log in ``directory`` or in one of its sub-directories."""
    return any(directory.glob(SAMPLES_GLOB)) or bool(_nested(directory))


def _results_only(directory: Path) -> str:
    """The reason when ``directory`` (or a sub-directory, two deep) holds lm-eval results files but no sample
    log: a run without ``--log_samples``, whose aggregate alone cannot rank items (``""`` otherwise)."""
    found = sorted({p.name for depth in ("", "*/", "*/*/") for p in directory.glob(depth + RESULTS_GLOB)})
    if not found:
        return ""
    shown = found[:3] + (["..."] if len(found) > 3 else [])
    return (f"{directory}: no {SAMPLES_GLOB} log, only lm-eval results file(s) {shown}, which hold no per-item "
            "result; re-run lm_eval with --log_samples to write the sample logs")


def logs_by_model(root: Path) -> dict[str, Path]:
    """``{model: directory}`` for the sub-directories of ``root`` that hold a sample log (named after the models)."""
    if not root.is_dir():
        raise ValueError(f"{root}: a sample log needs its model's name: give MODEL={root}")
    specs = {d.name: d for d in sorted(root.iterdir()) if d.is_dir() and _holds_log(d)}
    if not specs:
        if any(root.glob(SAMPLES_GLOB)):
            raise ValueError(f"{root}: holds a sample log itself; name its model: MODEL={root}")
        raise ValueError(_results_only(root) or f"{root}: no sub-directory holds a {SAMPLES_GLOB} file (directly or "
                         "in one sub-directory, as lm-eval --output_path writes it)")
    return specs


def log_of_model(path: Path) -> Path:
    """``path`` itself, or the one sample log in directory ``path`` (or in its one sub-directory: lm-eval
    writes ``--output_path DIR`` runs into ``DIR/<model name>/``)."""
    if path.is_dir():
        found = sorted(path.glob(SAMPLES_GLOB))
        if not found:
            nested = _nested(path)
            if len(nested) > 1:
                raise ValueError(f"{path}: {len(nested)} sub-directories hold sample logs {[d.name for d in nested]}; "
                                 "name one of them (or its file)")
            found = sorted(nested[0].glob(SAMPLES_GLOB)) if nested else found
        only_results = "" if found else _results_only(path)
        if only_results:
            raise ValueError(only_results)
        if len(found) != 1:
            names = [f.name for f in found]
            raise ValueError(f"{path}: expected one {SAMPLES_GLOB} file in this directory, found {len(found)} {names}; "
                             "name the file itself")
        path = found[0]
    if not path.exists():
        split = "; MODEL=PATH splits at the first '=', so a model named with '=' is given as a directory of model " \
                "sub-directories" if "=" in str(path) else ""
        raise ValueError(f"{path}: file not found{split}")
    if not path.is_file():  # a FIFO would block the read for ever; a directory named like a log cannot be read
        raise ValueError(f"{path}: not a regular file; expected an lm-eval {SAMPLES_GLOB} log")
    return path
