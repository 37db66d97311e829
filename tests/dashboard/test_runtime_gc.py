"""The frame freezes the imported modules once, so Streamlit's per-run full GC walks only new objects."""

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = textwrap.dedent("""
    import gc, pkgutil, sys
    import dashboard
    from dashboard.runtime_gc import freeze_imported_modules
    before = len(gc.get_objects())
    first, second = freeze_imported_modules(), freeze_imported_modules()
    names = [m.name for m in pkgutil.walk_packages(dashboard.__path__, "dashboard.")]
    missing = [n for n in names if n not in sys.modules]
    print(first, second, gc.get_freeze_count(), len(gc.get_objects()), before, len(missing), "torch" in sys.modules)
""")


def _probe() -> list[str]:
    # A fresh interpreter: freezing the test process's objects would outlive this test.
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_freezes_once_and_leaves_only_new_objects_to_the_collector():
    first, second, frozen, tracked_after, tracked_before, missing, torch = _probe()
    assert (first, second) == ("True", "False")
    assert int(missing) == 0  # every dashboard module was imported before freezing
    assert int(frozen) > int(tracked_before) // 2  # the imports' objects moved to the permanent generation
    assert int(tracked_after) < int(frozen) // 20  # a full collection now walks a small remainder
    assert torch == "False"  # the scoring engine stays a lazy import


def test_the_frame_calls_it_after_the_page_is_drawn():
    # After the page (a fresh server paints first), outside the try/finally (a forwarding run skips it).
    frame = (ROOT / "app.py").read_text()
    call = frame.index("\n    freeze_imported_modules()")  # the frame function's last statement
    assert call > frame.index("navigation.run()") and call > frame.index("finally:")


LATE = textwrap.dedent("""
    import gc, sys, types
    from dashboard.runtime_gc import freeze_imported_modules, freeze_late_imports
    freeze_imported_modules()
    none_yet = freeze_late_imports(("jecs_probe_pkg",))
    # A stand-in for a lazily imported engine: a module holding many tracked objects.
    probe = types.ModuleType("jecs_probe_pkg")
    probe.objects = [[i] for i in range(50_000)]
    sys.modules["jecs_probe_pkg"] = probe
    tracked = len(gc.get_objects())
    first, again = freeze_late_imports(("jecs_probe_pkg",)), freeze_late_imports(("jecs_probe_pkg",))
    print(none_yet, first, again, tracked, len(gc.get_objects()))
""")


def test_a_late_import_is_frozen_once_when_it_arrives():
    done = subprocess.run([sys.executable, "-c", LATE], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    none_yet, first, again, tracked, after = done.stdout.split()
    assert (none_yet, first, again) == ("False", "True", "False")
    assert int(tracked) > 50_000 and int(after) < 5_000  # the probe's objects left the collector's walk


def test_the_scoring_worker_freezes_what_the_engine_imported(monkeypatch):
    from dashboard import scoring_run

    calls = []
    monkeypatch.setattr(scoring_run, "freeze_late_imports", lambda: calls.append(1) or True)
    assert scoring_run.run_in_worker(lambda: 42, scoring_run.Progress(), lambda progress: None, interval=0.01) == 42
    assert calls == [1]


EARLY = textwrap.dedent("""
    import gc, sys
    import dashboard.compute
    from dashboard.runtime_gc import freeze_imported_modules, freeze_loaded
    first, again = freeze_loaded(), freeze_loaded()
    frozen, report_loaded = gc.get_freeze_count(), "dashboard.report" in sys.modules
    full, late = freeze_imported_modules(), freeze_loaded()
    print(first, again, frozen > 0, report_loaded, full, "dashboard.report" in sys.modules, late,
          gc.get_freeze_count() > frozen)
""")


def test_the_forwarding_run_freezes_what_is_loaded_and_the_full_freeze_still_follows():
    done = subprocess.run([sys.executable, "-c", EARLY], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    # early: froze once, imported nothing more; the full freeze then imports the rest and freezes it too
    assert done.stdout.split() == ["True", "False", "True", "False", "True", "True", "False", "True"]


def test_the_landing_page_freezes_before_it_forwards():
    frame = (ROOT / "app.py").read_text()
    home = frame[frame.index("def _home"):frame.index("PAGES = ")]
    assert home.index("freeze_loaded()") < home.index("st.switch_page(")
