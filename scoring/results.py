"""Result types of a scoring run, and the wide/long tables built from per-model scores."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .settings import ScoreSettings, check_score_name


@dataclass(frozen=True)
class ModelReport:
    """What happened for one model.

    Attributes
    ----------
    name, source : str
        The model's name and path.
    device, dtype : str
        Where and in which weight dtype it ran (or would have run: the cache
        is keyed by both).
    max_length : int
        Token limit applied (the setting, lowered to the model's context).
    n_texts : int
        Rows of the texts table.
    n_from_cache, n_scored : int
        Distinct texts read from the cache / scored in this run.
    n_truncated : int
        Rows whose text was cut to ``max_length``.
    n_tokens : int
        Scored tokens over all rows.
    nan_item_ids : tuple
        Rows with NaN scores (fewer than one scored token).
    seconds : float
        Wall time for this model, loading included.
    """

    name: str
    source: str
    device: str
    dtype: str
    max_length: int
    n_texts: int
    n_from_cache: int
    n_scored: int
    n_truncated: int
    n_tokens: int
    nan_item_ids: tuple
    seconds: float


@dataclass(frozen=True)
class ScoringReport:
    """Settings of the run, one :class:`ModelReport` per model, and lines a person should read (``notes``)."""

    settings: ScoreSettings
    token_budget: int
    models: tuple[ModelReport, ...]
    notes: tuple[str, ...] = ()

    @property
    def nan_item_ids(self) -> tuple:
        """Items with a NaN score under at least one model, in first-seen order."""
        return tuple(dict.fromkeys(i for m in self.models for i in m.nan_item_ids))

    @property
    def n_truncated(self) -> int:
        """Truncated (row, model) pairs."""
        return sum(m.n_truncated for m in self.models)

    def summary(self) -> str:
        """A few human-readable lines (CLI output, dashboard captions)."""
        lines = []
        for m in self.models:
            lines.append(
                f"{m.name}: {m.n_texts} texts, {m.n_tokens} scored tokens, {m.n_scored} scored now, "
                f"{m.n_from_cache} from cache, {m.n_truncated} truncated at {m.max_length} tokens, "
                f"{len(m.nan_item_ids)} NaN, {m.device}/{m.dtype}, {m.seconds:.1f} s"
            )
        nan = self.nan_item_ids
        if nan:
            shown = ", ".join(map(str, nan[:5])) + (" ..." if len(nan) > 5 else "")
            lines.append(f"{len(nan)} item(s) have NaN scores (no scored token): {shown}")
        return "\n".join(lines)


@dataclass(frozen=True)
class ScoringOutput:
    """Result of :func:`run_scoring`.

    Attributes
    ----------
    score : str
        The score in ``wide``'s ``score_<model>`` columns.
    wide : pandas.DataFrame
        ``item_id, split, text, score_<model>...`` then the texts table's other
        columns (``member_<model>`` labels, anything else), in input row order.
    long : pandas.DataFrame
        ``item_id, model, score_name, value``: every computed score of every model.
    report : ScoringReport
    names : tuple of str
        The scores in ``long`` (registry order; the reference-based ones only
        when a reference model was given).
    """

    score: str
    wide: pd.DataFrame
    long: pd.DataFrame
    report: ScoringReport
    names: tuple[str, ...] = ()

    @property
    def models(self) -> tuple[str, ...]:
        """Model names, in the order they were given."""
        return tuple(m.name for m in self.report.models)

    def wide_for(self, score: str) -> pd.DataFrame:
        """The wide table with another score in the ``score_<model>`` columns (no re-scoring)."""
        check_score_name(score)
        if self.names and score not in self.names:
            raise ValueError(f"score {score!r} was not computed in this run (computed: {', '.join(self.names)})")
        out = self.wide.copy()
        chosen = self.long[self.long["score_name"] == score]
        for name in self.models:
            values = chosen[chosen["model"] == name].set_index("item_id")["value"]
            out[f"score_{name}"] = values.reindex(out["item_id"]).to_numpy()
        return out


def assemble_output(
    table: pd.DataFrame, per_model: dict[str, np.ndarray], score: str, report: ScoringReport, score_names
) -> ScoringOutput:
    """Build the wide and long tables from per-model (n, len(score_names)) score arrays."""
    score_names = tuple(score_names)
    names = tuple(per_model)
    column = score_names.index(score)
    wide = table[["item_id", "split", "text"]].copy()
    for name in names:
        wide[f"score_{name}"] = per_model[name][:, column]
    carried = [c for c in table.columns if c not in ("item_id", "split", "text")]
    wide = pd.concat([wide.reset_index(drop=True), table[carried].reset_index(drop=True)], axis=1)

    n, k = len(table), len(score_names)
    long = pd.DataFrame(
        {
            "item_id": np.tile(table["item_id"].to_numpy(), k * len(names)),
            "model": np.repeat(names, n * k),
            "score_name": np.tile(np.repeat(score_names, n), len(names)),
            # per_model[name].T.ravel() lists the scores one score name at a time.
            "value": np.concatenate([per_model[name].T.ravel() for name in names]) if names else [],
        }
    )
    return ScoringOutput(score=score, wide=wide, long=long, report=report, names=score_names)
