"""The export takes a comparison only with the table it was run on, and its record is JSON-ready."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import jecs_core as jc
from jecs_core.export import rule_warnings, selection_warnings


def _table(n: int, models=("a", "b")) -> jc.ScoreTable:
    rng = np.random.default_rng(n)
    frame = pd.DataFrame({"item_id": [f"i{k}" for k in range(8 + n)], "split": ["calibration"] * 8 + ["test"] * n,
                          **{f"score_{m}": rng.normal(size=8 + n) for m in models}})
    return jc.table_from_frame(frame)


TABLE = _table(5)
PAIRED = jc.compare_methods(TABLE, alpha=0.3)
OTHERS = {"more items": jc.compare_methods(_table(6), alpha=0.3),
          "more models": jc.compare_methods(_table(5, ("a", "b", "c")), alpha=0.3),
          "fewer models": jc.compare_methods(_table(5, ("a",)), alpha=0.3)}


def _calls(table, comparison, tmp_path):
    return {"selection_frame": lambda: jc.selection_frame(table, comparison),
            "selection_metadata": lambda: jc.selection_metadata(table, comparison),
            "selection_warnings": lambda: selection_warnings(table, comparison),
            "rule_warnings": lambda: rule_warnings(table, comparison),
            "write_selection": lambda: jc.write_selection(tmp_path / "sel.csv", table, comparison)}


@pytest.mark.parametrize("other", list(OTHERS))
def test_a_comparison_of_another_table_is_refused_naming_comparison(other, tmp_path):
    for name, call in _calls(TABLE, OTHERS[other], tmp_path).items():
        with pytest.raises(ValueError, match=r"^comparison must be run on this table: its p-values have shape") as info:
            call()
        assert "\n" not in str(info.value), name
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_none_is_refused_naming_the_argument(tmp_path):
    for call in _calls(TABLE, None, tmp_path).values():
        with pytest.raises(TypeError, match=r"^comparison must be a Comparison"):
            call()
    for call in _calls(None, PAIRED, tmp_path).values():
        with pytest.raises(TypeError, match=r"^table must be a ScoreTable"):
            call()


def test_the_paired_export_is_unchanged(tmp_path):
    frame = jc.selection_frame(TABLE, PAIRED)
    assert len(frame) == TABLE.n and list(frame.columns[:3]) == ["item_id", "selected", "p_max"]
    record = jc.selection_metadata(TABLE, PAIRED)
    assert record["n_test"] == TABLE.n and set(record["selected_counts"]) == set(PAIRED.methods)


def test_numpy_values_in_options_are_recorded_as_python_numbers():
    options = {"x": np.float32(0.5), "k": np.int64(3), "flag": np.bool_(True), "grid": np.array([0.5, 0.6]),
               "nested": {"y": [np.float64(0.25)]}}
    record = jc.selection_metadata(TABLE, PAIRED, options=options)
    assert json.loads(json.dumps(record))["options"] == {"x": 0.5, "k": 3, "flag": True, "grid": [0.5, 0.6],
                                                         "nested": {"y": [0.25]}}
    assert type(record["options"]["x"]) is float and type(record["options"]["k"]) is int
