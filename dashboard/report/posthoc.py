"""The report's post-hoc section and the sidecar's ``post_hoc`` block (plain HTML, no Streamlit).

The numbers are :func:`jecs_core.posthoc.post_hoc_record` (what ``jecs select`` writes) on the
inspected rule's selection and, when the auditor edited it by hand, on the hand-edited set; the
sentence is :func:`jecs_core.posthoc.post_hoc_line`.  A commit made in "commit α first" mode is
stated with its UTC times.  Every user-supplied string (item ids) is HTML-escaped.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

import numpy as np

from jecs_core import REGISTRY, Comparison, ScoreTable, __version__
from jecs_core.posthoc import post_hoc_calibration_size, post_hoc_line, post_hoc_record
from jecs_core.posthoc.report import confidence_percent

from ..plain import isolated_list

# Ids of a hand edit listed in the report (the sidecar lists them all).
MAX_IDS = 50
NOT_COMMITTED = ("α was not committed before the results were seen: it may have been picked after looking, "
                 "which the post-hoc bound allows for (the rule's own guarantee assumes a fixed α).")


@dataclass(frozen=True)
class PostHocContext:
    """The dashboard's post-hoc settings for a report or an export.

    Attributes
    ----------
    delta : float
        Error level of the bound.
    hand_mask : ndarray of bool or None
        The hand-edited set (``None``: no edit).
    hand_record : dict or None
        ``HandEdited.record()``: rule, α, label, added and removed ids.
    commit : dict or None
        The "commit α first" record (α, UTC times, undone commits, statement), when α was committed.
    """

    delta: float = 0.1
    hand_mask: np.ndarray | None = None
    hand_record: dict | None = None
    commit: dict | None = None

    def hand_applies(self, method: str) -> bool:
        """Whether the hand-edited set replaces ``method``'s selection."""
        return self.hand_mask is not None and self.hand_record is not None \
            and self.hand_record.get("from_method") == method


def post_hoc_block(table: ScoreTable, comparison: Comparison, method: str, context: PostHocContext) -> dict:
    """The ``post_hoc`` record of the set exported for ``method`` (hand-edited when the edit is from it)."""
    mask = context.hand_mask if context.hand_applies(method) else comparison.selected(method)
    record = post_hoc_record(comparison.pvalues, np.asarray(mask, dtype=bool), delta=context.delta,
                             calibration_size=post_hoc_calibration_size(table, comparison=comparison))
    if context.hand_applies(method):
        record["set"] = context.hand_record["label"]
    return record


def apply_to_sidecar(record: dict, table: ScoreTable, comparison: Comparison, method: str,
                     context: PostHocContext | None) -> dict:
    """``record`` (a selection sidecar) with the dashboard's ``post_hoc``, ``hand_edited`` and ``alpha_commit``."""
    if context is None:
        return record
    out = dict(record)
    if method in comparison.methods:  # "all": the default rule's block, already at this delta
        out["post_hoc"] = post_hoc_block(table, comparison, method, context)
    if context.hand_applies(method):
        out["hand_edited"] = dict(context.hand_record)
    if context.commit is not None:
        out["alpha_commit"] = dict(context.commit)
    return out


def _row(name: str, value) -> str:
    return f"<tr><th>{escape(name)}</th><td>{escape(str(value))}</td></tr>"


def _set_rows(title: str, record: dict, delta: float) -> str:
    return "".join([
        _row("set", title),
        _row("post-hoc bound", f"at most {record['max_contaminated']:,} of {record['n_selected']:,} items contaminated"),
        _row("max FDP", f"{100 * record['max_fdp']:.1f}%"),
        _row("in words", post_hoc_line(record["max_contaminated"], record["n_selected"], delta=delta)),
    ])


def _ids(label: str, ids) -> str:
    shown = isolated_list(ids[:MAX_IDS]) + (f" … ({len(ids) - MAX_IDS} more in the sidecar)" if len(ids) > MAX_IDS else "")
    return _row(label, shown or "-")


def _commit_html(commit: dict | None) -> str:
    if commit is None:
        return f"<p class='commit'>{escape(NOT_COMMITTED)}</p>"
    undone = "".join(f"<li>α = {r['alpha']:g} committed at {escape(str(r['committed_utc']))} UTC, "
                     f"{escape(str(r.get('how', 'undone')))} at {escape(str(r['undone_utc']))} UTC</li>"
                     for r in commit.get("undone_earlier", []))
    earlier = f"<p>Earlier commits undone in this session:</p><ul>{undone}</ul>" if undone else ""
    return f"<p class='commit'>{escape(commit['statement'])}</p>{earlier}"


def section_html(table: ScoreTable, comparison: Comparison, method: str, context: PostHocContext | None) -> str:
    """The report's post-hoc section: δ, method, the rule's bound, the hand-edited set's, the commit statement."""
    context = context or PostHocContext()
    rule = post_hoc_record(comparison.pvalues, comparison.selected(method), delta=context.delta,
                           calibration_size=post_hoc_calibration_size(table, comparison=comparison))
    rows = [_row("δ (error level)", f"{context.delta:g}"), _row("confidence", confidence_percent(context.delta)),
            _row("bound method", rule["method"]),
            _set_rows(f"{REGISTRY[method].label} at α = {comparison.alpha:g}", rule, context.delta)]
    if context.hand_applies(method):
        hand = post_hoc_block(table, comparison, method, context)
        rows += [_set_rows(context.hand_record["label"], hand, context.delta),
                 _ids("added by hand", list(context.hand_record["added_ids"])),
                 _ids("removed by hand", list(context.hand_record["removed_ids"]))]
    intro = ("<p>The bound holds with probability at least 1 − δ for every set at once, so it stays valid for an α "
             "(or a hand-edited set) chosen after looking at the results: closed testing with Simes local tests "
             "(Goeman &amp; Solari 2011, Statist. Sci.; Goeman, Meijer, Krebs &amp; Solari 2019, Biometrika), with "
             f"a calibration-urn bound where it applies; proofs and limits in docs/GUARANTEES.md of jecs {escape(__version__)}."
             "</p>")
    return f"{intro}<table class='kv'>{''.join(rows)}</table>{_commit_html(context.commit)}"
