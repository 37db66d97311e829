"""Serve the dashboard with its imports done while the server starts: ``python -m dashboard [options]``.

The same server as ``streamlit run app.py [options]`` (any Streamlit option passes through,
e.g. ``--server.port 8502``).  Before the server starts, a background thread imports what
the landing page needs (numpy, pandas, scipy, the core, the Select page's modules) and
freezes it for the garbage collector (:func:`dashboard.runtime_gc.warm_up_in_background`).
Plain ``streamlit run app.py`` starts the same warm-up from app.py's lifespan, once the server
is up; here it starts before, so it overlaps the server's own start too, which then answers
later (``benchmarks/bench_first_render.py`` measures both launchers against a bare page).
"""

from __future__ import annotations

import sys
from pathlib import Path

APP = Path(__file__).resolve().parents[1] / "app.py"


def streamlit_argv(options: list[str]) -> list[str]:
    """The ``streamlit run`` command line this launcher serves.

    Parameters
    ----------
    options : list of str
        Streamlit options passed through unchanged.

    Returns
    -------
    list of str
        ``["streamlit", "run", <path of app.py>, *options]``.
    """
    return ["streamlit", "run", str(APP), *options]


USAGE = """usage: python -m dashboard [STREAMLIT OPTIONS]

Serve the JECS dashboard (app.py) with the landing page's imports done while the server starts.
Every option is passed to `streamlit run app.py` unchanged, e.g. --server.port 8502 or
--server.headless true; `streamlit run --help` lists them."""


def main(options: list[str] | None = None) -> None:
    """Start the warm-up thread, then Streamlit's own command line (it exits the process when the server stops)."""
    options = sys.argv[1:] if options is None else options
    if "-h" in options or "--help" in options:  # Streamlit's help would name a command that does not exist
        print(USAGE)
        return
    from streamlit.web import cli

    from dashboard.runtime_gc import warm_up_in_background

    warm_up_in_background()
    sys.argv = streamlit_argv(options)
    cli.main()


if __name__ == "__main__":
    main()
