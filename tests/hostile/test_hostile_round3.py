"""Hangs, tracebacks and silent wrongs of one small hostile input each, through the installed ``jecs`` command."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import jecs_core as jc
from jecs_core._columns import Where
from jecs_core.contract import column_roles


def _jecs(*args, timeout=120):
    return subprocess.run(["jecs", *map(str, args)], capture_output=True, text=True, timeout=timeout)


def test_column_sort_is_linear_in_the_column_count():
    names = ["item_id", "split"] + [f"score_m{i}" for i in range(50_000)] + [f"note{i}" for i in range(50_000)]
    frame = pd.DataFrame(columns=names)
    start = time.perf_counter()
    scores, _, _, extra, problems = column_roles(frame, Where("wide.parquet", np.arange(0), False))
    assert time.perf_counter() - start < 5  # the list scan per column took minutes at this width
    assert len(scores) == 50_000 and len(extra) == 50_000 and not problems


def test_wide_csv_answers_and_keeps_text_ids(tmp_path):
    frame = pd.DataFrame(np.random.default_rng(0).random((4, 3_000)), columns=[f"score_m{i}" for i in range(3_000)])
    frame.insert(0, "split", ["calibration", "calibration", "test", "test"])
    frame.insert(0, "item_id", ["NA", "null", "t1", "t2"])
    frame.to_csv(tmp_path / "wide.csv", index=False)
    table = jc.load_scores(tmp_path / "wide.csv")
    assert list(table.calibration_ids) == ["NA", "null"] and table.K == 3_000


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_device_refused():
    run = _jecs("select", "/dev/zero", timeout=30)
    assert run.returncode == 2 and "/dev/zero: not a regular file" in run.stderr and "Traceback" not in run.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_refused(tmp_path):
    os.mkfifo(tmp_path / "scores.csv")
    run = _jecs("select", tmp_path / "scores.csv", timeout=30)
    assert run.returncode == 2 and "not a regular file" in run.stderr


def test_synth_huge_pool_one_line(tmp_path):
    run = _jecs("synth", "--pool-size", 1_000_000_000_000, "--out", tmp_path / "s.csv", timeout=60)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and "--pool-size" in run.stderr
    assert not (tmp_path / "s.csv").exists()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_during_imports_exits_130():
    proc = subprocess.Popen(["jecs", "select", "missing.csv"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.25)  # inside the imports of numpy / pandas
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    if "<frozen site>" in err:  # Python's own start (site, .pth files) on a loaded machine: no jecs code ran yet
        pytest.skip("interrupted inside the interpreter's start, before the jecs entry point")
    if proc.returncode == 2:  # the command finished before the signal arrived on a fast machine
        pytest.skip("finished before the interrupt")
    assert proc.returncode == 130 and "Traceback" not in err


def test_select_loads_the_side_threads_modules_before_starting_it():
    # A Ctrl-C inside an import the main thread shares with the side thread leaves that module's lock
    # held; the side thread then waits on it for ever and the command hangs instead of exiting 130.
    # So every module the side thread imports is loaded before the thread starts.
    code = ("import sys, jecs_core.cli.select as cli\n"
            "from concurrent.futures import ThreadPoolExecutor\n"
            "seen = []\n"
            "class Recording(ThreadPoolExecutor):\n"
            "    def __init__(self, *a, **k):\n"
            "        seen.append(set(sys.modules)); super().__init__(*a, **k)\n"
            "cli.ThreadPoolExecutor = Recording\n"
            "from jecs_cli import main\n"
            "assert main(['select', sys.argv[1], '--no-diagnostics']) == 0\n"
            "done = set(sys.modules)\n"
            "late = sorted(m for m in done - seen[0] if m.startswith('jecs_core.') and not m.startswith('jecs_core.diagnostics'))\n"
            "print('LATE', late)")
    sample = Path(__file__).resolve().parents[2] / "sample_data" / "real" / "wiki_smollm2_k8.csv"
    run = subprocess.run([sys.executable, "-c", code, str(sample)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    late = run.stdout.strip().splitlines()[-1]
    assert "jecs_core.checks" not in late and "jecs_core.compare" not in late, late


def test_nullable_float_with_na_gets_the_missing_value_message():
    frame = pd.DataFrame({"item_id": ["a", "b", "c", "d"], "split": ["calibration", "calibration", "test", "test"],
                          "score_m": pd.array([0.1, 0.2, pd.NA, 0.3], dtype="Float64")})
    with pytest.raises(ValueError, match=r"column 'score_m': missing score \(empty or NaN\) at row 3"):
        jc.table_from_frame(frame)
    with pytest.raises(ValueError, match="must be finite"):
        jc.conformal_pvalues(pd.DataFrame({"a": pd.array([0.1, pd.NA], dtype="Float64")}), [[0.1], [0.3]])


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077])
def test_outputs_honour_the_umask(tmp_path, umask):
    script = ("import os, sys; os.umask(int(sys.argv[1], 8)); from jecs_cli import main; "
              "sys.exit(main(['synth', '--pool-size', '50', '--out', sys.argv[2]]))")
    out = tmp_path / "s.csv"
    run = subprocess.run([sys.executable, "-c", script, oct(umask)[2:], str(out)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask
    script = ("import os, sys; os.umask(int(sys.argv[1], 8)); from jecs_cli import main; "
              "sys.exit(main(['select', sys.argv[2], '--no-diagnostics', '--out', sys.argv[3]]))")
    selected = tmp_path / "sel.csv"
    run = subprocess.run([sys.executable, "-c", script, oct(umask)[2:], str(out), str(selected)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    for path in (selected, selected.with_suffix(".json")):  # the selection and its sidecar
        assert path.stat().st_mode & 0o777 == 0o666 & ~umask


def test_stale_partial_files_cleaned_fresh_ones_kept(tmp_path):
    from jecs_core.io import write_table

    stale, fresh = tmp_path / ".sel.csv.abc123.jecs-partial", tmp_path / ".sel.csv.def456.jecs-partial"
    stale.write_text("half a table")
    fresh.write_text("another writer, still running")
    old = time.time() - 2 * 3600
    os.utime(stale, (old, old))
    write_table(pd.DataFrame({"a": [1]}), tmp_path / "sel.csv")
    assert not stale.exists() and fresh.exists() and (tmp_path / "sel.csv").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".sel.csv.def456.jecs-partial", "sel.csv"]


def test_a_running_writers_partial_file_is_kept_and_a_dead_ones_removed(tmp_path):
    import subprocess
    import sys

    from jecs_core._writers import _host_tag
    from jecs_core.io import write_table

    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(done.stdout)  # that process has exited
    alive = tmp_path / f".sel.csv.p{os.getpid()}h{_host_tag()}.abc.jecs-partial"
    dead = tmp_path / f".sel.csv.p{dead_pid}h{_host_tag()}.def.jecs-partial"
    elsewhere = tmp_path / f".sel.csv.p{dead_pid}h{(int(_host_tag(), 16) ^ 1):08x}.ghi.jecs-partial"
    for temp in (alive, dead, elsewhere):
        temp.write_text("part of a table")
    write_table(pd.DataFrame({"a": [1]}), tmp_path / "sel.csv")
    # Only a process of this machine known to be gone is certainly not writing any more.
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([alive.name, elsewhere.name, "sel.csv"])


def test_semicolon_file_gets_the_delimiter_hint(tmp_path):
    path = tmp_path / "semi.csv"
    path.write_text("item_id;split;score_a\nc1;calibration;0,5\nt1;test;0,3\n", encoding="utf-8")
    run = _jecs("select", path, timeout=60)
    assert run.returncode == 2 and "looks semicolon-separated" in run.stderr and "more fields" not in run.stderr


def test_shift_check_names_the_harmful_direction():
    from jecs_core.shift import table_shift_check
    from jecs_core.simulate import make_scenario

    check = table_shift_check(jc.table_from_frame(make_scenario("shift_location", np.random.default_rng(0))))
    assert check.shifted
    assert any("harmful direction: calibration members scoring HIGHER" in line for line in check.lines())
