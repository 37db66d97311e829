"""Bytecode for the project's packages before a benchmark starts fresh processes.

``pip install`` writes each module's bytecode, so an installed copy loads its modules without
compiling them. A machine that runs with ``PYTHONDONTWRITEBYTECODE=1`` (the development machine
does) never writes it for a source checkout: every fresh process would compile the project's
modules again (about 0.2 s of ``jecs select``'s start there), while numpy, pandas and pyarrow
come with theirs. Benchmarks that time fresh processes call :func:`compile_packages` first.
"""

from __future__ import annotations

import compileall
from pathlib import Path

PACKAGES = ("jecs_core", "jecs_cli", "dashboard", "scoring", "sample_data")


def compile_packages(*trees: Path | str, packages=PACKAGES) -> None:
    """Write the bytecode of ``packages`` found in each of ``trees`` (a checkout's root)."""
    for tree in trees:
        for package in packages:
            if (Path(tree) / package).is_dir():
                compileall.compile_dir(Path(tree) / package, quiet=1)
