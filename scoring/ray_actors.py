"""Scoring actors for ``engine="ray"``, kept alive across jobs, and the loop that feeds them shards.

A pool is a few :class:`ShardScorer` actors holding one loaded model. Pools are
kept in this process (:data:`_POOLS`, most recently used last) keyed by what the
loaded model depends on -- the model's content fingerprint, device, dtype,
pickle opt-in -- and by the pool's shape (actors, CPUs and GPUs per actor,
torch threads), so the next job of the same model in the same Ray session
scores at once instead of starting processes, importing torch and transformers
and loading the weights again. The score settings, token budget and cache
directory travel with every shard, so one pool serves any job of its model.

A kept pool holds its CPUs or GPUs and its memory. A new pool therefore first
releases the least recently used ones while the cluster lacks the resources it
asks for, or while more than ``keep`` pools would remain. Pools belong to the
Ray session they were started in: a pool from an earlier session (after
``ray.shutdown``) is forgotten, not called. Actors are owned by this driver, so
Ray ends them when the driver disconnects; :func:`release_pools` ends them
sooner.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

#: A killed actor is restarted once and its shard retried once, so one lost process does not stop a job.
RESTARTS = 1

#: Every scoring actor's name starts with this.
NAME_PREFIX = "jecs-scorer-"


class ShardScorer:
    """Ray actor: loads one model once, then scores shards of texts into the score cache, job after job."""

    def __init__(self, *, source, device: str, dtype: str, allow_pickle: bool, threads: int | None):
        import torch

        from . import loading

        if threads:
            torch.set_num_threads(threads)
        self.loaded = loading.load_model(source, device=device, dtype=dtype, allow_pickle=allow_pickle)
        self.shards = 0

    def ready(self) -> dict:
        """This actor's process id, the number of shards it has scored and its offline settings (a cheap round trip)."""
        offline = {name: os.environ.get(name) for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
        return {"pid": os.getpid(), "shards": self.shards, "offline": offline}

    def score(self, *, index: int, texts: list, digests: list, reference_loss, settings, token_budget: int,
              names: tuple, cache_directory: str, cache_meta: dict, head_memory_mib: int | None = None) -> int:
        """Score one shard and write it as a cache part tagged with its number; return the number of texts."""
        # Plain columns and pyarrow: pandas stays out of the actor's process.
        from .cache_parts import write_part
        from .work import score_columns

        rows = score_columns(self.loaded, texts, digests, settings=settings, token_budget=token_budget, names=names,
                             reference_loss=reference_loss, head_memory_mib=head_memory_mib)
        write_part(Path(cache_directory), cache_meta, rows, tag=f"-shard{int(index):06d}")
        self.shards += 1
        return len(texts)


@dataclass
class Pool:
    """Actors holding one loaded model, and what they reserve."""

    key: tuple
    actors: list
    cpus: float
    gpus: float
    jobs: int = 0
    session: tuple = field(default=())
    names: list = field(default_factory=list)

    @property
    def demand(self) -> dict[str, float]:
        return {"CPU": self.cpus * len(self.actors), "GPU": self.gpus * len(self.actors)}


_POOLS: OrderedDict[tuple, Pool] = OrderedDict()


def _session(ray) -> tuple:
    """The Ray session this driver is in: a fresh local Ray has a new node, a reconnect a new job."""
    try:
        context = ray.get_runtime_context()
        return (context.get_node_id(), context.get_job_id())
    except Exception:  # noqa: BLE001 - a client connection without these ids: treat every call as one session
        return ("unknown",)


def kept_pools() -> list[Pool]:
    """The pools kept in this process, least recently used first."""
    return list(_POOLS.values())


def release_pools(ray=None) -> int:
    """End every kept actor (when Ray is still up) and forget the pools; return how many pools were released."""
    n = len(_POOLS)
    while _POOLS:
        _release(ray, _POOLS.popitem(last=False)[1])
    return n


def _release(ray, pool: Pool) -> None:
    if ray is None:
        import ray
    if not ray.is_initialized():
        return
    for actor in pool.actors:
        # An actor already gone is what release wants.
        with contextlib.suppress(Exception):
            ray.kill(actor, no_restart=True)


def _short(ray, need: dict[str, float], freed: dict[str, float]) -> bool:
    """Whether the cluster lacks ``need`` even after ``freed`` comes back."""
    available = ray.available_resources()
    return any(need[r] > 0 and available.get(r, 0.0) + freed.get(r, 0.0) + 1e-9 < need[r] for r in need)


def acquire_pool(ray, key: tuple, *, workers: int, cpus: float, gpus: float, keep: int, make) -> Pool:
    """The kept pool for ``key``, or a new one of ``workers`` actors built by ``make(options)``.

    Actor creation is asynchronous: the new actors import torch and load the
    model while the caller goes on; calls made meanwhile wait in the actor's queue.
    """
    session = _session(ray)
    for stale in [k for k, p in _POOLS.items() if p.session != session]:
        del _POOLS[stale]  # their actors ended with their session
    pool = _POOLS.get(key)
    if pool is not None:
        _POOLS.move_to_end(key)
        pool.jobs += 1
        return pool
    need = {"CPU": cpus * workers, "GPU": gpus * workers}
    total = ray.cluster_resources()
    for resource, amount in need.items():
        # Actors that can never be placed would hold their shards forever.
        if amount > total.get(resource, 0.0) + 1e-9:
            raise ValueError(f"workers: {workers} actor(s) need {amount:g} {resource}(s) in all; the Ray cluster has "
                             f"{total.get(resource, 0.0):g} (fewer --workers, or a cluster with more: `ray start --head "
                             f"--num-{resource.lower()}s N`, then --address auto)")
    freed = {"CPU": 0.0, "GPU": 0.0}
    while _POOLS and (len(_POOLS) >= max(keep, 1) or _short(ray, need, freed)):
        old = _POOLS.popitem(last=False)[1]
        for resource, amount in old.demand.items():
            freed[resource] += amount
        _release(ray, old)
    options = {"num_cpus": cpus, "num_gpus": gpus, "max_restarts": RESTARTS, "max_task_retries": RESTARTS}
    # Named, so that `ray list actors` and ray.util.list_named_actors() show which pool an actor serves.
    tag = uuid.uuid4().hex[:8]
    names = [f"{NAME_PREFIX}{tag}-{i}" for i in range(workers)]
    actors = [make({**options, "name": name}) for name in names]
    pool = Pool(key, actors, cpus, gpus, jobs=1, session=session, names=names)
    _POOLS[key] = pool
    return pool


def forget_pool(ray, key: tuple) -> None:
    """Release one pool (after a failure its actors may be in any state)."""
    pool = _POOLS.pop(key, None)
    if pool is not None:
        _release(ray, pool)


def longest_first(shards: list[list[str]], texts_by_digest: dict[str, str]) -> list[int]:
    """Shard numbers, the shards with the most characters (a proxy for tokens) first.

    Handing the longest shards out first keeps the workers' loads even: the
    last shard to start is the shortest (longest-processing-time-first).
    """
    sizes = [sum(len(texts_by_digest[d]) for d in shard) for shard in shards]
    return [int(i) for i in np.argsort(-np.asarray(sizes, dtype=np.int64), kind="stable")]


def feed(ray, actors: list, order: list[int], submit, on_done) -> None:
    """Run every shard in ``order``, one at a time per actor, the next to whichever actor frees first.

    ``submit(actor, index)`` returns the object ref of the actor's call;
    ``on_done(index)`` runs as each shard finishes. A failed shard raises.
    """
    waiting = list(reversed(order))
    running: dict = {}
    idle = list(actors)
    while waiting or running:
        while waiting and idle:
            actor = idle.pop()
            index = waiting.pop()
            running[submit(actor, index)] = (actor, index)
        (ref,), _ = ray.wait(list(running), num_returns=1)
        actor, index = running.pop(ref)
        ray.get(ref)
        idle.append(actor)
        on_done(index)
