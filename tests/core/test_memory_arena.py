"""One malloc arena for ``jecs select``: set only where glibc takes it, never over the user's setting."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys

import pytest

import jecs_core._memory as memory
from jecs_core.cli import prepare_process

# Threads that each allocate, then the arenas glibc reports (malloc_info: one <heap> per arena).
HEAPS = """
import ctypes, os, sys, tempfile, threading
sys.path.insert(0, {root!r})
if sys.argv[1] == "one":
    from jecs_core._memory import share_one_malloc_arena
    assert share_one_malloc_arena()
held = []
def work():
    held.append([bytearray(4096) for _ in range(64)])
threads = [threading.Thread(target=work) for _ in range(4)]
for t in threads: t.start()
for t in threads: t.join()
libc = ctypes.CDLL(None)
libc.fopen.restype = ctypes.c_void_p
path = os.path.join(tempfile.mkdtemp(), "info.xml")
handle = libc.fopen(path.encode(), b"w")
libc.malloc_info(0, ctypes.c_void_p(handle))
libc.fclose(ctypes.c_void_p(handle))
print(open(path).read().count("<heap nr="))
"""


def _glibc() -> bool:
    import ctypes

    return sys.platform.startswith("linux") and hasattr(ctypes.CDLL(None), "gnu_get_libc_version")


@pytest.mark.skipif(not _glibc(), reason="the arena limit is glibc's (Linux)")
def test_threads_share_one_arena_after_the_call():
    from pathlib import Path

    code = HEAPS.format(root=str(Path(__file__).resolve().parents[2]))
    env = {key: value for key, value in os.environ.items() if key != "MALLOC_ARENA_MAX"}
    heaps = {mode: int(subprocess.run([sys.executable, "-c", code, mode], capture_output=True, text=True, env=env,
                                      check=True).stdout) for mode in ("one", "default")}
    assert heaps["one"] == 1 and heaps["default"] > 1, heaps


def test_the_users_setting_wins(monkeypatch):
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert memory.share_one_malloc_arena() is False


def test_nothing_is_set_off_linux(monkeypatch):
    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    monkeypatch.setattr(memory.sys, "platform", "darwin")
    assert memory.share_one_malloc_arena() is False


@pytest.mark.parametrize("command, expected", [("select", 1), ("score", 0), ("evaluate", 0), (None, 0)])
def test_only_select_asks_for_one_arena(monkeypatch, command, expected):
    calls = []
    monkeypatch.setattr(memory, "share_one_malloc_arena", lambda: calls.append(1) or True)
    prepare_process(command)
    assert len(calls) == expected


@pytest.mark.parametrize("argv, expected", [(["select", "missing.csv"], ["select"]), (["--version"], [None])])
def test_both_entry_points_prepare_the_process_when_run_as_the_program(monkeypatch, argv, expected):
    import jecs_cli
    import jecs_core.cli as core_cli

    for main in (jecs_cli.main, core_cli.main):
        seen = []
        monkeypatch.setattr(core_cli, "prepare_process", seen.append)
        monkeypatch.setattr(sys, "argv", ["jecs", *argv])
        with pytest.raises(SystemExit) if argv == ["--version"] else contextlib.nullcontext():
            main()
        assert seen == expected, main.__module__


def test_a_host_program_calling_main_keeps_its_process_settings(monkeypatch):
    import jecs_cli
    import jecs_core.cli as core_cli

    for main in (jecs_cli.main, core_cli.main):
        seen = []
        monkeypatch.setattr(core_cli, "prepare_process", seen.append)
        assert main(["select", "missing.csv"]) == 2
        assert seen == [], main.__module__
