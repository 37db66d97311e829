"""The audit report's leaderboard section: present only with a leaderboard, complete, escaped."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from dashboard.report import ReportInputs, build_report
from dashboard.report.leaderboard import leaderboard_section
from jecs_core import compare_methods, table_from_frame
from jecs_core.leaderboard import ResultsTable, leaderboard

HOSTILE = "<script>alert(1)</script>"


@pytest.fixture(scope="module")
def audit():
    rng = np.random.default_rng(5)
    n_cal, n_test = 200, 300
    member = np.r_[np.ones(n_cal), rng.random(n_test) < 0.3].astype(bool)
    models = ("honest", HOSTILE, "mid")
    frame = pd.DataFrame({"item_id": [f"i{j}" for j in range(n_cal + n_test)],
                          "split": ["calibration"] * n_cal + ["test"] * n_test,
                          **{f"score_{m}": rng.normal(3.0 * member) for m in models}})
    table = table_from_frame(frame)
    test_member = member[n_cal:]
    correct = np.column_stack([rng.random(n_test) < 0.6,
                               (rng.random(n_test) < 0.4) | test_member,  # contamination lifts this one
                               rng.random(n_test) < 0.5]).astype(float)
    board = leaderboard(table, ResultsTable(models=models, item_ids=table.test_ids, values=correct), alpha=0.1)
    return table, board


def _report(table, board) -> str:
    comparison = compare_methods(table, alpha=0.1)
    return build_report(ReportInputs(table=table, comparison=comparison, method="storey-maxp", data_name="audit",
                                     leaderboard=board))


def test_report_has_the_leaderboard_section_with_every_model(audit):
    table, board = audit
    page = _report(table, board)
    section = page[page.index("<section id='leaderboard'>"):]
    section = section[:section.index("<section id='provenance'>")]
    assert "<h2>Leaderboard on the clean subset</h2>" in section
    assert "data-figure='leaderboard'" in section and "fig-leaderboard" in section
    rows = re.findall(r"<tr><td>(.*?)</td>", section)
    ordered = board.frame.sort_values(["rank_clean", "rank_all"], kind="stable")
    assert rows[:3] == [m.replace("<", "&lt;").replace(">", "&gt;") for m in ordered["model"]]
    for value in ordered["accuracy_clean"]:
        assert f"<td>{value:.4g}</td>" in section
    assert "Rank differences on the clean subset" in section
    assert HOSTILE not in page  # escaped everywhere, the figure's labels included
    assert "plotly.js" in page[:page.index("<section id='leaderboard'>")]  # inlined once, by the figures above
    assert "* plotly.js v" not in section  # the section reuses it


def test_report_without_a_leaderboard_has_no_section(audit):
    table, _ = audit
    assert "id='leaderboard'" not in _report(table, None)


def test_section_alone_escapes_and_names_the_metric(audit):
    _, board = audit
    html = leaderboard_section(board)
    assert "&lt;script&gt;" in html and HOSTILE not in html
    assert "correct (mean per item)" in html
