"""The Select page in AppTest: counts follow jecs_core, honest labels, one open figure, paging, explanations, URL, export."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.testing.v1 import AppTest

import jecs_core
from dashboard import samples, select_view, state, tables
from dashboard.figures import FIGURE_KEYS
from jecs_core.simulate.synthetic import wide_table

APP = str(Path(__file__).resolve().parents[2] / "app.py")


@pytest.fixture(scope="module")
def table():
    return samples.get(samples.DEFAULT_SAMPLE).loader()


@pytest.fixture
def downloads(monkeypatch) -> dict:
    """File name -> the deferred callable of every download button the page registers."""
    registered = {}
    original = MediaFileManager.add_deferred

    def spy(self, data_callable, mimetype, coordinates, file_name=None, **kwargs):
        registered[file_name] = data_callable
        return original(self, data_callable, mimetype, coordinates, file_name=file_name, **kwargs)

    monkeypatch.setattr(MediaFileManager, "add_deferred", spy)
    return registered


@pytest.fixture
def at() -> AppTest:
    return AppTest.from_file(APP, default_timeout=60).run()


CARD = re.compile(r"data-method='([^']+)'[^>]*>.*?<div class='jecs-count'>([\d,]+)</div>")


def _cards(at) -> str:
    return next(h.proto.body for h in at.get("html") if "jecs-cards" in h.proto.body)


def _counts(at) -> dict[str, int]:
    return {m: int(v.replace(",", "")) for m, v in CARD.findall(_cards(at))}


def _expected(table, alpha, lam="auto", knn=None) -> dict[str, int]:
    summary = jecs_core.compare_methods(table, alpha=alpha, lam=lam, knn=knn).summary()
    return dict(zip(summary["method"], summary["n_selected"]))


def _texts(at) -> str:
    return " ".join([m.value for m in at.markdown] + [c.value for c in at.caption] + [t.value for t in at.text])


def test_every_registered_rule_has_a_card_and_counts_follow_alpha(at, table):
    assert not at.exception
    assert set(_counts(at)) == set(jecs_core.METHODS)
    assert _counts(at) == _expected(table, 0.10)
    seen = set()
    for alpha in (0.05, 0.20, 0.35):
        at.slider(key=state.ALPHA).set_value(alpha).run()
        assert not at.exception and _counts(at) == _expected(table, alpha)
        seen.add(_counts(at)[jecs_core.DEFAULT_METHOD])
    assert len(seen) == 3


def test_manual_lambda_and_knn(at, table):
    at.session_state[select_view.METHOD] = "jecs"  # the paper's rule shows k_n in its fit line
    at.radio(key=state.LAM_MODE).set_value(state.MANUAL).run()
    at.slider(key=state.LAM).set_value(0.8).run()
    assert _counts(at) == _expected(table, 0.10, lam=0.8)
    at.radio(key=state.KNN_MODE).set_value(state.MANUAL).run()
    at.number_input(key=state.KNN).set_value(5).run()
    assert not at.exception and _counts(at) == _expected(table, 0.10, lam=0.8, knn=5)
    assert "k_n = 5" in _texts(at)


def test_a_knn_the_tail_cannot_hold_is_said_beside_the_control(table):
    # k_n = 300 is at most n = 560 (so the control takes it) but more than the max-p values in the tail:
    # the fit cuts it, and the page says so instead of leaving the control and the fit line to disagree.
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"method": "jecs", "knn": "300"})
    at.run()
    assert not at.exception
    captions = " ".join(c.value.replace("\\", "") for c in at.caption)  # the page escapes Markdown
    assert "k_n = 300 is more than the 120 max-p values above λ = 0.5; the paper's JECS uses k_n = 120" in captions
    at.number_input(key=state.KNN).set_value(50).run()
    assert "is more than the" not in " ".join(c.value for c in at.caption)


def test_honest_labels(at, table):
    """Green 'controls the GCR' only for finite-sample rules, and never beside a GCP above alpha."""
    comparison = jecs_core.compare_methods(table, alpha=0.1)
    text = _texts(at) + _cards(at)
    summary = comparison.summary().set_index("method")
    n_green = sum(bool(r.valid and not summary.loc[m, "over_alpha"]) for m, r in jecs_core.REGISTRY.items())
    assert text.count("controls the GCR") >= n_green
    for method in comparison.methods:
        if summary.loc[method, "over_alpha"]:
            assert f"GCP {summary.loc[method, 'gcp']:.3f} &gt; α" in text
            assert "did not keep its target here" in text
    assert "What GCR, GCP, power, π̂0 and p̃ mean" in [e.label for e in at.expander]


def test_only_the_open_figure_is_sent(at):
    assert len(at.get("plotly_chart")) == 1 and not at.tabs
    for key in FIGURE_KEYS[1:]:
        at.session_state[select_view.FIGURE] = key
        at.run()
        assert not at.exception and len(at.get("plotly_chart")) <= 1


def _open(at, panel: str) -> None:
    at.session_state[select_view.PANEL] = panel
    at.run()
    assert not at.exception


def test_closed_panels_are_not_sent(at):
    assert not at.dataframe or "item_id" not in at.dataframe[0].value.columns
    assert not at.get("download_button") or all(b.label != "Selection CSV" for b in at.get("download_button"))
    _open(at, "items")
    assert not at.get("plotly_chart")


def test_items_table_pages_on_the_server(at, table):
    _open(at, "items")
    frame = at.dataframe[0].value if at.dataframe[0].value.columns[0] == "item_id" else at.dataframe[1].value
    assert len(frame) <= tables.PAGE_SIZE
    comparison = jecs_core.compare_methods(table, alpha=0.1)
    want = table.test_ids[comparison.selected(jecs_core.DEFAULT_METHOD)].astype(str)[: tables.PAGE_SIZE]
    assert list(frame["item_id"]) == list(want)
    at.session_state[select_view.WHICH] = "dropped"
    at.run()
    assert not at.exception
    assert f"{int((~comparison.selected(jecs_core.DEFAULT_METHOD)).sum()):,} dropped items" in _texts(at)


def test_explanation_for_a_searched_id(at, table):
    target = str(table.test_ids[7])
    _open(at, "items")
    at.text_input(key=select_view.QUERY).set_value(target).run()
    assert not at.exception
    texts = [t.value for t in at.text]
    assert target in texts
    assert any("ranks" in t and "r* =" in t for t in texts)
    assert any(t.startswith("p* = ") for t in texts)


def test_url_holds_the_view():
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"alpha": "0.23", "method": "jmcs", "fig": "stepup", "view": "figures", "lam": "0.7", "knn": "4", "alpha2": "0.3"})
    at.run()
    assert not at.exception
    s = at.session_state
    assert s[state.ALPHA] == pytest.approx(0.23) and s[select_view.METHOD] == "jmcs" and s[select_view.FIGURE] == "stepup"
    assert s[state.LAM_MODE] == state.MANUAL and s[state.KNN] == 4 and s[select_view.COMPARE]
    at.slider(key=state.ALPHA).set_value(0.3).run()
    assert at.query_params["alpha"] == ["0.3"] or at.query_params["alpha"] == "0.3"


def test_side_by_side(at, table):
    at.toggle(key=select_view.COMPARE).set_value(True).run()
    at.slider(key=select_view.ALPHA2).set_value(0.25).run()
    assert not at.exception
    assert "α = 0.25" in _texts(at)


def test_export_downloads_the_contract_files(at, table, downloads):
    registered = downloads
    _open(at, "export")
    at.slider(key=state.ALPHA).set_value(0.2).run()
    method = jecs_core.DEFAULT_METHOD
    csv_name = next(name for name in registered if name.startswith("jecs_selection") and name.endswith("0.20.csv"))
    assert csv_name.endswith(f"_{method}_alpha0.20.csv") and csv_name[:-4] + ".json" in registered
    expected = jecs_core.compare_methods(table, alpha=0.2)
    from dashboard import export

    assert registered[csv_name]() == export.csv_bytes(table, expected, method)
    meta = json.loads(registered[csv_name[:-4] + ".json"]())
    assert meta["alpha"] == 0.2 and meta["selected_counts"] == _expected(table, 0.2)
    report = next(name for name in registered if name.startswith("jecs_report") and "0.20" in name)
    assert b"data-figure='overlap'" in registered[report]()
    ids = next(name for name in registered if name.startswith("jecs_clean_ids") and name.endswith("0.20.txt"))
    assert registered[ids]().decode().splitlines() == list(table.test_ids[expected.selected(method)])


def test_the_export_starts_at_the_inspected_rule_so_all_three_files_describe_one_selection(at, downloads):
    names = downloads
    at.session_state[select_view.METHOD] = "jecs"
    _open(at, "export")
    assert any(n.startswith("jecs_selection") and n.endswith("_jecs_alpha0.10.csv") for n in names), names
    assert any(n.startswith("jecs_report") and "_jecs_" in n for n in names), names


@pytest.mark.filterwarnings("ignore::jecs_core.JECSFallbackWarning")
def test_tiny_calibration_warns(at):
    rng = np.random.default_rng(3)
    frame = wide_table(rng.standard_normal((4, 2)), rng.standard_normal((40, 2)), np.zeros((40, 2)))
    at.switch_page("views/data_page.py").run()
    at.session_state[state.UPLOAD_PAYLOAD] = ("tiny.csv", frame.to_csv(index=False).encode())
    at.run()
    at.switch_page("views/select_page.py").run()
    assert not at.exception
    assert any("calibration set is too small" in w.value for w in at.warning)


def test_cards_never_show_the_green_badge_beside_gcp_over_alpha(table):
    from dashboard import ui

    for alpha in (0.05, 0.1, 0.2, 0.3):
        comparison = jecs_core.compare_methods(table, alpha=alpha)
        html = ui.cards_html(comparison)
        summary = comparison.summary().set_index("method")
        for method, card in re.findall(r"data-method='([^']+)'(.*?)</div></div>", html):
            rule = jecs_core.REGISTRY[method]
            over = bool(summary.loc[method, "over_alpha"])
            assert (">controls the GCR</span>" in card) == (rule.valid and not over), (alpha, method)
            assert (">GCP above α here</span>" in card) == (rule.valid and over)
            assert (">asymptotic only</span>" in card) == (rule.guarantee is jecs_core.Guarantee.ASYMPTOTIC)


def test_the_asymptotic_rule_says_what_it_needs(at):
    asymptotic = [r for r in jecs_core.REGISTRY.values() if r.guarantee is jecs_core.Guarantee.ASYMPTOTIC]
    captions = " ".join(c.value for c in at.caption)
    for rule in asymptotic:
        assert f"{rule.label}: {rule.guarantee.description}. {rule.summary}" in captions


def test_ids_holding_line_breaks_get_no_ids_file():
    from types import SimpleNamespace

    from dashboard import export

    assert export.ids_fit_lines(SimpleNamespace(test_ids=np.array(["a", "b c"])))
    assert not export.ids_fit_lines(SimpleNamespace(test_ids=np.array(["a", "t\n1"])))
    assert not export.ids_fit_lines(SimpleNamespace(test_ids=np.array(["a", "t\r1"])))


def test_the_reports_diagnostics_take_the_pages_paper_jecs_options(downloads):
    registered = downloads
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"lam": "0.6", "view": "export"})
    at.run()
    assert not at.exception
    report = next(name for name in registered if name.startswith("jecs_report"))
    page = registered[report]().decode("utf-8")
    assert "JECS tail: lambda = 0.6" in page  # as the sidecar's diagnostics, not the default data-driven lambda
