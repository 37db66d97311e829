"""Which model class a checkpoint's config asks for, read before any weight loads.

jecs loads with ``trust_remote_code=False``: code shipped with a checkpoint never runs.  A
``model_type`` transformers does not implement is refused (it would need that code); a known
``model_type`` whose config also names a shipped model class (``auto_map``) loads transformers'
own class, which the run's report notes, as the author's code may compute otherwise.
"""

from __future__ import annotations

import json

from .sources import ModelLoadError, ModelSource


def check_architecture(source: ModelSource) -> str | None:
    """Refuse a directory whose ``model_type`` transformers does not implement (one line naming its config).

    Any other architecture needs the checkpoint's own code (``auto_map``), which is never run.
    A GGUF file carries its architecture in the file; transformers names it when it loads.

    Returns
    -------
    str or None
        A line for the run's report when the config names a shipped model class that transformers'
        own class stands in for; ``None`` otherwise.
    """
    if source.gguf_file:
        return None
    import transformers
    from transformers import CONFIG_MAPPING

    config = source.directory / "config.json"
    try:
        fields = json.loads(config.read_text(encoding="utf-8"))
        kind, shipped = fields.get("model_type"), fields.get("auto_map") or {}
    except (OSError, ValueError, AttributeError, RecursionError) as exc:
        raise ModelLoadError(f"{config}: not a readable model config ({' '.join(str(exc).split())[:240]})") from None
    if kind is not None and kind not in CONFIG_MAPPING:  # without one, transformers reads the type from the name
        why = ("it names code shipped with the checkpoint (auto_map), which jecs never runs (trust_remote_code=False)"
               if "auto_map" in fields else "a newer transformers may implement it")
        raise ModelLoadError(f"{config}: model_type {kind!r} is not an architecture transformers "
                             f"{transformers.__version__} implements; {why}")
    # Shipped tokenizer code (AutoTokenizer) does not change the scores; a shipped model class can.
    if not (isinstance(shipped, dict) and any(str(key).startswith("AutoModel") for key in shipped)):
        return None
    own = f"transformers' own {kind!r} architecture" if kind else "the architecture transformers reads from its name"
    return (f"{source.display}: its config names model code shipped with the checkpoint (auto_map), which jecs never "
            f"runs; it was loaded as {own}, whose scores can differ from that code's")
