"""``engine="ray"`` keeps each model's actors loaded across jobs, releases them cleanly, and forgets dead sessions."""

import time

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
ray = pytest.importorskip("ray", reason="the Ray engine needs the distributed extra (ray)")

from scoring import ray_actors, run_scoring  # noqa: E402
from scoring.testing import random_text, save_tiny_model  # noqa: E402

SHARD = 5
OPTIONS = {"workers": 1, "threads_per_worker": 1}


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("pools")
    return {"g": save_tiny_model(root / "g", "gpt2", seed=51), "l": save_tiny_model(root / "l", "llama", seed=52)}


@pytest.fixture(scope="module", autouse=True)
def ray_session():
    yield
    ray_actors.release_pools()
    if ray.is_initialized():
        ray.shutdown()


def texts(seed, n=12):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"item_id": [f"p{seed}-{i}" for i in range(n)], "split": ["test"] * n,
                         "text": [random_text(rng, int(w)) for w in rng.integers(2, 25, n)]})


def alive_scorers(expect=None) -> list[str]:
    """Names of the scoring actors alive in this session (a dead actor's name is released).

    With ``expect``, waits up to a minute for Ray to settle on that list (a kill is asynchronous).
    """
    deadline = time.monotonic() + 60
    while True:
        names = sorted(n for n in ray.util.list_named_actors() if n.startswith(ray_actors.NAME_PREFIX))
        if expect is None or names == sorted(expect) or time.monotonic() > deadline:
            return names
        time.sleep(0.2)


def score(table, models, cache, **options):
    return run_scoring(table, models, cache_dir=cache, shard_size=SHARD, token_budget=64, engine="ray",
                       engine_options={**OPTIONS, **options})


def test_a_second_job_of_the_same_model_reuses_the_loaded_actors(models, tmp_path):
    ray_actors.release_pools()
    one = {"g": models["g"]}
    first = score(texts(1), one, tmp_path / "a")
    (pool,) = ray_actors.kept_pools()
    ids = [a._actor_id.hex() for a in pool.actors]
    before = ray.get(pool.actors[0].ready.remote())
    # New texts, a new cache: the second job must score, and must do it on the same process.
    second = score(texts(2), one, tmp_path / "b")
    assert [m.n_scored for m in first.report.models] == [12] and [m.n_scored for m in second.report.models] == [12]
    (again,) = ray_actors.kept_pools()
    assert again is pool and again.jobs == 2 and [a._actor_id.hex() for a in again.actors] == ids
    after = ray.get(pool.actors[0].ready.remote())
    assert after["pid"] == before["pid"] and after["shards"] == before["shards"] + 3  # 12 texts, shards of 5
    assert alive_scorers() == pool.names  # no other scoring actor was started
    assert before["offline"] == {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    local = run_scoring(texts(2), one, cache_dir=tmp_path / "local", shard_size=SHARD, token_budget=64)
    assert np.array_equal(second.long["value"], local.long["value"], equal_nan=True)  # bit-identical


@pytest.mark.parametrize("keep", [1, 2])
def test_a_new_model_releases_the_least_recently_used_pool(models, tmp_path, keep):
    # keep=1: by count. keep=2: the session's 2 CPUs are all held by the first pool, so it must go.
    ray_actors.release_pools()
    score(texts(3), {"g": models["g"]}, tmp_path / "a", keep_models=keep)
    (g_pool,) = ray_actors.kept_pools()
    score(texts(3), {"l": models["l"]}, tmp_path / "b", keep_models=keep)
    (l_pool,) = ray_actors.kept_pools()
    assert l_pool is not g_pool
    assert alive_scorers(l_pool.names) == l_pool.names


def test_keep_models_zero_ends_the_actors_with_the_job(models, tmp_path):
    ray_actors.release_pools()
    score(texts(4), models, tmp_path / "a", keep_models=0)
    assert ray_actors.kept_pools() == [] and alive_scorers([]) == []
    with pytest.raises(ValueError, match="keep_models"):
        score(texts(4), models, tmp_path / "b", keep_models=-1)


def test_more_actors_than_the_cluster_can_place_is_refused_not_left_waiting(models, tmp_path):
    with pytest.raises(ValueError, match="workers: 3 actor"):  # the session has 2 CPUs
        score(texts(4), {"g": models["g"]}, tmp_path / "a", workers=3)


def test_release_leaves_no_actor_and_a_new_session_forgets_the_old_pools(models, tmp_path):
    from scoring.ray_engine import ensure_ray

    score(texts(5), {"g": models["g"]}, tmp_path / "a")
    assert alive_scorers()
    assert ray_actors.release_pools() == 1
    assert ray_actors.kept_pools() == [] and alive_scorers([]) == []
    score(texts(5), {"g": models["g"]}, tmp_path / "b")
    (old,) = ray_actors.kept_pools()
    ray.shutdown()  # the kept actors end with the session
    assert ensure_ray(address=None, num_cpus=2, object_store_mb=256) is True
    result = score(texts(6), {"g": models["g"]}, tmp_path / "c")  # would hang or fail on the dead handles
    (new,) = ray_actors.kept_pools()
    assert new is not old and new.jobs == 1 and [m.n_scored for m in result.report.models] == [12]


def test_a_scoring_actor_killed_mid_job_is_restarted_and_the_job_finishes(models, tmp_path):
    import os
    import signal

    ray_actors.release_pools()
    one = {"g": models["g"]}
    killed = []

    def progress(done, total, message):
        if "on Ray" in message and not killed:
            (pool,) = ray_actors.kept_pools()
            pid = ray.get(pool.actors[0].ready.remote())["pid"]
            os.kill(pid, signal.SIGKILL)  # a real crash of the process holding the model
            killed.append(pid)

    found = run_scoring(texts(7), one, cache_dir=tmp_path / "a", shard_size=SHARD, token_budget=64, engine="ray",
                        engine_options=OPTIONS, progress=progress)
    local = run_scoring(texts(7), one, cache_dir=tmp_path / "local", shard_size=SHARD, token_budget=64)
    assert killed and np.array_equal(found.long["value"], local.long["value"], equal_nan=True)
    (pool,) = ray_actors.kept_pools()
    assert ray.get(pool.actors[0].ready.remote())["pid"] != killed[0]  # a restarted process, kept for the next job


def test_two_models_that_fit_together_are_both_kept_and_reused(models, tmp_path):
    from scoring.ray_engine import ensure_ray

    ray_actors.release_pools()
    ensure_ray(address=None, num_cpus=2, object_store_mb=256)  # the session, when this test runs alone
    small = {"num_cpus": 1}  # the CPUs per actor are num_cpus // workers: two pools fit the session's two CPUs
    score(texts(8), models, tmp_path / "a", **small)
    first = ray_actors.kept_pools()
    score(texts(9), models, tmp_path / "b", **small)
    assert ray_actors.kept_pools() == first and [p.jobs for p in first] == [2, 2]
