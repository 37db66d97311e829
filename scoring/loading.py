"""Load a local causal LM and its tokenizer, offline, on a chosen device and dtype."""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

# Scoring never reaches a hub: set the offline switches before transformers
# and huggingface_hub read them (setdefault keeps a caller's explicit choice).
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import torch  # noqa: E402

from .architecture import check_architecture  # noqa: E402
from .gguf_bar import following_transformers_switch  # noqa: E402
from .settings import DTYPE_CHOICES  # noqa: E402
from .sources import ModelLoadError, ModelSource  # noqa: E402

#: File names of pickled PyTorch checkpoints, refused unless the caller opts in.
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl")

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
    if dev.type not in ("cpu", "cuda"):  # meta holds no weights; mps, xla and the rest are not supported here
        raise ValueError(f"device {device!r}: expected cpu, cuda, cuda:N or auto")
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


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 240 else text[:237] + "..."


def check_weights(source: ModelSource, *, allow_pickle: bool = False) -> bool:
    """Check a model's weight files before loading; return whether to load safetensors.

    A GGUF file must start with the GGUF magic. A directory must hold
    ``*.safetensors`` files whose headers parse; a directory with only pickled
    weights (``pytorch_model.bin`` ...) is refused unless ``allow_pickle``,
    and even then transformers loads them with ``weights_only``.

    Raises
    ------
    ModelLoadError
        One line naming the offending file.
    """
    if source.gguf_file:
        path = source.directory / source.gguf_file
        with path.open("rb") as handle:
            if handle.read(4) != b"GGUF":
                raise ModelLoadError(f"{path}: not a GGUF file (no GGUF magic at the start)")
        return False
    safetensors = sorted(source.directory.glob("*.safetensors"))
    pickled = sorted(p for p in source.directory.iterdir() if p.is_file() and p.suffix.lower() in PICKLE_SUFFIXES)
    if not safetensors:
        if not pickled:
            raise ModelLoadError(f"{source.directory}: no weight files (*.safetensors) in the model directory")
        if not allow_pickle:
            raise ModelLoadError(
                f"{pickled[0]}: pickled PyTorch weights are refused (they can run code when loaded); convert the "
                "model to safetensors, or opt in with --allow-pickle-weights (loaded with weights_only)"
            )
        return False
    _check_indexes(source.directory)
    from safetensors import safe_open

    for path in safetensors:
        try:
            # Opening parses the header and checks that its offsets cover the file exactly,
            # so a file cut short (or padded) fails here without reading the tensors.
            with safe_open(str(path), framework="pt") as handle:
                handle.keys()
        except Exception as exc:  # noqa: BLE001 - every failure becomes one line naming the file
            raise ModelLoadError(f"{path}: not a readable safetensors file ({_one_line(exc)})") from None
    return True


def _check_indexes(directory) -> None:
    """Every weight-index file in ``directory`` names safetensors files beside it, and nothing else.

    transformers loads the shards an index names, whatever their format: an index that points at a
    pickled ``.bin`` would have it unpickled although safetensors are present.
    """
    import json

    for index in sorted(directory.glob("*.index.json")):
        try:
            if index.stat().st_size > 64 * 2**20:  # a real index is kilobytes
                raise ValueError("larger than 64 MiB")
            shards = set(json.loads(index.read_text(encoding="utf-8")).get("weight_map", {}).values())
        except (OSError, ValueError, AttributeError, RecursionError) as exc:
            raise ModelLoadError(f"{index}: not a readable weight index ({_one_line(exc)})") from None
        for shard in sorted(map(str, shards)):
            if not shard.endswith(".safetensors") or Path(shard).name != shard or not (directory / shard).is_file():
                raise ModelLoadError(f"{index}: names the weight file {shard!r}; only safetensors files beside the index "
                                     "are loaded (pickled weights can run code when loaded)")


