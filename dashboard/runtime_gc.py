"""Keep Streamlit's per-run garbage collection cheap.

Streamlit calls ``gc.collect(2)`` after every script run (``runner.postScriptGC``, on by
default), fragment reruns included, and a full collection walks every object the
collector tracks.  Once the dashboard's modules are imported (pandas, scipy, plotly,
pyarrow, the core) that is about 156,000 objects: 80 ms per run on the 2-core reference
machine, more than everything else an alpha step costs (see the ``bench_browser.py``
section of benchmarks/RESULTS.md).  Module-level objects live as long as the process, so
the frame imports every dashboard module once and moves what exists then into the
permanent generation with :func:`gc.freeze`.  Later collections walk only what runs
create, and still reclaim it: the setting is left on.  Reference cycles among the frozen
objects would never be collected; module objects are not garbage, so nothing is lost.

The same module warms a fresh server up (:func:`lifespan`, :func:`warm_up_in_background`): the
landing page's imports and its default view are done in background threads while the server
starts, not in the first visitor's script run.
"""

from __future__ import annotations

import ast
import contextlib
import gc
import importlib
import inspect
import logging
import pkgutil
import sys
import threading
from pathlib import Path

_LOCK = threading.Lock()
_frozen = False
_late: set[str] = set()  # lazily imported packages already frozen
_warm_up: threading.Thread | None = None
_warm_view: threading.Thread | None = None
_early = False  # freeze_loaded() ran
# Loaded by Streamlit on the landing page's first non-ASCII widget label, before its first paint.
WARM_EXTRAS = ("streamlit.emojis",)
_ROOT = Path(__file__).resolve().parents[1]
LANDING = (_ROOT / "app.py", _ROOT / "views" / "select_page.py")


def freeze_imported_modules() -> bool:
    """Import every ``dashboard`` module, then :func:`gc.freeze` once per process.

    Returns True on the call that froze, False afterwards.  Torch is not among the
    imports (the scoring engine is imported lazily by the Score page).

    Example
    -------
    >>> import gc
    >>> from dashboard.runtime_gc import freeze_imported_modules
    >>> _ = freeze_imported_modules()
    >>> gc.get_freeze_count() > 0
    True
    """
    global _frozen
    with _LOCK:  # sessions run their scripts in parallel threads
        if _frozen:
            return False
        import dashboard

        for module in pkgutil.walk_packages(dashboard.__path__, "dashboard."):
            importlib.import_module(module.name)
        gc.collect()  # what is garbage now should be freed, not frozen
        gc.freeze()
        _frozen = True
        return True


def freeze_loaded() -> bool:
    """Freeze what is imported so far, without importing more (once per process, before the first full freeze).

    The landing page forwards to Select before anything is drawn; Streamlit collects after
    that forwarding run too, and a full collection over every imported module is about 0.1 s
    on the 2-core reference machine, on the way to the first paint.  Only the young
    generations are collected first (cheap); garbage already in the oldest one is frozen with
    the rest (import-time cycles: a one-time cost).  Returns True when it froze.
    """
    global _early
    with _LOCK:
        if _frozen or _early:
            return False
        gc.collect(1)
        gc.freeze()
        _early = True
        return True


def warm_up_in_background() -> threading.Thread:
    """Import what the landing page needs in a daemon thread, then :func:`freeze_loaded`; once per process.

    The launcher (``python -m dashboard``) calls it before the server starts, so those imports
    (numpy, pandas, scipy, the core: :func:`landing_imports` and ``WARM_EXTRAS``) happen while
    the server starts and the browser loads the page, not in the first session's script run.
    The other pages' modules follow after the first drawn page (:func:`freeze_imported_modules`).

    Returns
    -------
    threading.Thread
        The warm-up thread (the same one on every call).
    """
    global _warm_up
    with _LOCK:
        if _warm_up is None:
            _warm_up = threading.Thread(target=_warm, name="jecs-warm-up", daemon=True)
            _warm_up.start()
        return _warm_up


