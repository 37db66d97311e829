"""Column roles by name (docs/DATA-CONTRACT.md): the prefixes that give a wide table's column its role,
the test for the long layout, and the columns a CSV reader keeps as written.

Their own module, importing nothing of the project, so the readers below the data contract (Parquet cells, the long
layout, the CSV readers) use them too without importing the contract.
"""

import unicodedata

SCORE_PREFIX = "score_"
MEMBER_PREFIX = "member_"
COVARIATE_PREFIX = "x_"
# Columns of the selection export (jecs_core.export) that an input column may not take.
RESERVED_COLUMNS = ("selected", "p_max", "p_tilde")
RESERVED_PREFIXES = ("p_", "selected_")
RESERVED_MODELS = frozenset(name[len("p_"):] for name in RESERVED_COLUMNS if name.startswith("p_"))
ROLE_PREFIXES = {SCORE_PREFIX: "a model's scores", MEMBER_PREFIX: "a model's member labels", COVARIATE_PREFIX: "a covariate"}


# Bidirectional embeddings, overrides and isolates: inside a name they reorder what is printed after it.
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def display_breaker(name: str, *, allow: str = "") -> str | None:
    """The first character of ``name`` that would break or rewrite a printed line, or ``None``.

    A control character (C0, DEL, C1), a line or paragraph separator, or a bidirectional control;
    ``allow`` lists characters let through (a tab in a header, left to the tab-separated file's hint).
    """
    for ch in name:
        if ch in allow:
            continue
        if ch in _BIDI_CONTROLS or unicodedata.category(ch) in ("Cc", "Zl", "Zp"):
            return ch
    return None


def is_reserved_column(name: str) -> bool:
    """A name the selection export writes itself (``selected``, ``selected_<method>``, ``p_<...>``)."""
    return name in RESERVED_COLUMNS or name.startswith(RESERVED_PREFIXES)


def role_lookalike(name: str) -> tuple[str, str] | None:
    """``(prefix, suggested name)`` when column ``name`` would have a role but for its spelling
    (``Score_m0``, `` score_m0``, ``score-m0``, ``scores_m0``; an ``x_`` covariate by letter case only)."""
    key = "_".join(name.strip().replace("-", "_").split(" ")).lower()
    for prefix in ROLE_PREFIXES:
        if prefix == COVARIATE_PREFIX:  # "x-ray" or "xs_..." are likelier plain columns than covariates: case only
            if name.lower().startswith(prefix) and not name.startswith(prefix):
                return prefix, prefix + name[len(prefix):]
            continue
        for written in (prefix, prefix[:-1] + "s_"):  # score_ or scores_
            if key.startswith(written) and len(key) > len(written) and not name.startswith(prefix):
                return prefix, prefix + name.strip()[len(written):].strip()
    return None


def misspelled_scores(unmatched, extra, models) -> str:
    """A hint naming the column that would be ``score_<model>`` for a ``member_<model>`` but for its spelling."""
    hints = []
    for model in sorted(unmatched):
        near = [c for c in extra if isinstance(c, str) and role_lookalike(c) == (SCORE_PREFIX, SCORE_PREFIX + model)]
        near += [SCORE_PREFIX + m for m in sorted(models) if m != model and m.strip() == model.strip()]
        if near:
            hints.append(f"column {near[0]!r} looks like {SCORE_PREFIX + model!r}: rename it so")
    return "; " + "; ".join(hints) if hints else ""


def is_long_header(names) -> bool:
    """A long table: ``model`` and ``score`` columns and no ``score_<model>`` column (layout ``"auto"``)."""
    names = [str(name) for name in names]
    return "model" in names and "score" in names and not any(name.startswith(SCORE_PREFIX) for name in names)


def read_as_written(names, layout: str = "auto") -> tuple:
    """The columns of a score-table CSV whose cells are kept as written: the ids, the long layout's model
    names and every carried column (``007`` stays ``007``, ``NA`` stays ``NA``, an empty cell is "").

    The split, the scores, the labels and the ``x_`` covariates are typed by the reader and checked."""
    long = layout == "long" or (layout == "auto" and is_long_header(names))
    typed = {"split", "score", "member"} if long else {"split"}  # the long layout's own typed columns
    prefixes = (COVARIATE_PREFIX,) if long else (SCORE_PREFIX, MEMBER_PREFIX, COVARIATE_PREFIX)
    return tuple(name for name in names if name not in typed and not str(name).startswith(prefixes))


def id_form(item_id: str) -> str:
    """An item id with compatibility forms and invisible characters folded (letter case and spaces kept:
    ``a1`` and ``A1`` may be two items, ``café`` composed and decomposed are not)."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", item_id) if unicodedata.category(ch) != "Cf")


def printed_form(name: str) -> str:
    """What a reader sees of a name: compatibility forms, letter case, spaces and invisible characters folded."""
    shown = "".join(ch for ch in unicodedata.normalize("NFKC", name) if unicodedata.category(ch) != "Cf")
    return " ".join(shown.casefold().split())
