"""The post-hoc bound in ``jecs select``'s output, its ``--post-hoc-delta`` option and the sidecar's ``post_hoc``."""

from __future__ import annotations

import json

import pytest

from jecs_cli import main
from jecs_core import compare_methods, load_scores, post_hoc_bound
from jecs_core.export import selection_metadata

SAMPLE = "sample_data/synthetic_k4.csv"


@pytest.mark.parametrize("delta, confidence", [(None, "90%"), ("0.05", "95%"), ("0.25", "75%")])
def test_select_prints_the_post_hoc_line_and_records_it(tmp_path, capsys, delta, confidence):
    out = tmp_path / "sel.csv"
    extra = [] if delta is None else ["--post-hoc-delta", delta]
    assert main(["select", SAMPLE, "--no-diagnostics", "--method", "jmcs", "--out", str(out), *extra]) == 0
    printed = capsys.readouterr().out
    table = load_scores(SAMPLE)
    comparison = compare_methods(table, alpha=0.1)
    selected = comparison.selected("jmcs")
    level = 0.1 if delta is None else float(delta)
    bound = post_hoc_bound(comparison.pvalues, selected, delta=level, calibration_size=table.m)
    line = [row for row in printed.splitlines() if "picked after looking" in row]
    assert line == [f"JMCS: picked after looking: with {confidence} confidence at most {bound} of these "
                    f"{int(selected.sum())} items are contaminated (≤ {100 * bound / selected.sum():.1f}%)"]
    record = json.loads(out.with_suffix(".json").read_text())["post_hoc"]
    assert record == {"delta": level, "max_contaminated": bound, "max_fdp": bound / selected.sum(),
                      "method": "closed-simes-hommel+conformal-urn", "n_selected": int(selected.sum())}


def test_method_all_reports_the_default_rule(capsys):
    assert main(["select", SAMPLE, "--no-diagnostics", "--method", "all"]) == 0
    assert "Storey-BH on max-p (default): picked after looking" in capsys.readouterr().out


@pytest.mark.parametrize("value", ["0", "1", "1.5", "-0.1", "abc", "nan"])
def test_bad_post_hoc_delta_is_one_line_and_exit_2(capsys, value):
    with pytest.raises(SystemExit) as info:
        main(["select", SAMPLE, "--post-hoc-delta", value])
    assert info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("jecs select: error: argument --post-hoc-delta")


def test_sidecar_refuses_a_bad_post_hoc_delta():
    table = load_scores(SAMPLE)
    comparison = compare_methods(table, alpha=0.1)
    with pytest.raises(ValueError, match=r"^post_hoc_delta must be in \(0, 1\)"):
        selection_metadata(table, comparison, post_hoc_delta=1.0)
    record = selection_metadata(table, comparison, post_hoc_delta=0.2)["post_hoc"]
    assert record["delta"] == 0.2 and record["n_selected"] == int(comparison.selected().sum())
    assert 0 <= record["max_contaminated"] <= record["n_selected"]
