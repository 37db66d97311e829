"""``jecs select``'s table checks beside the p-values: the reversed-score check reuses them, a failure
while computing them never leaves the checks' thread waiting, and once they are done the export
runs without the test scores (when no diagnostic reads them) and writes the same files."""

from __future__ import annotations

import gc
import json
import threading
import time
import weakref
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import jecs_core.checks.direction as direction
import jecs_core.cli.select as select_cli
from jecs_cli import main
from jecs_core import load_scores
from jecs_core.checks import score_direction

SAMPLE = Path(__file__).resolve().parents[3] / "sample_data" / "synthetic_k4.csv"


@pytest.fixture
def reversed_file(tmp_path):
    """The synthetic sample with two models' scores negated: the check must name both."""
    frame = pd.read_csv(SAMPLE)
    frame["score_m1"], frame["score_m2"] = -frame["score_m1"], -frame["score_m2"]
    path = tmp_path / "reversed.csv"
    frame.to_csv(path, index=False)
    return path


def _no_search(*args, **kwargs):
    raise AssertionError("the reversed-score check searched the calibration scores again")


def test_the_reversed_score_check_reads_the_commands_pvalues(reversed_file, tmp_path, monkeypatch, capsys):
    (expected,) = score_direction(load_scores(str(reversed_file))).warnings()  # searched, before the patch
    assert "m1" in expected and "m2" in expected
    monkeypatch.setattr(direction, "_aucs", _no_search)
    assert main(["select", str(reversed_file), "--no-diagnostics", "--out", str(tmp_path / "sel.csv")]) == 0
    assert f"jecs select: {expected}" in capsys.readouterr().err.splitlines()


def test_with_covariate_aware_pvalues_the_check_searches(tmp_path, monkeypatch, capsys):
    pytest.importorskip("sklearn")
    from jecs_core.simulate.shift_scenarios import location_shift

    path = tmp_path / "shift.csv"
    location_shift(np.random.default_rng(0)).to_csv(path, index=False)
    searched = []
    real = direction._aucs
    monkeypatch.setattr(direction, "_aucs", lambda *a: searched.append(1) or real(*a))
    assert main(["select", str(path), "--covariates", "x_len", "--no-diagnostics"]) == 0
    assert searched == [1]  # the weighted p-values do not hold the plain counts


def test_with_covariates_the_check_runs_beside_the_weighted_pvalues(tmp_path, monkeypatch, capsys):
    # The weighted p-values wait (up to a timeout) for the reversed-score check to start: had the
    # check waited for them, the command would fail here instead of finishing.
    pytest.importorskip("sklearn")
    import jecs_core.shift.table as shift_table
    from jecs_core.simulate.shift_scenarios import location_shift

    path = tmp_path / "shift.csv"
    location_shift(np.random.default_rng(0)).to_csv(path, index=False)
    started = threading.Event()
    real_aucs, real_shift = direction._aucs, shift_table.table_shift_pvalues
    monkeypatch.setattr(direction, "_aucs", lambda *a: started.set() or real_aucs(*a))

    def weighted(*args, **kwargs):
        assert started.wait(timeout=60), "the reversed-score check waited for the covariate-weighted p-values"
        return real_shift(*args, **kwargs)

    monkeypatch.setattr(shift_table, "table_shift_pvalues", weighted)
    assert main(["select", str(path), "--covariates", "x_len", "--no-diagnostics"]) == 0


def test_a_failure_in_the_pvalues_stops_the_command_without_leaving_the_checks_waiting(monkeypatch, capsys):
    def failing(table):
        raise ValueError("the p-values failed")

    monkeypatch.setattr(select_cli, "table_pvalues", failing)
    result = []
    worker = threading.Thread(target=lambda: result.append(main(["select", str(SAMPLE), "--no-diagnostics"])), daemon=True)
    worker.start()
    worker.join(timeout=120)
    assert not worker.is_alive(), "jecs select hung after the p-values failed"
    assert result == [2]
    assert "the p-values failed" in capsys.readouterr().err