def landing_imports() -> list[tuple[str, tuple[str, ...]]]:
    """What the frame (app.py) and the landing page (the Select page) import at their top level.

    Returns
    -------
    list of (str, tuple of str)
        ``(module, names)`` per import statement, in the scripts' order; ``names`` is empty
        for ``import module`` and lists what ``from module import ...`` takes.
    """
    found: list[tuple[str, tuple[str, ...]]] = []
    for script in LANDING:
        for node in ast.parse(script.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Import):
                found += [(alias.name, ()) for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.module != "__future__":
                found.append((node.module, tuple(alias.name for alias in node.names)))
    return found


def _warm() -> None:
    # As the scripts will: a name may be a lazy attribute (jecs_core's rules) or a submodule.
    for module, names in landing_imports():
        loaded = importlib.import_module(module)
        for name in names:
            if not hasattr(loaded, name):
                importlib.import_module(f"{module}.{name}")
    for name in WARM_EXTRAS:
        with contextlib.suppress(ImportError):  # a Streamlit release without it
            importlib.import_module(name)
    # Streamlit's first element of the process asks inspect.stack() whether it runs in a REPL; the
    # first call maps every loaded module to its file (0.15 s here), later calls reuse that map.
    inspect.stack()
    freeze_loaded()


@contextlib.asynccontextmanager
async def lifespan(app):
    """The ``st.App`` lifespan of app.py: start the warm-up when the server starts.

    Imports (:func:`warm_up_in_background`; already running under ``python -m dashboard``),
    then the landing view of a new session (:func:`dashboard.select_view.warm_default_view`),
    both in daemon threads: the server answers at once, and the work overlaps the browser's
    loading of the page.  The first session's run waits for both (:func:`wait_for_warm_up`).
    """
    global _warm_view
    warm_up_in_background()
    with _LOCK:
        if _warm_view is None:
            _warm_view = threading.Thread(target=_warm_default_view, name="jecs-warm-view", daemon=True)
            _warm_view.start()
    yield


def _warm_default_view() -> None:
    wait_for_warm_up()
    # The cached functions' spinners find no session in this thread and would log that once per call.
    context_log = logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context")
    this_thread = _OnlyOtherThreads()
    context_log.addFilter(this_thread)
    try:
        from dashboard.select_view import warm_default_view

        warm_default_view()
    except Exception:  # the page computes (and reports) the same on its own run
        logging.getLogger(__name__).exception("warming the landing view failed")
    finally:
        context_log.removeFilter(this_thread)


class _OnlyOtherThreads(logging.Filter):
    """Drops the records logged by the thread that created it."""

    def __init__(self) -> None:
        super().__init__()
        self.thread = threading.get_ident()

    def filter(self, record: logging.LogRecord) -> bool:
        return record.thread != self.thread


def wait_for_warm_up(timeout: float | None = None) -> None:
    """Block until the warm-up threads started (:func:`warm_up_in_background`, :func:`lifespan`) are over.

    Returns at once when none was started.  The frame calls it before its own imports: two
    threads importing the same circularly linked modules at once can fail with a deadlock
    ``ImportError``; and the landing view the second thread computes is the one the run needs.

    Parameters
    ----------
    timeout : float or None
        Seconds to wait at most for each thread (None: until it is over).
    """
    for thread in (_warm_up, _warm_view):
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)


def freeze_late_imports(packages: tuple[str, ...] = ("torch", "transformers")) -> bool:
    """Freeze once more when a lazily imported package has arrived (the Score page's engine).

    torch and transformers add about 170,000 tracked objects (70 ms per collection here):
    without this, every later run of every session would pay that after one scoring run.
    Whatever is alive at this moment (the finished run's table, a cached model) is frozen
    too; cycles among those objects would never be reclaimed, a one-time cost per package.
    Returns True when it froze.
    """
    with _LOCK:
        arrived = {name for name in packages if name in sys.modules} - _late
        if not arrived:
            return False
        gc.collect()
        gc.freeze()
        _late.update(arrived)
        return True
