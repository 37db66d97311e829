"""A hand-edited set: the inspected rule's selection with items ticked in or out by the auditor.

Edits are kept as overrides (item index -> in or out) on top of the rule's selection at the
current α, for one data set; the post-hoc bound (valid for any set, however it was picked)
follows the edited set.  The export and report name it "hand-edited from <rule> at α".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from jecs_core import REGISTRY

EDITING = "jecs.hand_editing"  # the toggle
OVERRIDES = "jecs.hand_overrides"  # {"data_key": str, "items": {index: bool}}
VERSION = "jecs.hand_version"  # bumped on every edit: the editor widget starts fresh on the new values
IN_SET = "in set"


@dataclass(frozen=True)
class HandEdited:
    """The hand-edited set and how it differs from the rule's selection."""

    mask: np.ndarray
    method: str
    alpha: float
    added: tuple[str, ...]
    removed: tuple[str, ...]

    @property
    def label(self) -> str:
        return (f"hand-edited from {REGISTRY[self.method].label} at α = {self.alpha:g} "
                f"({len(self.added)} added, {len(self.removed)} removed)")

    def record(self) -> dict:
        """The sidecar's ``hand_edited`` entry (the ids make the edit reproducible from the CSV)."""
        return {"from_method": self.method, "alpha": self.alpha, "label": self.label, "n_selected": int(self.mask.sum()),
                "added_ids": list(self.added), "removed_ids": list(self.removed)}


def overrides(data_key: str) -> dict[int, bool]:
    """This data set's edits (edits made on another data set are dropped)."""
    held = st.session_state.get(OVERRIDES)
    if not held or held.get("data_key") != data_key:
        held = {"data_key": data_key, "items": {}}
        st.session_state[OVERRIDES] = held
    return held["items"]


def reset() -> None:
    st.session_state.pop(OVERRIDES, None)
    st.session_state[VERSION] = st.session_state.get(VERSION, 0) + 1


def apply(base: np.ndarray, items: dict[int, bool]) -> np.ndarray:
    """``base`` with each override applied (a copy; ``base`` is left as is)."""
    mask = np.array(base, dtype=bool, copy=True)
    if items:
        index = np.fromiter(items.keys(), dtype=np.int64, count=len(items))
        mask[index] = np.fromiter(items.values(), dtype=bool, count=len(items))
    return mask


def current(data_key: str, test_ids, base: np.ndarray, method: str, alpha: float) -> HandEdited | None:
    """The hand-edited set, or ``None`` when no edit differs from the rule's selection."""
    items = overrides(data_key)
    if not items:
        return None
    mask = apply(base, items)
    ids = np.asarray(test_ids).astype(str)
    added = tuple(ids[mask & ~base].tolist())
    removed = tuple(ids[base & ~mask].tolist())
    if not added and not removed:
        return None
    return HandEdited(mask=mask, method=method, alpha=float(alpha), added=added, removed=removed)


def record_ticks(data_key: str, rows, base, before, after) -> bool:
    """Store the ticks that changed (``before`` -> ``after``, per row of the page) as overrides.

    A tick back to the rule's own choice removes the override.  Returns whether anything changed.
    """
    items = overrides(data_key)
    changed = False
    for index, old, new in zip(rows, before, after):
        if bool(old) == bool(new):
            continue
        changed = True
        if bool(new) == bool(base[index]):
            items.pop(int(index), None)
        else:
            items[int(index)] = bool(new)
    return changed


def _on_edit(key: str, data_key: str, rows: tuple, base: tuple, before: tuple) -> None:
    """Apply a tick before the rerun draws anything, so the rerun draws a fresh editor on the stored ticks."""
    after = list(before)
    for position, change in (st.session_state.get(key) or {}).get("edited_rows", {}).items():
        if IN_SET in change and 0 <= int(position) < len(after):
            after[int(position)] = bool(change[IN_SET])
    full = dict(zip(rows, base))
    if record_ticks(data_key, rows, full, before, after):
        st.session_state[VERSION] = st.session_state.get(VERSION, 0) + 1


def editor(frame: pd.DataFrame, rows: np.ndarray, base: np.ndarray, data_key: str) -> None:
    """The visible page with an editable "in set" tick per item (every other column read-only).

    The editor's key carries a version bumped on every change (in the change callback, before the
    rerun draws), so each run draws a fresh editor on the stored ticks instead of replaying edits by
    row position on another page.  Where no callback runs (``AppTest``), the returned table's ticks
    are stored the same way.
    """
    rows = [int(r) for r in rows]
    shown = frame.copy()
    shown.insert(0, IN_SET, apply(base, overrides(data_key))[rows] if rows else np.zeros(0, dtype=bool))
    key = f"hand-editor-{st.session_state.get(VERSION, 0)}"
    number = st.column_config.NumberColumn(format="%.4f")
    config = {c: number for c in shown.columns if c.startswith("p_") or c.startswith("transformed")}
    config[IN_SET] = st.column_config.CheckboxColumn(IN_SET, help="Tick to keep the item in the hand-edited set.")
    edited = st.data_editor(shown, hide_index=True, key=key, disabled=[c for c in shown.columns if c != IN_SET],
                            column_config=config, on_change=_on_edit,
                            args=(key, data_key, tuple(rows), tuple(bool(base[r]) for r in rows),
                                  tuple(bool(v) for v in shown[IN_SET])))
    if record_ticks(data_key, rows, base, shown[IN_SET].to_numpy(), edited[IN_SET].to_numpy()):
        st.session_state[VERSION] = st.session_state.get(VERSION, 0) + 1