def test_an_interrupted_command_never_leaves_the_checks_holding_the_exit():
    # The checks wait on p-values the main thread fills. A Ctrl-C that ends the main thread before it
    # fills them (at any bytecode, so no handler can be relied on) must not leave the interpreter's
    # exit joining a thread that waits for ever: the thread gives up once the main thread has ended.
    script = (
        "import sys\n"
        "from concurrent.futures import Future, ThreadPoolExecutor\n"
        "import jecs_core.cli.select as s\n"
        "from jecs_core import load_scores\n"
        f"table = load_scores({str(SAMPLE)!r})\n"
        "beside = ThreadPoolExecutor(max_workers=1)\n"
        "beside.submit(s._table_checks, table, None, Future())\n"
        "sys.exit(130)\n"
    )
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 130, done.stderr[-1500:]


def test_a_waiting_helper_gets_the_result_or_the_error_it_was_given():
    from concurrent.futures import Future

    from jecs_core._threads import result_while_main_runs

    failed = Future()
    threading.Timer(0.25, lambda: failed.set_exception(ValueError("p-values failed"))).start()
    with pytest.raises(ValueError, match="p-values failed"):
        result_while_main_runs(failed, poll=0.05)  # past several polls: the main thread is alive
    filled = Future()
    threading.Timer(0.15, lambda: filled.set_result("counts")).start()
    assert result_while_main_runs(filled, poll=0.05) == "counts"


def _export(tmp_path, name, *extra):
    out = tmp_path / f"{name}.csv"
    assert main(["select", str(SAMPLE), "--no-diagnostics", "--method", "all", "--out", str(out), *extra]) == 0
    record = json.loads(out.with_suffix(".json").read_text())
    record.pop("created_utc")
    return out.read_bytes(), record


def test_the_test_scores_go_back_once_the_checks_are_done(tmp_path, monkeypatch):
    import jecs_core.data as data
    import jecs_core.export as export

    seen = {}
    real_load, real_write, real_record = data.load_scores, export.write_selection_files, export.selection_metadata

    def load(*args, **kwargs):
        table = real_load(*args, **kwargs)
        seen["scores"] = weakref.ref(table.test)
        return table

    def write(path, table, *args, **kwargs):  # the export itself never holds the scores
        seen["export reads NaN"] = bool(np.isnan(table.test).all())
        return real_write(path, table, *args, **kwargs)

    def record(*args, **kwargs):  # the sidecar is written after the checks finished
        deadline = time.monotonic() + 30  # the checks' thread lets go of its task just after finishing it
        while seen["scores"]() is not None and time.monotonic() < deadline:
            gc.collect()
            time.sleep(0.01)
        seen["released"] = seen["scores"]() is None
        return real_record(*args, **kwargs)

    monkeypatch.setattr(data, "load_scores", load)
    monkeypatch.setattr(export, "write_selection_files", write)
    monkeypatch.setattr(export, "selection_metadata", record)
    _export(tmp_path, "sel")
    assert seen["export reads NaN"] and seen["released"]


def test_without_the_test_scores_the_export_is_the_same(tmp_path, monkeypatch):
    dropped = _export(tmp_path, "dropped")
    monkeypatch.setattr(select_cli, "_without_test_scores", lambda table: table)
    assert _export(tmp_path, "kept") == dropped


def test_the_diagnostics_keep_the_test_scores(tmp_path, monkeypatch):
    def refuse(table):
        raise AssertionError("the test scores were dropped though the diagnostics read them")

    monkeypatch.setattr(select_cli, "_without_test_scores", refuse)
    assert main(["select", str(SAMPLE), "--out", str(tmp_path / "d.csv")]) == 0  # n <= 200,000: diagnostics run


def test_the_scoreless_table_copies_calibration_scores_only_when_they_are_a_view():
    import dataclasses

    table = load_scores(str(SAMPLE))
    m = table.m
    block = np.arange(float((m + table.n) * table.K)).reshape(m + table.n, table.K)
    as_view = dataclasses.replace(table, calibration=block[:m], test=block[m:])
    owned = dataclasses.replace(table, calibration=block[:m].copy(), test=block[m:].copy())
    for source in (as_view, owned):
        scoreless = select_cli._without_test_scores(source)
        assert scoreless.calibration.base is None  # nothing in it holds the block
        assert (scoreless.calibration is source.calibration) == (source.calibration.base is None)
        np.testing.assert_array_equal(scoreless.calibration, source.calibration)
        assert np.isnan(scoreless.test).all() and scoreless.test.shape == source.test.shape
