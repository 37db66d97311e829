"""The selection export with a sidecar record built after the CSV: same files, both or neither."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import jecs_core
from jecs_core.export import selection_metadata, write_selection_files

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "synthetic_k4.csv"


@pytest.fixture(scope="module")
def audit():
    table = jecs_core.load_scores(SAMPLE)
    return table, jecs_core.compare_methods(table, alpha=0.2)


def _without_clock(record: dict) -> dict:
    return {key: value for key, value in record.items() if key != "created_utc"}


def test_the_record_is_built_once_after_the_csv_and_the_files_match_write_selection(tmp_path, audit):
    table, comparison = audit
    seen = []

    def record():
        # The CSV is complete (in its temporary file) before the sidecar's record is asked for.
        partial = [p for p in tmp_path.iterdir() if p.name.startswith(".late.csv.")]
        seen.append(len(partial) == 1 and partial[0].read_bytes().count(b"\n") == table.n + 1)
        return selection_metadata(table, comparison, None, warnings=["note: built late"])

    csv, side = write_selection_files(tmp_path / "late.csv", table, comparison, None, spreadsheet_safe_cells=True,
                                      record=record)
    assert seen == [True]
    csv_eager, side_eager = jecs_core.write_selection(tmp_path / "eager.csv", table, comparison,
                                                      warnings=["note: built late"])
    assert csv.read_bytes() == csv_eager.read_bytes()
    late, eager = json.loads(side.read_text()), json.loads(side_eager.read_text())
    assert _without_clock(late) == _without_clock(eager)
    assert late["warnings"] == ["note: built late"]


def test_a_record_that_fails_leaves_neither_file(tmp_path, audit):
    table, comparison = audit

    def record():
        raise RuntimeError("checks failed")

    with pytest.raises(RuntimeError, match="checks failed"):
        write_selection_files(tmp_path / "sel.csv", table, comparison, None, spreadsheet_safe_cells=True, record=record)
    assert list(tmp_path.iterdir()) == []


def test_a_bad_delta_is_refused_before_anything_is_written(tmp_path, audit):
    table, comparison = audit
    with pytest.raises(ValueError, match="post_hoc_delta"):
        jecs_core.write_selection(tmp_path / "sel.csv", table, comparison, post_hoc_delta=1.5)
    assert list(tmp_path.iterdir()) == []


def test_a_post_hoc_record_computed_beforehand_is_recorded_as_is_and_a_wrong_one_is_refused(audit):
    from jecs_core.posthoc.report import post_hoc_record

    table, comparison = audit
    selected = comparison.selected(jecs_core.DEFAULT_METHOD)
    early = post_hoc_record(comparison.pvalues, selected, delta=0.2, calibration_size=table.m)
    given = selection_metadata(table, comparison, None, post_hoc_delta=0.2, post_hoc=early)
    fitted = selection_metadata(table, comparison, None, post_hoc_delta=0.2)
    assert given["post_hoc"] == fitted["post_hoc"] == early and given["post_hoc"] is not early
    # Another delta, another set's size, or not a record at all: refused, naming what was expected.
    for wrong in ({**early, "delta": 0.1}, {**early, "n_selected": early["n_selected"] + 1}, [early]):
        with pytest.raises(ValueError, match=r"post_hoc must be the post-hoc record of this selection"):
            selection_metadata(table, comparison, None, post_hoc_delta=0.2, post_hoc=wrong)


@pytest.mark.parametrize("method", [None, "all", "jecs"])
def test_the_export_on_the_p_value_grid_writes_the_bytes_pandas_writes(tmp_path, method):
    # Enough rows that every p-value column takes the writer's shared k / (m + 1) texts.
    import numpy as np
    import pandas as pd

    from jecs_core.export import selection_frame

    rng = np.random.default_rng(3)
    n, m = 2500, 400
    members = rng.random(n) < 0.3
    scores = rng.standard_normal((n + m, 3)).round(2)
    scores[:n][members] += 1.5
    frame = pd.DataFrame({"item_id": [f"i{k}" for k in range(n + m)], "split": ["test"] * n + ["calibration"] * m,
                          **{f"score_{name}": scores[:, j] for j, name in enumerate("abc")}})
    table = jecs_core.table_from_frame(frame)
    comparison = jecs_core.compare_methods(table, alpha=0.1)
    csv, _ = jecs_core.write_selection(tmp_path / "grid.csv", table, comparison, method)
    assert csv.read_bytes() == selection_frame(table, comparison, method).to_csv(index=False).encode("utf-8")


def test_the_sidecar_files_each_rule_option_with_the_rule_that_takes_it(tmp_path, audit):
    table, comparison = audit
    options = {"lam": 0.6, "knn": None, "lambda_grid": (0.5, 0.7), "storey_lam": 0.5, "layout": "auto"}
    _, side = jecs_core.write_selection(tmp_path / "sel.csv", table, comparison, options=options)
    record = json.loads(side.read_text())
    assert record["method"] == "storey-maxp" and record["options"]["lam"] == 0.6  # every setting, as given
    assert record["rule_options"]["storey-maxp"] == {"storey_lam": 0.5}  # lam did not reach storey-maxp
    assert record["rule_options"]["jecs"] == {"lam": 0.6, "knn": None, "lambda_grid": [0.5, 0.7]}
    assert set(record["rule_options"]) == set(comparison.methods) and record["rule_options"]["jmcs"] == {}
    assert selection_metadata(table, comparison)["rule_options"] == {name: {} for name in comparison.methods}
