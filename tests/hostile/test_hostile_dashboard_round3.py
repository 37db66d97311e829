"""Dashboard cases of round 3: the Score page's own hint, its defaults, Evaluate's note, item explanations."""

from __future__ import annotations

import re
import sysconfig
from pathlib import Path

import pytest

import jecs_core as jc
from dashboard import scoring_run
from dashboard.explain import ranking
from dashboard.settings import PathNotAllowed, load_settings

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "synthetic_k4.csv"


def test_storey_bh_explained_with_p_star_not_p_tilde():
    comparison = jc.compare_methods(jc.load_scores(SAMPLE), alpha=0.1)
    assert ranking(comparison.result("storey-maxp")).name == "max-p p*"
    assert ranking(comparison.result("jecs")).name == "transformed value p̃"  # the paper's JECS does transform


def _fake_site(tmp_path, monkeypatch) -> Path:
    site = tmp_path / "site-packages"
    (site / "llm_demo").mkdir(parents=True)
    monkeypatch.setattr(sysconfig, "get_paths", lambda *a, **k: {"purelib": str(site), "platlib": str(site)})
    return site


def test_gguf_inside_an_installed_package_is_accepted(tmp_path, monkeypatch):
    site = _fake_site(tmp_path, monkeypatch)
    gguf = site / "llm_demo" / "model.gguf"
    gguf.write_bytes(b"GGUF")
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    settings = load_settings(environ={"JECS_ALLOWED_DIRS": str(allowed)}, cwd=tmp_path)
    assert scoring_run.resolve_models({"tiny": str(gguf)}, settings) == {"tiny": gguf.resolve()}
    other = site / "llm_demo" / "secrets.txt"  # only weights files: anything else still needs an allowed directory
    other.write_text("x")
    with pytest.raises(PathNotAllowed):
        scoring_run.resolve_models({"tiny": str(other)}, settings)


def test_gguf_refused_when_the_server_reads_no_paths(tmp_path, monkeypatch):
    site = _fake_site(tmp_path, monkeypatch)
    gguf = site / "llm_demo" / "model.gguf"
    gguf.write_bytes(b"GGUF")
    settings = load_settings(environ={}, address="0.0.0.0", cwd=tmp_path)
    if settings.paths_allowed:
        pytest.skip("this configuration allows paths")
    with pytest.raises(PathNotAllowed):
        scoring_run.resolve_models({"tiny": str(gguf)}, settings)


def test_score_form_max_tokens_default_is_the_cli_default(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    from streamlit.testing.v1 import AppTest

    from scoring.settings import DEFAULT_MAX_LENGTH

    monkeypatch.setenv("JECS_ALLOWED_DIRS", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "app.py"), default_timeout=120).run()
    at = at.switch_page("views/score_page.py").run()
    assert not at.exception
    assert at.number_input(key="score.max_length").value == DEFAULT_MAX_LENGTH == 1024


def test_evaluate_note_names_no_api_function():
    source = (Path(__file__).resolve().parents[2] / "views" / "evaluate_page.py").read_text(encoding="utf-8")
    note = source.split("SE_NOTE = (", 1)[1].split(")\n", 1)[0]
    assert "twin_evaluate" not in note and "jecs evaluate" not in note and "runs.se_note()" not in source


def test_envelope_legend_clear_of_the_title_and_overlap_labels_not_clipped():
    from dashboard.figures.catalog import _envelope
    from dashboard.figures.overlap import plot_overlap

    comparison = jc.compare_methods(jc.load_scores(SAMPLE), alpha=0.1)
    envelope = _envelope(comparison, "jecs").layout
    assert envelope.legend.y < 0.5 and envelope.legend.yanchor == "bottom"  # inside the plot, below the title
    overlap = plot_overlap(comparison).layout
    longest = max(len(t) for t in overlap.yaxis2.ticktext)
    assert overlap.margin.l >= 7 * longest and overlap.yaxis2.automargin


def test_report_tables_in_words_and_no_red_none():
    from dashboard.report import ReportInputs, build_report

    table = jc.load_scores(SAMPLE)
    comparison = jc.compare_methods(table, alpha=0.1)
    html = build_report(ReportInputs(table=table, comparison=comparison, method="storey-maxp",
                                     data_name="sample", diagnostics={"pi0_bootstrap": {"low": 0.2, "high": 0.4}}))
    counts = html.split("<section id='selections'>", 1)[1].split("</section>", 1)[0]
    assert "<th>selected</th>" in counts and "n_selected" not in counts and "over_alpha" not in counts
    diagnostics = html.split("<section id='diagnostics'>", 1)[1].split("</section>", 1)[0]
    assert "<pre>" not in diagnostics and "<th>pi0 bootstrap</th>" in diagnostics
    assert "<li class='none'>none</li>" in html or "<ul class='warnings'><li>" in html
    assert "li.none { color: inherit; }" in html


def test_dashboard_sidecar_names_the_file_not_the_server_path():
    import json

    from dashboard.export import json_bytes

    table = jc.load_scores(SAMPLE)
    record = json.loads(json_bytes(table, jc.compare_methods(table, alpha=0.1), "storey-maxp"))
    assert record["input_file"] == "synthetic_k4.csv" and str(SAMPLE.parent) not in json.dumps(record)
    assert record["input_sha256"] == jc.io.file_sha256(SAMPLE)


