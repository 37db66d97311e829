"""A fresh server's first render: ``streamlit run app.py`` serves an ``st.App`` whose lifespan warms the landing page up."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import streamlit as st
from streamlit.testing.v1 import AppTest
from streamlit.web.server.app_discovery import discover_asgi_app

from dashboard import compute, posthoc_view

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")


def test_streamlit_run_finds_the_app_in_app_py():
    found = discover_asgi_app(ROOT / "app.py")
    assert found.is_asgi_app and found.import_string == "app:app"


IMPORT = textwrap.dedent("""
    import sys, threading
    sys.path.insert(0, ".")
    import app
    names = {t.name for t in threading.enumerate()}
    print(type(app.app).__name__, "pandas" in sys.modules, "dashboard.state" in sys.modules,
          "jecs-warm-up" in names, "jecs-warm-view" in names)
""")


def test_importing_app_py_only_builds_the_app():
    # The server imports app.py before it answers: nothing heavy, no frame, no warm-up yet (the lifespan starts it).
    done = subprocess.run([sys.executable, "-c", IMPORT], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["App", "False", "False", "False", "False"]


LIFESPAN = textwrap.dedent("""
    import asyncio, sys
    from dashboard import compute, posthoc_view, runtime_gc
    from dashboard.select_view import warm_default_view

    async def serve():
        async with runtime_gc.lifespan(None):
            pass

    asyncio.run(serve())
    runtime_gc.wait_for_warm_up()
    calls = []
    for module, name in ((compute, "table_pvalues"), (compute, "compare_pvalues"), (posthoc_view, "fit_post_hoc")):
        real = getattr(module, name)
        setattr(module, name, lambda *a, _real=real, _name=name, **k: calls.append(_name) or _real(*a, **k))
    warm_default_view()  # everything it needs is cached by now
    print(runtime_gc._warm_up.is_alive(), runtime_gc._warm_view.is_alive(), len(calls), "pandas" in sys.modules)
""")


def test_the_lifespan_imports_and_computes_the_landing_view_in_the_background():
    done = subprocess.run([sys.executable, "-c", LIFESPAN], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False", "0", "True"]
    assert "warming the landing view failed" not in done.stderr


def _count_kernels(monkeypatch) -> list[str]:
    calls: list[str] = []
    for module, name in ((compute, "table_pvalues"), (compute, "compare_pvalues"), (posthoc_view, "fit_post_hoc")):
        real = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *a, _real=real, _name=name, **k: calls.append(_name) or _real(*a, **k))
    return calls


def test_a_new_session_reads_the_warmed_view_from_the_caches(monkeypatch):
    from dashboard.select_view import warm_default_view

    st.cache_resource.clear()
    st.cache_data.clear()
    calls = _count_kernels(monkeypatch)
    AppTest.from_file(APP, default_timeout=120).run()
    assert {"table_pvalues", "compare_pvalues", "fit_post_hoc"} <= set(calls)  # a cold session computes them
    st.cache_resource.clear()
    st.cache_data.clear()
    warm_default_view()
    calls.clear()
    at = AppTest.from_file(APP, default_timeout=120).run()
    assert not at.exception
    assert calls == []  # the warm-up used the page's own cache keys
    assert any("jecs-cards" in h.proto.body for h in at.get("html"))


def test_the_warnings_drawn_after_the_page_follow_alpha_steps():
    # A full run fills the warnings above the cards at its end (after the duplicate check); an α step
    # (the fragment's rerun) redraws them in place: one element, present only while it applies.
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["alpha"] = "0.3"
    at.run()
    assert len(at.warning) == 1 and "JECS (paper)" in at.warning[0].value
    at.slider(key="jecs.alpha").set_value(0.2).run()
    assert len(at.warning) == 0
    at.slider(key="jecs.alpha").set_value(0.3).run()
    assert len(at.warning) == 1
    assert [t.key for t in at.toggle][:2] == ["jecs.compare", "jecs.commit_first"]  # drawn after the cards


def test_the_shipped_config_serves_without_a_file_watcher_and_on_localhost():
    # The watcher resolves every loaded module's path on the event loop after each run (about half
    # a second before the landing page's first paint); the loopback address keeps server paths private.
    code = ("from streamlit import config; config.get_config_options(force_reparse=True); "
            "print(config.get_option('server.fileWatcherType'), config.get_option('server.address'))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["none", "localhost"]
