"""Missing or blank texts: unknown, so never copies of each other, and never a crash of the duplicate check."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jecs_core as jc
from jecs_core.checks import find_duplicates


def _table(texts, *, m=30, seed=0):
    n = len(texts)
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"item_id": [f"c{i}" for i in range(m)] + [f"t{i}" for i in range(n)],
                          "split": ["calibration"] * m + ["test"] * n,
                          "score_a": rng.normal(size=m + n), "text": ["calibration text"] * m + list(texts)})
    return frame


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.parametrize("blank", ["", None, "   "])
def test_blank_texts_load_and_are_not_copies(tmp_path, fmt, blank):
    frame = _table(["one passage here"] * 3 + [blank] * 5 + [f"passage {i} of its own" for i in range(4)])
    path = tmp_path / f"t.{fmt}"
    frame.to_csv(path, index=False) if fmt == "csv" else frame.to_parquet(path)
    report = find_duplicates(jc.load_scores(path))
    assert (report.text_groups, report.text_rows) == (1, 3)
    assert report.n_clusters == 12 - 2 and report.near_groups == 0


@pytest.mark.parametrize("blank", ["", None])
def test_all_blank_texts_give_no_groups(blank):
    report = find_duplicates(jc.table_from_frame(_table([blank] * 20)))
    assert (report.text_groups, report.text_rows, report.n_clusters) == (0, 0, 20)


def test_near_copies_are_found_across_missing_texts():
    pytest.importorskip("datasketch")
    base = "the river ran past the old stone mill and on towards the sea at dusk"
    texts = [None, base, None, "", "an unrelated passage about maple trees and winter light", base + "!", None]
    report = find_duplicates(jc.table_from_frame(_table(texts)))
    assert (report.near_groups, report.near_rows, report.text_groups) == (1, 2, 0)
    assert report.clusters[1] == report.clusters[5] and len(set(report.clusters[[0, 2, 3, 4, 6]])) == 5


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(["a b", "a  b", "c", "", " ", None, "d e"]), min_size=1, max_size=25))
def test_exact_text_groups_match_a_direct_count(texts):
    report = find_duplicates(jc.table_from_frame(_table(texts)), near=False)
    normal = pd.Series([" ".join(t.split()) if t is not None else "" for t in texts])
    counts = normal[normal != ""].value_counts()
    assert report.text_groups == int((counts > 1).sum())
    assert report.text_rows == int(counts[counts > 1].sum())


def test_cli_select_with_blank_texts(tmp_path):
    from jecs_core.cli import main

    path = tmp_path / "t.csv"
    _table(["hello world"] * 45 + [""] * 5, m=50).to_csv(path, index=False)
    assert main(["select", str(path), "--alpha", "0.1", "--out", str(tmp_path / "o.csv")]) == 0
