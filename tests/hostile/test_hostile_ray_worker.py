"""The Ray engine with a worker killed mid-run: the job finishes or fails with one line, and a rerun resumes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("ray", reason="the Ray engine needs the distributed extra (ray)")

from scoring import run_scoring  # noqa: E402
from scoring.testing import random_text, save_tiny_model  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
SHARD = 4

# Kills the scoring actor's process (SIGKILL) once the first shard is reported, then lets the job go on.
SCRIPT = textwrap.dedent("""
    import json, os, signal, sys
    import pandas as pd
    import ray
    from jecs_core.cli import CommandError
    from scoring import ray_actors, run_scoring
    texts, models, cache, out, kill = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5] == "1"
    killed = []
    def progress(done, total, message):
        if kill and "on Ray" in message and not killed:
            for pool in ray_actors.kept_pools():  # the process holding the model, killed as a crash would
                pid = ray.get(pool.actors[0].ready.remote())["pid"]
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
    try:
        result = run_scoring(pd.read_parquet(texts), models, cache_dir=cache, shard_size=SHARD, token_budget=64,
                             engine="ray", engine_options={"workers": 1}, progress=progress)
    except CommandError as exc:
        print("killed", len(killed))
        print("failed:", exc, file=sys.stderr)
        sys.exit(2)
    result.long.to_parquet(out, index=False)
    print("killed", len(killed))
""").replace("SHARD", str(SHARD))


def _run(root, path, models, cache, out, kill):
    script = root / "kill_worker.py"
    script.write_text(SCRIPT)
    spec = json.dumps({k: str(v) for k, v in models.items()})
    return subprocess.run([sys.executable, str(script), str(path), spec, str(cache), str(out), "1" if kill else "0"],
                          cwd=REPO, capture_output=True, text=True, timeout=500, env={**os.environ, "PYTHONPATH": str(REPO)})


@pytest.mark.ray
def test_worker_killed_mid_run_finishes_or_fails_in_one_line_and_rerun_resumes(tmp_path):
    rng = np.random.default_rng(21)
    n = 24
    table = pd.DataFrame({"item_id": [f"w{i}" for i in range(n)], "split": ["calibration"] * 8 + ["test"] * 16,
                          "text": [random_text(rng, int(w)) for w in rng.integers(2, 20, n)]})
    path = tmp_path / "texts.parquet"
    table.to_parquet(path, index=False)
    models = {"g": save_tiny_model(tmp_path / "g", "gpt2", seed=41)}
    local = run_scoring(table, models, cache_dir=tmp_path / "local-cache", shard_size=SHARD, token_budget=64)
    cache = tmp_path / "ray-cache"
    first = _run(tmp_path, path, models, cache, tmp_path / "first.parquet", kill=True)
    assert "killed 1" in first.stdout, first.stderr[-3000:]  # the crash really happened
    if first.returncode == 0:  # Ray restarted the actor and retried its shard: the job finished
        np.testing.assert_allclose(pd.read_parquet(tmp_path / "first.parquet")["value"], local.long["value"],
                                   rtol=1e-6, atol=1e-9)
    else:
        assert first.returncode == 2, first.stderr[-3000:]
        (line,) = [x for x in first.stderr.splitlines() if x.startswith("failed:")]
        assert "run the same command again to resume" in line and "Traceback" not in first.stderr.split("failed:")[-1]
    rerun = _run(tmp_path, path, models, cache, tmp_path / "rerun.parquet", kill=False)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    np.testing.assert_allclose(pd.read_parquet(tmp_path / "rerun.parquet")["value"], local.long["value"],
                               rtol=1e-6, atol=1e-9)
