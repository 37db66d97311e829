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


def test_the_frame_calls_it_before_the_pages_run():
    frame = (ROOT / "app.py").read_text()
    assert frame.index("freeze_imported_modules()") < frame.index("navigation.run()")
