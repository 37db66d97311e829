"""``engine="ray"``: the same per-model scoring, run by Ray actors that keep the model across jobs.

For each model the driver splits the distinct texts still missing from the
cache (sorted by digest, in shards of ``shard_size`` texts: the local engine's
split, so both run the same batches) and hands the shards, longest first, to a
pool of :class:`scoring.ray_actors.ShardScorer` actors, the next shard to
whichever actor frees first. The texts travel through Ray's object store. Each
actor loads the model once (``num_gpus`` per actor when CUDA is present), runs
this package's own scorer (:func:`scoring.work.score_columns`) and writes each
shard as a part of the ordinary score cache (:mod:`scoring.cache`), tagged with
the shard number, so a run killed midway resumes from the shards already
written, and the final tables come from the same cache the local engine reads.

The pool outlives the job: the next job of the same model in the same Ray
session reuses the loaded actors (:mod:`scoring.ray_actors`, ``keep_models``).
Ray Data is not used: its actor pool lives for one dataset, so every job paid
for new processes, imports and a model load, plus its planning and a Parquet
round trip of the texts.

A Ray session already open in this process is reused. Otherwise, without
``address`` (or Ray's ``RAY_ADDRESS`` variable) a small Ray is started on this
machine (``num_cpus`` CPUs, a small object store, no dashboard, logs in a
temporary directory); with one, the driver joins that cluster, whose workers
must have this package installed and see ``cache_dir`` and the model paths (a
shared filesystem). Needs the ``distributed`` extra (Ray).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import socket
import tempfile
from dataclasses import dataclass

from .jobs import ModelRows
from .work import shards_of

#: Set in every Ray worker: models come from local directories, never the network.
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


def _ray():
    try:
        import ray
    except ImportError as exc:  # the optional extra is missing
        raise ValueError('engine "ray" needs Ray: pip install "jecs[distributed]"') from exc
    return ray


def cluster_address(address: str | None) -> str | None:
    """The cluster to join: ``address``, else Ray's own ``RAY_ADDRESS`` variable, else ``None`` (start one)."""
    return address or os.environ.get("RAY_ADDRESS") or None


def ensure_ray(*, address: str | None, num_cpus: int, object_store_mb: int) -> bool:
    """Reuse this process's Ray session, join a running cluster, or start a small local Ray.

    A session already open in this process (an earlier model, an earlier job) is reused as it
    is. Otherwise the driver joins ``address`` or, without one, ``RAY_ADDRESS`` (``"auto"``:
    the cluster ``ray start`` opened on this machine), so that a session kept running
    between jobs is reused; only without either is a Ray of ``num_cpus`` CPUs started.

    Returns
    -------
    bool
        Whether this call connected or started Ray (``False`` when a session was open).
    """
    ray = _ray()
    if ray.is_initialized():
        return False
    joined = cluster_address(address)
    if joined:
        _check_reachable(joined, "--address" if address else "RAY_ADDRESS")
        ray.init(address=joined, runtime_env={"env_vars": OFFLINE}, log_to_driver=False, ignore_reinit_error=True)
        return True
    # A local Ray's processes inherit this environment, so the variables need no runtime_env: Ray
    # hands an actor one of the worker processes it starts ahead of time only when the job has no
    # runtime_env, which spares a cold pool a process start.
    logs = tempfile.mkdtemp(prefix="jray-", dir="/tmp")
    atexit.register(_shut_down_and_remove, logs)  # runs before Ray's own exit handler: shut it down first
    with _environment(OFFLINE):
        ray.init(
            num_cpus=num_cpus, object_store_memory=object_store_mb << 20, include_dashboard=False,
            _temp_dir=logs, log_to_driver=False, ignore_reinit_error=True,
        )
    return True


def _shut_down_and_remove(logs: str) -> None:
    """The local Ray this process started, stopped; its session directory removed."""
    ray = _ray()
    if ray.is_initialized():
        ray.shutdown()
    shutil.rmtree(logs, ignore_errors=True)


def _check_reachable(address: str, given_by: str) -> None:
    """A ``host:port`` that answers, checked in seconds: Ray itself retries an unreachable one for minutes."""
    host, _, port = address.rpartition(":")
    if address == "auto" or "://" in address or not host or not port.isdigit():
        return  # "auto" and client addresses are Ray's to resolve
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=10).close()  # [::1]:6379 is IPv6
    except OSError as exc:
        raise ValueError(f"{given_by}: no Ray cluster answers at {address} ({exc.strerror or exc}); start it there with "
                         "`ray start --head`, or leave the address out to start a Ray on this machine") from None