def load_model(
    source: ModelSource, *, device: str | None = None, dtype: str | None = None, allow_pickle: bool = False
) -> LoadedModel:
    """Load a model and tokenizer from local files only.

    Parameters
    ----------
    source : ModelSource
        A checked local model (see :func:`scoring.sources.model_source`).
    device, dtype : str, optional
        Overrides for :func:`resolve_device` / :func:`resolve_dtype`.
    allow_pickle : bool
        Accept a directory whose weights are pickled (``pytorch_model.bin``);
        off by default, since unpickling can run code. transformers still
        loads them with ``torch.load(weights_only=True)``.

    Returns
    -------
    LoadedModel

    Raises
    ------
    ModelLoadError
        (a ``ValueError``) One line naming the file, for every loader failure:
        pickled weights without opt-in, a truncated or corrupt safetensors or
        GGUF file, a broken config or tokenizer.

    Notes
    -----
    ``local_files_only=True`` and ``trust_remote_code=False`` always: scoring
    runs offline and never executes code shipped with a checkpoint. A GGUF
    checkpoint is de-quantised by transformers into ``dtype``.
    """
    from transformers import AutoModelForCausalLM

    dev = resolve_device(device)
    torch_dtype = resolve_dtype(dev, dtype)
    use_safetensors = check_weights(source, allow_pickle=allow_pickle)
    check_architecture(source)
    tokenizer = load_tokenizer(source)
    kwargs = {"local_files_only": True, "trust_remote_code": False}
    if source.gguf_file:
        kwargs["gguf_file"] = source.gguf_file
    if not source.gguf_file:
        kwargs["use_safetensors"] = use_safetensors
    try:
        # device_map puts the weights straight on the device, so a GPU run does not
        # need a second full copy of the model in host memory.
        with following_transformers_switch() if source.gguf_file else contextlib.nullcontext():
            model = AutoModelForCausalLM.from_pretrained(source.directory, dtype=torch_dtype, device_map=dev, **kwargs)
    except Exception as exc:  # noqa: BLE001
        if "weights_only" in str(exc):  # torch's advice to load without weights_only is not one jecs takes
            raise ModelLoadError(f"{source.display}: the pickled weights hold objects beyond plain tensors, which jecs "
                                 "never unpickles; convert the model to safetensors") from None
        raise ModelLoadError(f"{source.display}: the model could not be loaded ({_one_line(exc)})") from None
    model.eval()
    return LoadedModel(model=model, tokenizer=tokenizer, device=dev, dtype=torch_dtype, source=source)


_TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model", "tokenizer_config.json", "vocab.json", "vocab.txt",
                    "spiece.model", "sentencepiece.bpe.model")


def load_tokenizer(source: ModelSource):
    """The tokenizer of a checked local model, from local files only (no weights are read).

    Raises
    ------
    ModelLoadError
        One line naming the model: the tokenizer does not load, or turns text into no tokens.
    """
    from transformers import AutoTokenizer

    kwargs = {"local_files_only": True, "trust_remote_code": False}
    if source.gguf_file:
        kwargs["gguf_file"] = source.gguf_file
    elif not any((source.directory / name).is_file() for name in _TOKENIZER_FILES):
        raise ModelLoadError(f"{source.display}: no tokenizer files ({', '.join(_TOKENIZER_FILES[:3])} ...) in the model "
                             "directory; save the model's tokenizer beside its weights")
    try:
        tokenizer = AutoTokenizer.from_pretrained(source.directory, **kwargs)
    except Exception as exc:  # noqa: BLE001
        if _asks_for_code(source.directory / "tokenizer_config.json"):
            raise ModelLoadError(f"{source.display}: its tokenizer_config.json names custom tokenizer code (auto_map), "
                                 "which jecs never runs (trust_remote_code=False); save a tokenizer transformers "
                                 "ships (tokenizer.json) beside the weights") from None
        raise ModelLoadError(f"{source.display}: the tokenizer could not be loaded ({_one_line(exc)})") from None
    if not tokenizer("The quick brown fox.")["input_ids"]:  # a directory without tokenizer files loads an empty one
        raise ModelLoadError(f"{source.display}: the tokenizer turns text into no tokens; save the model's tokenizer "
                             "files (tokenizer.json or tokenizer_config.json and its vocabulary) in the directory")
    return tokenizer


def _asks_for_code(config: Path) -> bool:
    """Whether a tokenizer config names remote code (``auto_map``); an unreadable one does not."""
    try:
        return "auto_map" in json.loads(config.read_text(encoding="utf-8"))
    except (OSError, ValueError, TypeError):
        return False


def free_memory() -> None:
    """Collect a dropped model and return its cached GPU memory (one model at a time)."""
    import gc

    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
