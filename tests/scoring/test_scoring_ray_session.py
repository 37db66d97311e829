"""Which Ray session the Ray engine uses: the open one, a cluster to join, or a small local one."""

import os
from types import SimpleNamespace

import pytest

from scoring import ray_engine


class FakeRay:
    """The few calls :func:`scoring.ray_engine.ensure_ray` makes, recorded."""

    def __init__(self, initialized=False):
        self.initialized, self.calls = initialized, []
        context = SimpleNamespace(enable_progress_bars=True)
        self.data = SimpleNamespace(DataContext=SimpleNamespace(get_current=lambda: context))

    def is_initialized(self):
        return self.initialized

    def init(self, **kwargs):
        # What a local Ray's processes would inherit from this process at start.
        kwargs["inherited"] = {name: os.environ.get(name) for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
        self.calls.append(kwargs)
        self.initialized = True


@pytest.fixture
def fake(monkeypatch):
    ray = FakeRay()
    monkeypatch.setattr(ray_engine, "_ray", lambda: ray)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    return ray


def test_an_open_session_is_reused(fake):
    fake.initialized = True
    assert ray_engine.ensure_ray(address=None, num_cpus=2, object_store_mb=256) is False
    assert fake.calls == []


def test_without_an_address_a_small_local_ray_is_started_once(fake):
    assert ray_engine.ensure_ray(address=None, num_cpus=3, object_store_mb=128) is True
    assert ray_engine.ensure_ray(address=None, num_cpus=3, object_store_mb=128) is False
    (call,) = fake.calls
    assert call["num_cpus"] == 3 and call["object_store_memory"] == 128 << 20 and "address" not in call


def test_a_local_ray_inherits_the_offline_variables_without_a_runtime_env(fake, monkeypatch):
    # Without a job runtime_env, Ray gives actors the worker processes it started ahead of time.
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    ray_engine.ensure_ray(address=None, num_cpus=2, object_store_mb=256)
    (call,) = fake.calls
    assert "runtime_env" not in call and call["inherited"] == ray_engine.OFFLINE
    # The caller's own environment comes back as it was.
    assert os.environ["HF_HUB_OFFLINE"] == "0" and "TRANSFORMERS_OFFLINE" not in os.environ


@pytest.mark.parametrize("given, env, joined", [("head:6379", None, "head:6379"), (None, "auto", "auto"),
                                                ("head:6379", "other:1", "head:6379")])
def test_a_running_cluster_is_joined_without_resource_arguments(fake, monkeypatch, given, env, joined):
    if env:
        monkeypatch.setenv("RAY_ADDRESS", env)
    probed = []  # the fake cluster has no host to answer: record the probe instead
    monkeypatch.setattr(ray_engine, "_check_reachable", lambda address, given_by: probed.append((address, given_by)))
    assert ray_engine.cluster_address(given) == joined
    ray_engine.ensure_ray(address=given, num_cpus=2, object_store_mb=256)
    (call,) = fake.calls
    # Ray refuses num_cpus / object_store_memory when it connects to an existing cluster.
    assert call["address"] == joined and "num_cpus" not in call and "object_store_memory" not in call
    # A cluster's workers were started elsewhere: the variables travel in the job's runtime_env.
    assert call["runtime_env"] == {"env_vars": ray_engine.OFFLINE}
    assert probed == [(joined, "--address" if given else "RAY_ADDRESS")]  # probed before Ray is asked to join


class FakeCalls:
    """``ray.wait`` / ``ray.get`` over refs that finish in the order they were submitted."""

    def wait(self, refs, num_returns=1):
        return [min(refs)], []

    def get(self, ref):
        return ref


def test_shards_go_out_longest_first_one_at_a_time_per_actor():
    from scoring.ray_actors import feed, longest_first

    shards = [["a"], ["b", "c"], ["d"]]
    texts = {"a": "xx", "b": "x", "c": "x", "d": "xxxxx"}
    order = longest_first(shards, texts)
    assert order == [2, 0, 1]  # 5, 2 and 2 characters; ties keep shard order
    submitted, done, busy = [], [], set()

    def submit(actor, index):
        assert actor not in busy  # never two shards queued on one actor
        busy.add(actor)
        submitted.append((actor, index))
        return len(submitted)  # refs finish in submission order

    def on_done(index):
        actor = next(a for a, i in submitted if i == index)
        busy.discard(actor)
        done.append(index)

    feed(FakeCalls(), ["actor0", "actor1"], order, submit, on_done)
    assert [i for _, i in submitted] == order and sorted(done) == [0, 1, 2]
    assert {a for a, _ in submitted[:2]} == {"actor0", "actor1"}  # both actors start at once


def test_a_real_local_ray_runs_its_workers_offline_whatever_the_caller_set(tmp_path):
    # A fresh interpreter: the caller says HF_HUB_OFFLINE=0 and nothing of TRANSFORMERS_OFFLINE; the
    # workers of the Ray it starts must still be offline, and the caller's environment stay as it was.
    import subprocess
    import sys

    pytest.importorskip("ray", reason="the Ray engine needs the distributed extra (ray)")
    script = (
        "import os, ray\n"
        "from scoring.ray_engine import ensure_ray\n"
        "ensure_ray(address=None, num_cpus=1, object_store_mb=128)\n"
        "names = ('HF_HUB_OFFLINE', 'TRANSFORMERS_OFFLINE')\n"
        "worker = ray.get(ray.remote(lambda: [os.environ.get(n) for n in names]).remote())\n"
        "print(worker, [os.environ.get(n) for n in names])\n"
        "ray.shutdown()\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("TRANSFORMERS_OFFLINE", "RAY_ADDRESS")}
    env["HF_HUB_OFFLINE"] = "0"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, env=env,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "['1', '1'] ['0', None]"