def test_an_expired_upload_link_is_explained_where_it_lands():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "app.py"), default_timeout=60)
    at.query_params["data"] = "not-a-token"
    at.run()
    assert not at.exception
    assert any("no longer held" in i.value for i in at.info)  # on the landing page (Select)
    at.run()
    assert not any("no longer held" in i.value for i in at.info)  # once, not on every rerun
    at.switch_page("views/data_page.py").run()
    assert any("no longer held" in i.value for i in at.info)


def test_a_click_anywhere_on_a_row_explains_it():
    from dashboard.items_view import chosen_row

    assert chosen_row({"rows": [3], "columns": [], "cells": []}) == 3
    assert chosen_row({"rows": [], "columns": [], "cells": [(5, "p_max")]}) == 5
    assert chosen_row({"rows": [], "columns": [], "cells": []}) is None and chosen_row(None) is None


def test_card_label_says_jecs_paper_like_the_button():
    from dashboard.theme import short_label

    assert short_label("jecs") == "JECS (paper)" == jc.REGISTRY["jecs"].label
    assert short_label("union") == "Union"


def test_select_page_cluster_toggle_keeps_copies_together(tmp_path):
    import numpy as np
    import pandas as pd
    from streamlit.testing.v1 import AppTest

    from dashboard import state

    rng = np.random.default_rng(2)
    cal, clean = rng.normal(0, 1, (150, 2)), rng.normal(-3, 1, (60, 2))
    test = np.vstack([clean, np.repeat(rng.normal(0, 1, (3, 2)), 10, axis=0)])
    frame = pd.DataFrame({"item_id": [f"c{i}" for i in range(150)] + [f"t{i}" for i in range(90)],
                          "split": ["calibration"] * 150 + ["test"] * 90,
                          "score_a": np.r_[cal[:, 0], test[:, 0]], "score_b": np.r_[cal[:, 1], test[:, 1]]})
    table = jc.table_from_frame(frame, source="dup.csv")
    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "app.py"), default_timeout=60).run()

    for key, value in ((state.ACTIVE_TABLE, table), (state.ACTIVE_KEY, "test:dup"), (state.ACTIVE_NAME, "dup.csv"),
                       (state.ACTIVE_ORIGIN, "upload"), (state.ACTIVE_TOKEN, None)):
        at.session_state[key] = value
    at.switch_page("views/select_page.py").run()
    assert not at.exception
    assert any("duplicated test items" in w.value.lower() for w in at.warning)
    at.toggle(key="select.cluster").set_value(True).run()
    assert not at.exception and at.session_state["select.cluster"]
    from dashboard.select_view import PANEL

    for panel in ("items", "export", "figures"):  # every panel still draws with the toggle on
        at.session_state[PANEL] = panel
        at.run()
        assert not at.exception, panel


def test_data_page_says_the_scores_may_run_the_other_way():
    import numpy as np
    import pandas as pd
    from streamlit.testing.v1 import AppTest

    from dashboard import state

    rng = np.random.default_rng(4)
    scores = np.r_[rng.normal(0, 1, 150), rng.normal(-3, 1, 60)]
    frame = pd.DataFrame({"item_id": [f"i{i}" for i in range(210)], "split": ["calibration"] * 150 + ["test"] * 60,
                          "score_loss": -scores})  # a loss: lower = member, uploaded without the switch
    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "app.py"), default_timeout=60).run()
    for key, value in ((state.ACTIVE_TABLE, jc.table_from_frame(frame, source="loss.csv")), (state.ACTIVE_KEY, "test:loss"),
                       (state.ACTIVE_NAME, "loss.csv"), (state.ACTIVE_ORIGIN, "upload"), (state.ACTIVE_TOKEN, None)):
        at.session_state[key] = value
    at.switch_page("views/data_page.py").run()
    assert not at.exception
    shown = [re.sub(r"\\(.)", r"\1", w.value) for w in at.warning]  # what the user reads: Markdown escapes removed
    assert any("scores may run the other way" in text and "Lower scores = member" in text for text in shown)


def test_a_hundred_thousand_column_parquet_uploads_and_selects(tmp_path):
    import io

    import numpy as np
    import pandas as pd
    from streamlit.testing.v1 import AppTest

    from dashboard import state

    K = 100_000  # under the upload limit; the column check scanned a list per column and hung the page
    frame = pd.DataFrame(np.random.default_rng(5).random((5, K), dtype=np.float32), columns=[f"score_m{k}" for k in range(K)])
    frame.insert(0, "split", ["calibration"] * 3 + ["test"] * 2)
    frame.insert(0, "item_id", list("abcde"))
    buffer = io.BytesIO()
    frame.to_parquet(buffer)
    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "app.py"), default_timeout=600).run()
    at.switch_page("views/data_page.py").run()
    at.session_state[state.UPLOAD_PAYLOAD] = ("wide.parquet", buffer.getvalue())
    at.run()
    assert not at.exception
    assert any("100000 models" in s.value for s in at.success)
    at.switch_page("views/select_page.py").run()
    assert not at.exception
