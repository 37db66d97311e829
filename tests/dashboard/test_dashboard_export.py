"""The download bytes are exactly the data contract's export (what jecs_core.write_selection writes)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import jecs_core
from dashboard import export, samples
from jecs_core.simulate.synthetic import wide_table


@pytest.fixture(scope="module")
def table():
    return samples.get(samples.PAPER_SAMPLE).loader()


@pytest.mark.parametrize("method", [*jecs_core.METHODS, "all"])
def test_export_bytes_match_write_selection(tmp_path, table, method):
    comparison = jecs_core.compare_methods(table, alpha=0.15)
    options = {"lam": "auto", "knn": None}
    csv_path, json_path = jecs_core.write_selection(tmp_path / "out.csv", table, comparison, method, options=options)
    assert export.csv_bytes(table, comparison, method, options=options) == csv_path.read_bytes()
    ours = json.loads(export.json_bytes(table, comparison, method, options=options))
    theirs = json.loads(json_path.read_text())
    ours.pop("created_utc"), theirs.pop("created_utc")
    assert ours.pop("input_file") == Path(str(table.source)).name  # the file's name, not the server's path to it
    theirs.pop("input_file")
    assert ours == theirs
    assert ours["alpha"] == 0.15 and ours["input_sha256"] == table.source_sha256


@pytest.mark.filterwarnings("ignore::jecs_core.JECSFallbackWarning")  # a table too small for the envelope
def test_export_is_spreadsheet_safe():
    rng = np.random.default_rng(0)
    frame = wide_table(rng.standard_normal((30, 2)) + 2, rng.standard_normal((20, 2)), np.zeros((20, 2)))
    ids = frame["item_id"].astype(object).to_numpy().copy()
    ids[frame["split"].to_numpy() == "test"] = [f"=HYPERLINK(\"http://x\",\"{i}\")" if i % 2 else f"+cmd{i}" for i in range(20)]
    frame["item_id"] = ids
    table = jecs_core.table_from_frame(frame)
    comparison = jecs_core.compare_methods(table, alpha=0.2)
    data = pd.read_csv(io.BytesIO(export.csv_bytes(table, comparison, jecs_core.DEFAULT_METHOD)), dtype=str)
    assert not data["item_id"].str.match(r"^[=+\-@]").any()
    assert data["item_id"].str.startswith("'").all()


def test_file_names_pair_like_the_contract():
    csv_name, json_name = export.file_names("Paper synthetic setup (K = 4)", "jecs", 0.1)
    assert csv_name == "jecs_selection_paper-synthetic-setup-k-4_jecs_alpha0.10.csv"
    assert json_name == csv_name[:-4] + ".json"


def test_sidecar_download_records_the_diagnostics(table):
    diagnostics = pytest.importorskip("jecs_core.diagnostics")
    comparison = jecs_core.compare_methods(table, alpha=0.1)
    options = {"lam": "auto", "knn": None}
    record = json.loads(export.json_bytes(table, comparison, jecs_core.DEFAULT_METHOD, options=options, diagnostics=True))
    want = json.loads(json.dumps(diagnostics.audit_diagnostics(table, alpha=0.1, **options).to_dict()))
    got = record["diagnostics"]
    want.get("twin", {}).pop("seconds", None), got.get("twin", {}).pop("seconds", None)  # wall time differs
    assert got.pop("pvalues") == "plain"  # which p-values they read, recorded beside them
    assert got == want
