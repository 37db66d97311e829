"""Load a local causal LM and its tokenizer, offline, on a chosen device and dtype."""

from __future__ import annotations

import os
from dataclasses import dataclass

# Scoring never reaches a hub: set the offline switches before transformers
# and huggingface_hub read them (setdefault keeps a caller's explicit choice).
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import torch  # noqa: E402

from .settings import DTYPE_CHOICES  # noqa: E402
from .sources import ModelSource  # noqa: E402

_DTYPES = {
    "float32": torch.float32,
    "fp32": torch.float32,
    "bfloat16": torch.bfloat16,
    "bf16": torch.bfloat16,
    "float16": torch.float16,
    "fp16": torch.float16,
}


def resolve_device(device: str | None = None) -> torch.device:
    """Return the device to score on: CUDA when available, else CPU.

    Parameters
    ----------
    device : str, optional
        An explicit torch device string (``"cpu"``, ``"cuda"``, ``"cuda:1"``);
        ``None`` or ``"auto"`` picks.

    Raises
    ------
    ValueError
        If the string is not a device, or CUDA is asked for and unavailable.
    """
    if device is None or device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise ValueError(f"device {device!r} is not a torch device ({exc})") from None
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {device!r} asked for, but CUDA is not available on this machine")
    return dev


def resolve_dtype(device: torch.device, dtype: str | None = None) -> torch.dtype:
    """Return the weight dtype: bf16 on GPUs that support it, float32 otherwise.

    float32 on a GPU without bf16 rather than float16, because several model
    families overflow in float16; pass ``dtype="float16"`` to force it.
    """
    if dtype is None or dtype == "auto":
        if device.type == "cuda" and torch.cuda.is_bf16_supported():
            return torch.bfloat16
        return torch.float32
    if dtype not in _DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(DTYPE_CHOICES)}; got {dtype!r}")
    return _DTYPES[dtype]


def dtype_name(dtype: torch.dtype) -> str:
    """``torch.bfloat16`` -> ``"bfloat16"``."""
    return str(dtype).removeprefix("torch.")


@dataclass(frozen=True)
class LoadedModel:
    """A model ready to score: weights on ``device`` in eval mode, plus its tokenizer."""

    model: torch.nn.Module
    tokenizer: object
    device: torch.device
    dtype: torch.dtype
    source: ModelSource

    @property
    def max_positions(self) -> int | None:
        """The model's context length from its config, when it states one."""
        value = getattr(self.model.config, "max_position_embeddings", None)
        return int(value) if isinstance(value, int) and value > 0 else None


def load_model(source: ModelSource, *, device: str | None = None, dtype: str | None = None) -> LoadedModel:
    """Load a model and tokenizer from local files only.

    Parameters
    ----------
    source : ModelSource
        A checked local model (see :func:`scoring.sources.model_source`).
    device, dtype : str, optional
        Overrides for :func:`resolve_device` / :func:`resolve_dtype`.

    Returns
    -------
    LoadedModel

    Notes
    -----
    ``local_files_only=True`` and ``trust_remote_code=False`` always: scoring
    runs offline and never executes code shipped with a checkpoint. A GGUF
    checkpoint is de-quantised by transformers into ``dtype``.
    """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    dev = resolve_device(device)
    torch_dtype = resolve_dtype(dev, dtype)
    kwargs = {"local_files_only": True, "trust_remote_code": False}
    if source.gguf_file:
        kwargs["gguf_file"] = source.gguf_file
    tokenizer = AutoTokenizer.from_pretrained(source.directory, **kwargs)
    # device_map puts the weights straight on the device, so a GPU run does not
    # need a second full copy of the model in host memory.
    model = AutoModelForCausalLM.from_pretrained(source.directory, dtype=torch_dtype, device_map=dev, **kwargs)
    model.eval()
    return LoadedModel(model=model, tokenizer=tokenizer, device=dev, dtype=torch_dtype, source=source)


def free_memory() -> None:
    """Collect a dropped model and return its cached GPU memory (one model at a time)."""
    import gc

    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
