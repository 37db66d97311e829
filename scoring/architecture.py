"""Which model class a checkpoint's config asks for, read before any weight loads.

jecs loads with ``trust_remote_code=False``: code shipped with a checkpoint never runs.  A
``model_type`` transformers does not implement is refused (it would need that code); a known
``model_type`` whose config also names shipped code (``auto_map``) loads transformers' own
class, which the run's report notes, as the author's code may compute otherwise.
"""

from __future__ import annotations

import json

from .sources import ModelLoadError, ModelSource


def _config_fields(source: ModelSource) -> dict:
    config = source.directory / "config.json"
    try:
        fields = json.loads(config.read_text(encoding="utf-8"))
        fields.get("model_type")
    except (OSError, ValueError, AttributeError, RecursionError) as exc:
        raise ModelLoadError(f"{config}: not a readable model config ({' '.join(str(exc).split())[:240]})") from None
    return fields


def check_architecture(source: ModelSource) -> None:
    """Refuse a directory whose ``model_type`` transformers does not implement (one line naming its config).

    Any other architecture needs the checkpoint's own code (``auto_map``), which is never run.
    A GGUF file carries its architecture in the file; transformers names it when it loads.
    """
    if source.gguf_file:
        return
    import transformers
    from transformers import CONFIG_MAPPING

    fields = _config_fields(source)
    kind = fields.get("model_type")
    if kind is not None and kind not in CONFIG_MAPPING:  # without one, transformers reads the type from the name
        why = ("it names code shipped with the checkpoint (auto_map), which jecs never runs (trust_remote_code=False)"
               if "auto_map" in fields else "a newer transformers may implement it")
        raise ModelLoadError(f"{source.directory / 'config.json'}: model_type {kind!r} is not an architecture "
                             f"transformers {transformers.__version__} implements; {why}")


def shipped_code_note(source: ModelSource) -> str | None:
    """A line for the run's report when the config names shipped code that is loaded as transformers' own class."""
    if source.gguf_file:
        return None
    fields = _config_fields(source)
    if "auto_map" not in fields:
        return None
    kind = fields.get("model_type")
    return (f"{source.display}: its config names code shipped with the checkpoint (auto_map), which jecs never runs; "
            f"it was loaded as transformers' own {kind!r} architecture, whose scores can differ from that code's")
