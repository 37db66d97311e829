"""The download bytes are exactly the data contract's export (what jecs_core.write_selection writes)."""

from __future__ import annotations

import json

import pytest

import jecs_core
from dashboard import export, samples


@pytest.fixture(scope="module")
def table():
    return samples.get(samples.PAPER_SAMPLE).loader()


@pytest.mark.parametrize("method", [*jecs_core.METHODS, "all"])
def test_export_bytes_match_write_selection(tmp_path, table, method):
    comparison = jecs_core.compare_methods(table, alpha=0.15)
    csv_path, json_path = jecs_core.write_selection(tmp_path / "out.csv", table, comparison, method)
    assert export.csv_bytes(table, comparison, method) == csv_path.read_bytes()
    ours = json.loads(export.json_bytes(table, comparison, method))
    theirs = json.loads(json_path.read_text())
    ours.pop("created_utc"), theirs.pop("created_utc")
    assert ours == theirs
    assert ours["method"] == method and ours["alpha"] == 0.15 and ours["input_sha256"] == table.source_sha256


def test_file_names_pair_like_the_contract():
    csv_name, json_name = export.file_names("Paper synthetic setup (K = 4)", "jecs", 0.1)
    assert csv_name == "jecs_selection_paper-synthetic-setup-k-4_jecs_alpha0.10.csv"
    assert json_name == csv_name[:-4] + ".json"
