"""``engine="ray"``: a real local Ray session on tiny models, equal to the local engine, resumable after a kill."""

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
ray = pytest.importorskip("ray", reason="the Ray engine needs the distributed extra (ray)")

from scoring import run_scoring  # noqa: E402
from scoring.testing import random_text, save_tiny_model  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
SHARD = 6


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("ray")
    rng = np.random.default_rng(9)
    n = 48
    texts = [random_text(rng, int(w)) for w in rng.integers(1, 30, n)]
    texts[3] = ""
    table = pd.DataFrame({"item_id": [f"r{i}" for i in range(n)], "split": ["calibration"] * 16 + ["test"] * 32,
                          "text": texts, "member_g": np.where(np.arange(n) < 16, 1, rng.integers(0, 2, n))})
    path = root / "texts.parquet"
    table.to_parquet(path, index=False)
    models = {"g": save_tiny_model(root / "g", "gpt2", seed=31), "l": save_tiny_model(root / "l", "llama", seed=32)}
    local = run_scoring(table, models, cache_dir=root / "local-cache", shard_size=SHARD, token_budget=64)
    return root, table, path, models, local


@pytest.fixture(scope="module")
def ray_session():
    yield
    if ray.is_initialized():
        ray.shutdown()


def assert_same(found, want):
    pd.testing.assert_frame_equal(found.wide.drop(columns=[c for c in found.wide if c.startswith("score_")]),
                                  want.wide.drop(columns=[c for c in want.wide if c.startswith("score_")]))
    assert found.long[["item_id", "model", "score_name"]].equals(want.long[["item_id", "model", "score_name"]])
    np.testing.assert_allclose(found.long["value"], want.long["value"], rtol=1e-6, atol=1e-9)
    assert np.array_equal(np.isnan(found.long["value"]), np.isnan(want.long["value"]))


def _part_rows(cache_root):
    return pd.concat([pd.read_parquet(p) for p in sorted(Path(cache_root).glob("*/part-*.parquet"))])


SCRIPT = textwrap.dedent("""
    import json, os, signal, sys
    import pandas as pd
    from scoring import run_scoring
    texts, models, cache, out, kill_after = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])
    reports = []
    def progress(done, total, message):
        if "on Ray" in message:
            reports.append(done)
            if kill_after and len(reports) >= kill_after:
                os.kill(os.getpid(), signal.SIGKILL)  # no cleanup, no flush: a real crash
    result = run_scoring(pd.read_parquet(texts), models, cache_dir=cache, shard_size=SHARD, token_budget=64,
                         engine="ray", engine_options={"workers": 1}, progress=progress)
    result.long.to_parquet(out, index=False)
    print("reports", len(reports))
""").replace("SHARD", str(SHARD))


def _run_script(root, path, models, cache, out, kill_after):
    script = root / "run_ray.py"
    script.write_text(SCRIPT)
    spec = json.dumps({k: str(v) for k, v in models.items()})
    return subprocess.run([sys.executable, str(script), str(path), spec, str(cache), str(out), str(kill_after)],
                          cwd=REPO, capture_output=True, text=True, timeout=400, env={**os.environ, "PYTHONPATH": str(REPO)})


@pytest.mark.ray
def test_killed_midway_then_rerun_resumes_from_its_shards(setup):
    root, table, path, models, local = setup
    cache = root / "killed-cache"
    killed = _run_script(root, path, models, cache, root / "never.parquet", kill_after=3)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    before = _part_rows(cache)
    n_distinct = table["text"].nunique()
    assert 0 < len(before) < 2 * n_distinct  # some shards were done, not all
    rerun = _run_script(root, path, models, cache, root / "rerun.parquet", kill_after=0)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    n_reports = int(rerun.stdout.split("reports")[-1])
    assert 0 < n_reports < 2 * -(-n_distinct // SHARD)  # only the shards still missing were run
    after = _part_rows(cache)
    # Nothing lost, nothing duplicated: every (text) row once per model cache.
    for key_dir in Path(cache).glob("*/"):
        if key_dir.name.startswith(("ray-", "fingerprints")):
            continue
        rows = pd.concat([pd.read_parquet(p) for p in key_dir.glob("part-*.parquet")])
        assert rows["text_sha"].is_unique and len(rows) == n_distinct
    assert len(after) == 2 * n_distinct
    long = pd.read_parquet(root / "rerun.parquet")
    np.testing.assert_allclose(long["value"], local.long["value"], rtol=1e-6, atol=1e-9)


@pytest.mark.ray
@pytest.mark.parametrize("workers", [1, 2])
def test_ray_engine_equals_the_local_engine(setup, ray_session, workers, tmp_path):
    root, table, _, models, local = setup
    found = run_scoring(table, models, cache_dir=tmp_path / "cache", shard_size=SHARD, token_budget=64, engine="ray",
                        engine_options={"workers": workers})
    assert ray.is_initialized()
    assert ray.cluster_resources().get("CPU") == 2  # the small local session, not the whole machine
    assert_same(found, local)
    # A second run is served from the shards already in the cache.
    again = run_scoring(table, models, cache_dir=tmp_path / "cache", shard_size=SHARD, engine="ray",
                        engine_options={"workers": workers})
    assert [m.n_scored for m in again.report.models] == [0, 0]
    assert_same(again, local)


def test_engine_options_are_checked(setup):
    _, table, _, models, _ = setup
    with pytest.raises(ValueError, match="engine"):
        run_scoring(table, models, cache_dir=None, engine="spark")
    with pytest.raises(ValueError, match="workers"):
        run_scoring(table, models, cache_dir=None, engine="ray", engine_options={"workers": 0})
    with pytest.raises(ValueError, match="cache"):
        run_scoring(table, models, cache_dir=None, engine="ray")


@pytest.mark.ray
def test_cli_engine_ray_writes_the_local_engines_tables(setup, ray_session, tmp_path):
    from scoring.cli import main as score_main

    root, table, path, models, local = setup
    out, long = tmp_path / "wide.parquet", tmp_path / "long.parquet"
    argv = ["score", "--texts", str(path), "--model", f"g={models['g']}", "--model", f"l={models['l']}",
            "--out", str(out), "--all-scores", str(long), "--cache-dir", str(tmp_path / "cache"),
            "--engine", "ray", "--workers", "2", "--shard-size", str(SHARD), "--token-budget", "64",
            "--head-memory-mib", "1"]  # reaches the actors: a keyword they did not take would fail the job
    assert score_main(argv) == 0
    np.testing.assert_allclose(pd.read_parquet(long)["value"], local.long["value"], rtol=1e-6, atol=1e-9)
    assert score_main(["score", "--texts", str(path), "--model", f"g={models['g']}", "--out", str(out),
                       "--workers", "2"]) == 2  # --workers without --engine ray
