"""``python -m dashboard``: Streamlit's own server for app.py, with the modules imported while it starts."""

import os
import socket
import subprocess
import sys
import textwrap
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

WARM = textwrap.dedent("""
    import gc, sys
    from dashboard.runtime_gc import freeze_loaded, wait_for_warm_up, warm_up_in_background
    wait_for_warm_up(timeout=0)  # nothing started: returns at once
    first, second = warm_up_in_background(), warm_up_in_background()
    wait_for_warm_up()
    landing = ("pandas", "scipy.special", "dashboard.compute", "dashboard.report", "jecs_core.rules.registry")
    print(first is second, first.is_alive(), gc.get_freeze_count() > 0, freeze_loaded(),
          all(name in sys.modules for name in landing), "dashboard.lesson_data" in sys.modules)
""")


def test_the_warm_up_imports_the_landing_page_and_freezes_once_in_one_thread():
    # A fresh interpreter: freezing the test process's objects would outlive this test.
    done = subprocess.run([sys.executable, "-c", WARM], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    # one thread, done, frozen (the landing page's own freeze is then a no-op), the Select page's
    # modules and the rules' lazy imports loaded, a Learn-page module left for later
    assert done.stdout.split() == ["True", "False", "True", "False", "True", "False"]


def test_landing_imports_follow_the_frame_and_the_select_page():
    from dashboard.runtime_gc import landing_imports

    found = dict(landing_imports())
    assert found["streamlit"] == () and "state" in found["dashboard"] and "REGISTRY" in found["jecs_core"]


def test_the_launcher_runs_app_py_with_the_options_passed_through():
    from dashboard.__main__ import streamlit_argv

    argv = streamlit_argv(["--server.port", "8502"])
    assert argv[:2] == ["streamlit", "run"] and Path(argv[2]) == ROOT / "app.py"
    assert argv[3:] == ["--server.port", "8502"]


def test_the_launcher_serves_the_app():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    cmd = [sys.executable, "-m", "dashboard", "--server.headless", "true", "--server.port", str(port),
           "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        deadline, status = time.monotonic() + 120, None
        while status != 200 and time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as reply:
                    status = reply.status
            except OSError:
                time.sleep(0.3)
        assert status == 200, "the launcher's server did not answer its health check"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as reply:
            assert reply.status == 200
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
