"""A live dashboard server on a free local port, for the browser tests, the launcher test and the benchmarks.

Nothing here is used by the app itself: it starts ``python <launcher...>`` with the options every
automated run wants (headless, local address, no usage statistics), waits for Streamlit's health
check and stops the server afterwards. The file watcher stays as the checkout's ``.streamlit/config.toml``
sets it (off), so these servers run as a user's ``streamlit run app.py`` does.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Options given to every server started here.
SERVER_OPTIONS = ("--server.headless", "true", "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false")


def free_port() -> int:
    """A TCP port nothing listens on now (the server binds it a moment later)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def live_server(launcher: list[str], *, log=subprocess.DEVNULL, cwd: Path = ROOT, env: dict | None = None,
                timeout: float = 120.0, poll: float = 0.05) -> Iterator[tuple[str, float]]:
    """Run ``python <launcher> <SERVER_OPTIONS> --server.port <free port>`` until the block ends.

    Parameters
    ----------
    launcher : list of str
        What follows the interpreter: ``["-m", "streamlit", "run", "app.py"]``, ``["-m", "dashboard"]``.
    log : file object or int, optional
        Where the server's output goes (a binary file, or ``subprocess.DEVNULL``).
    cwd : pathlib.Path, optional
        The server's working directory (default: the repository).
    env : dict, optional
        Variables added to this process's environment for the server.
    timeout : float, optional
        Seconds to wait for the health check before giving up.
    poll : float, optional
        Seconds between health checks.

    Yields
    ------
    (str, float)
        The server's URL and the seconds from its launch to its first healthy answer.

    Raises
    ------
    RuntimeError
        When the server exits or does not answer within ``timeout`` (the message names the log).
    """
    port = free_port()
    cmd = [sys.executable, *launcher, *SERVER_OPTIONS, "--server.port", str(port)]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=log, stderr=subprocess.STDOUT,
                            env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})})
    url = f"http://127.0.0.1:{port}"
    try:
        while True:
            with contextlib.suppress(OSError), urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
                if reply.status == 200:
                    break
            if proc.poll() is not None or time.perf_counter() - start > timeout:
                where = getattr(log, "name", "its output was not kept")
                raise RuntimeError(f"the server ({' '.join(launcher)}) did not start; see {where}")
            time.sleep(poll)
        yield url, time.perf_counter() - start
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
