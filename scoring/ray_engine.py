"""``engine="ray"``: the same per-model scoring, run by an actor pool on Ray Data.

For each model the driver splits the distinct texts (sorted by digest, so the
split is the same on every run) into Parquet input shards, and Ray Data feeds
the shards that still have unscored texts to a pool of actors that each load
the model once (``num_gpus`` per actor when CUDA is present) and run this
package's own scorer (:func:`scoring.work.score_rows`). Every actor writes its
result as a part of the ordinary score cache (:mod:`scoring.cache`), tagged
with the shard number, so a run killed midway resumes from the shards already
written, and the final tables come from the same cache the local engine reads:
equal to the local engine's up to float32 batching noise.

A Ray session already open in this process is reused. Otherwise, without
``address`` (or Ray's ``RAY_ADDRESS`` variable) a small Ray is started on this
machine (``num_cpus`` CPUs, a small object store, no dashboard, logs in a
temporary directory); with one, the driver joins that cluster, whose workers must have this
package installed and see ``cache_dir`` and the model paths (a shared
filesystem). Needs the ``distributed`` extra (``ray[data]``).
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from .jobs import ModelRows
from .work import shards_of


def _ray():
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError as exc:  # the optional extra is missing
        raise ValueError('engine "ray" needs Ray Data: pip install "jecs[distributed]" (ray[data])') from exc
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
    # Ray Data's own progress bars and per-dataset INFO lines would drown the CLI's one bar.
    ray.data.DataContext.get_current().enable_progress_bars = False
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    if ray.is_initialized():
        return False
    env = {"env_vars": {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}}
    joined = cluster_address(address)
    if joined:
        ray.init(address=joined, runtime_env=env, log_to_driver=False, ignore_reinit_error=True)
        return True
    ray.init(
        num_cpus=num_cpus, object_store_memory=object_store_mb << 20, include_dashboard=False,
        _temp_dir=tempfile.mkdtemp(prefix="jray-", dir="/tmp"), log_to_driver=False, runtime_env=env,
        ignore_reinit_error=True,
    )
    return True


class ShardScorer:
    """Ray Data actor: loads one model once, then scores whole input shards into the cache."""

    def __init__(self, *, job, cache_directory: str, cache_meta: dict, threads: int | None):
        import torch

        from . import loading
        from .cache import ScoreCache

        if threads:
            torch.set_num_threads(threads)
        self.job = job
        device, dtype = job.resolved()
        self.loaded = loading.load_model(job.source, device=device, dtype=dtype, allow_pickle=job.allow_pickle)
        self.cache = ScoreCache(directory=Path(cache_directory), meta=cache_meta, names=job.names)

    def __call__(self, batch: dict) -> dict:
        from .work import score_rows

        n_texts = []
        for shard, index in zip(batch["shard"], batch["index"]):
            frame = pd.read_parquet(str(shard))
            ref = frame["reference_loss"].to_numpy(dtype=float) if "reference_loss" in frame else None
            rows = score_rows(
                self.loaded, frame["text"].tolist(), frame["text_sha"].tolist(), settings=self.job.settings,
                token_budget=self.job.token_budget, names=self.job.names, reference_loss=ref,
            )
            self.cache.write(rows, tag=f"-shard{int(index):06d}")
            n_texts.append(len(frame))
        return {"index": np.asarray(batch["index"]), "n_texts": np.asarray(n_texts)}


def write_input_shards(job, texts_by_digest: dict[str, str], root: Path, digests: list[str]) -> list[Path]:
    """Input shards of ``digests`` (:func:`scoring.work.shards_of`), written once and reused on rerun."""
    ref = None if job.reference_loss is None else job.reference_loss.loc[digests].to_numpy(dtype=float)
    key = hashlib.sha256("\n".join(digests).encode() + (b"" if ref is None else ref.tobytes())).hexdigest()[:24]
    directory = root / f"{key}-{job.shard_size}"
    paths = []
    for i, part in enumerate(shards_of(digests, job.shard_size)):
        path = directory / f"shard-{i:06d}.parquet"
        if not path.is_file():
            frame = pd.DataFrame({"text_sha": part, "text": [texts_by_digest[d] for d in part]})
            if ref is not None:
                frame["reference_loss"] = job.reference_for(part)
            directory.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            frame.to_parquet(tmp, index=False)
            tmp.replace(path)
        paths.append(path)
    return paths


@dataclass
class RayEngine:
    """Runs a :class:`scoring.runner.ModelJob` on Ray Data; callable like the local engine.

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
    """

    address: str | None = None
    workers: int = 1
    gpus_per_worker: float | None = None
    threads_per_worker: int | None = None
    num_cpus: int = 2
    object_store_mb: int = 256

    def __post_init__(self) -> None:
        for name in ("workers", "num_cpus", "object_store_mb"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {value!r}")

    def _gpus(self) -> float:
        if self.gpus_per_worker is not None:
            return float(self.gpus_per_worker)
        import torch

        return 1.0 if torch.cuda.is_available() else 0.0

    def __call__(self, job, texts_by_digest: dict[str, str], tick):
        if job.cache_dir is None:
            raise ValueError('engine "ray" writes its results to the score cache; give a cache directory')
        cache = job.open_cache()
        cached = cache.load()
        device, dtype = job.resolved()
        done_digests = set(cached.index)
        # Shards over the texts still missing: the same split as the local engine's on the same cache.
        missing = sorted(d for d in texts_by_digest if d not in done_digests)
        shards = write_input_shards(job, texts_by_digest, job.cache_dir / "ray-inputs", missing)
        pending = [{"shard": str(path), "index": i} for i, path in enumerate(shards)]
        n_new = {i: len(part) for i, part in enumerate(shards_of(missing, job.shard_size))}
        n_hit = len(texts_by_digest) - len(missing)
        if n_hit:
            tick(n_hit, f"{job.name}: {n_hit} texts from cache")
        if pending:
            self._run(job, cache, pending, lambda i: tick(n_new[i], f"{job.name}: scoring on Ray"))
            cached = cache.load()
        lost = [d for d in texts_by_digest if d not in cached.index]
        if lost:
            raise RuntimeError(f"{job.name}: {len(lost)} text(s) missing after the Ray run (cache {cache.directory})")
        return ModelRows(cached, device, dtype, n_from_cache=n_hit, n_scored=len(texts_by_digest) - n_hit)

    def _run(self, job, cache, pending: list[dict], shard_done) -> None:
        ray = _ray()
        ensure_ray(address=self.address, num_cpus=self.num_cpus, object_store_mb=self.object_store_mb)
        gpus = self._gpus()
        # Locally the CPUs are shared out among the actors; on a cluster each actor asks for one.
        cpus = 1 if gpus or cluster_address(self.address) else max(1, self.num_cpus // self.workers)
        dataset = ray.data.from_items(pending).map_batches(
            ShardScorer,
            batch_size=1,
            compute=ray.data.ActorPoolStrategy(size=self.workers),
            num_cpus=cpus,
            num_gpus=gpus,
            fn_constructor_kwargs={
                "job": replace(job, reference_loss=None), "cache_directory": str(cache.directory), "cache_meta": cache.meta,
                "threads": self.threads_per_worker or cpus,
            },
        )
        try:
            for row in dataset.iter_rows():
                shard_done(int(row["index"]))
        except Exception as exc:  # a worker killed, a node lost: Ray's error is pages long; one line, and how to go on
            from jecs_core.cli import CommandError  # the CLI prints it as one line (exit 2)

            first = (str(exc).strip().splitlines() or [""])[0][:300]
            raise CommandError(f"{job.name}: the Ray run stopped ({type(exc).__name__}: {first}); the shards already "
                               "scored are kept in the cache: run the same command again to resume") from None