@contextlib.contextmanager
def _environment(variables: dict[str, str]):
    """``os.environ`` with ``variables`` set for the duration (what it held before comes back)."""
    before = {name: os.environ.get(name) for name in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@dataclass
class RayEngine:
    """Runs a :class:`scoring.jobs.ModelJob` on kept Ray actors; callable like the local engine.

    Parameters
    ----------
    address : str, optional
        A Ray cluster to join (``ray://...`` or ``host:port``); ``None``
        starts a local Ray with ``num_cpus`` CPUs.
    workers : int
        Actors in each model's pool (each holds one copy of the model).
    gpus_per_worker : float, optional
        GPUs per actor; default 1 when this machine sees CUDA, else 0.
    threads_per_worker : int, optional
        torch CPU threads in each actor (default: CPUs per worker).
    num_cpus, object_store_mb : int
        Size of a locally started Ray.
    keep_models : int
        Pools (one per model and pool shape) kept loaded in this process for
        later jobs; ``0`` ends each model's actors when its job ends. Fewer are
        kept when the cluster lacks the CPUs or GPUs a new pool asks for.
    """

    address: str | None = None
    workers: int = 1
    gpus_per_worker: float | None = None
    threads_per_worker: int | None = None
    num_cpus: int = 2
    object_store_mb: int = 256
    keep_models: int = 2

    def __post_init__(self) -> None:
        if isinstance(self.keep_models, bool) or not isinstance(self.keep_models, int) or self.keep_models < 0:
            raise ValueError(f"keep_models must be an integer >= 0, got {self.keep_models!r}")
        for name in ("workers", "num_cpus", "object_store_mb"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {value!r}")

    def _local_cpus(self) -> int:
        """CPUs of a Ray this process starts: at least one per actor, so the pool asked for can be placed."""
        return max(self.num_cpus, self.workers)

    def _gpus(self) -> float:
        if self.gpus_per_worker is not None:
            return float(self.gpus_per_worker)
        import torch

        return 1.0 if torch.cuda.is_available() else 0.0

    def _pool(self, ray, job, cache, device: str, dtype: str):
        """The kept actors for this job's model on ``device`` in ``dtype`` (new ones when none are kept)."""
        from .ray_actors import ShardScorer, acquire_pool

        gpus = self._gpus()
        # Locally the CPUs are shared out among the actors; on a cluster each actor asks for one.
        cpus = 1 if gpus or cluster_address(self.address) else max(1, self._local_cpus() // self.workers)
        threads = self.threads_per_worker or cpus
        key = (cache.meta["model_fingerprint"], device, dtype, job.allow_pickle, self.workers, cpus, gpus, threads)
        remote = ray.remote(ShardScorer)

        def make(options):
            return remote.options(**options).remote(
                source=job.source, device=device, dtype=dtype, allow_pickle=job.allow_pickle, threads=threads)

        return acquire_pool(ray, key, workers=self.workers, cpus=cpus, gpus=gpus, keep=self.keep_models, make=make)

    def __call__(self, job, texts_by_digest: dict[str, str], tick):
        if job.cache_dir is None:
            raise ValueError('engine "ray" writes its results to the score cache; give a cache directory')
        cache = job.open_cache()
        cached = cache.load()
        device, dtype = job.resolved()
        done_digests = set(cached.index)
        # Shards over the texts still missing: the same split as the local engine's on the same cache.
        missing = sorted(d for d in texts_by_digest if d not in done_digests)
        n_hit = len(texts_by_digest) - len(missing)
        if n_hit:
            tick(n_hit, f"{job.name}: {n_hit} texts from cache")
        if missing:
            self._run(job, cache, texts_by_digest, shards_of(missing, job.shard_size), tick, device, dtype)
            cached = cache.load()
        lost = [d for d in texts_by_digest if d not in cached.index]
        if lost:
            raise RuntimeError(f"{job.name}: {len(lost)} text(s) missing after the Ray run (cache {cache.directory})")
        return ModelRows(cached, device, dtype, n_from_cache=n_hit, n_scored=len(texts_by_digest) - n_hit)

    def _run(self, job, cache, texts_by_digest: dict[str, str], shards: list[list[str]], tick, device: str,
             dtype: str) -> None:
        from .ray_actors import feed, forget_pool, longest_first

        ray = _ray()
        ensure_ray(address=self.address, num_cpus=self._local_cpus(), object_store_mb=self.object_store_mb)
        # Asked for first: new actors load the model while the shards are ordered, and the first calls queue.
        pool = self._pool(ray, job, cache, device, dtype)
        common = {"settings": job.settings, "token_budget": job.token_budget, "names": job.names,
                  "head_memory_mib": job.head_memory_mib,
                  "cache_directory": str(cache.directory), "cache_meta": cache.meta}

        def submit(actor, index):
            part = shards[index]
            return actor.score.remote(index=index, texts=[texts_by_digest[d] for d in part], digests=part,
                                      reference_loss=job.reference_for(part), **common)

        def done(index):
            tick(len(shards[index]), f"{job.name}: scoring on Ray")

        try:
            feed(ray, pool.actors, longest_first(shards, texts_by_digest), submit, done)
        except Exception as exc:  # a worker killed, a node lost: Ray's error is pages long; one line, and how to go on
            from jecs_core.cli import CommandError  # the CLI prints it as one line (exit 2)

            forget_pool(ray, pool.key)
            first = (str(exc).strip().splitlines() or [""])[0][:300]
            raise CommandError(f"{job.name}: the Ray run stopped ({type(exc).__name__}: {first}); the shards already "
                               "scored are kept in the cache: run the same command again to resume") from None
        finally:
            if self.keep_models == 0:
                forget_pool(ray, pool.key)
