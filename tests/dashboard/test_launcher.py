"""``python -m dashboard``: Streamlit's own server for app.py, with the modules imported while it starts."""

import subprocess
import sys
import textwrap
import urllib.request
from pathlib import Path

import pytest

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
    from dashboard.testing import live_server

    with live_server(["-m", "dashboard"]) as (url, _), urllib.request.urlopen(f"{url}/", timeout=10) as reply:
        assert reply.status == 200


def test_a_server_that_exits_at_once_is_reported_with_where_its_output_went(tmp_path):
    from dashboard.testing import live_server

    with open(tmp_path / "server.log", "wb") as log, pytest.raises(RuntimeError, match=r"did not start; see .*server\.log"), \
            live_server(["-c", "raise SystemExit(3)"], log=log, timeout=30):
        raise AssertionError("a server that exited must not be yielded")


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_names_this_launcher_and_starts_nothing(flag):
    done = subprocess.run([sys.executable, "-m", "dashboard", flag], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: python -m dashboard") and "streamlit run --help" in done.stdout
    assert "dashboard.streamlit" not in done.stdout + done.stderr
