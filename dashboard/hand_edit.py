"""A hand-edited set: the inspected rule's selection with items ticked in or out by the auditor.

Edits are kept as overrides (item index -> in or out) on top of the rule's selection at the
current α, for one data set; the post-hoc bound (valid for any set, however it was picked)
follows the edited set.  The export and report name it "hand-edited from <rule> at α".
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from jecs_core import REGISTRY

from .tables import IN_SET

EDITING = "jecs.hand_editing"  # the toggle
OVERRIDES = "jecs.hand_overrides"  # {"data_key": str, "items": {index: bool}}
VERSION = "jecs.hand_version"  # bumped by a reset: every editor starts fresh on the rule's selection


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


def store(data_key: str, rows, base, values) -> None:
    """Set the given rows to the given in / out values; a value equal to the rule's own choice is no override."""
    items = overrides(data_key)
    for index, value in zip(rows, values):
        if bool(value) == bool(base[index]):
            items.pop(int(index), None)
        else:
            items[int(index)] = bool(value)


def editor(frame: pd.DataFrame, rows: np.ndarray, base: np.ndarray, data_key: str, signature: tuple) -> None:
    """The visible page with an editable "in set" tick per item (every other column read-only).

    One editor per view (``signature``: rule, α, list, search, page, and the reset count): while it
    lives, its input is the snapshot of the ticks taken when it was first drawn, so Streamlit keeps
    its edits (and the grid keeps its scroll and focus) across reruns; every row it has touched is
    written back as an override on each run, a tick undone included.
    """
    rows = [int(r) for r in rows]
    key = "hand-editor-" + hashlib.sha1(repr((data_key, signature, st.session_state.get(VERSION, 0))).encode()).hexdigest()[:16]
    snapshot_key, touched_key = f"{key}.snapshot", f"{key}.touched"
    if key not in st.session_state or snapshot_key not in st.session_state:  # a new editor: tick from the overrides
        st.session_state[snapshot_key] = apply(base, overrides(data_key))[rows].tolist() if rows else []
        st.session_state[touched_key] = set()
    shown = frame.copy()
    shown.insert(0, IN_SET, np.asarray(st.session_state[snapshot_key], dtype=bool))
    number = st.column_config.NumberColumn(format="%.4f")
    config = {c: number for c in shown.columns if c.startswith("p_") or c.startswith("transformed")}
    config[IN_SET] = st.column_config.CheckboxColumn(IN_SET, help="Tick to keep the item in the hand-edited set.")
    st.data_editor(shown, hide_index=True, key=key, disabled=[c for c in shown.columns if c != IN_SET],
                   column_config=config)
    values = list(st.session_state[snapshot_key])
    touched = st.session_state[touched_key]
    for position, change in ((st.session_state.get(key) or {}).get("edited_rows") or {}).items():
        if IN_SET in change and 0 <= int(position) < len(values):
            values[int(position)] = bool(change[IN_SET])
            touched.add(int(position))
    store(data_key, [rows[t] for t in sorted(touched)], base, [values[t] for t in sorted(touched)])
