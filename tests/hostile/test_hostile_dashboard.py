"""Hostile input, the dashboard cases: one test per case, each feeding the exact input.

Two AppTest instances in one process are two sessions of one server: they share the module
state and Streamlit's process-wide caches, as two browser tabs on one server do.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dashboard import compute, score_form, state
from dashboard.evaluation_runs import csv_bytes, download_frame

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
SCORE_PAGE = "views/score_page.py"


def _plain(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", markdown)


def _session() -> AppTest:
    return AppTest.from_file(APP, default_timeout=120).run()


def _score_table(models=("a", "b"), n=60, seed=0, **renames) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"item_id": [f"i{i}" for i in range(n)], "split": ["calibration"] * 20 + ["test"] * (n - 20)})
    for model in models:
        frame[f"score_{model}"] = rng.normal(size=n)
    return frame.rename(columns=renames)


def _fake_run_scoring(calls: list):
    """Stands in for scoring.run_scoring: scores that depend on the texts' content, no model needed."""
    def run_scoring(texts, models, score, *, settings=None, progress=None, cache_dir=None, **_):
        calls.append(Path(cache_dir))
        wide = texts[["item_id", "split"]].copy()
        for k, name in enumerate(models):
            wide[f"score_{name}"] = [float(len(t) + 7 * k + sum(map(ord, t)) % 13) for t in texts["text"]]
        return SimpleNamespace(wide=wide, report=SimpleNamespace(summary=lambda: "fake report", notes=()))
    return run_scoring


@pytest.fixture
def served(tmp_path, monkeypatch):
    """A server whose operator allows tmp_path/allowed; a fake scorer; a working directory to watch."""
    pytest.importorskip("scoring")
    import scoring

    allowed = tmp_path / "allowed"
    (allowed / "model_a").mkdir(parents=True)
    (allowed / "model_b").mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("JECS_ALLOWED_DIRS", str(allowed))
    calls: list = []
    monkeypatch.setattr(scoring, "run_scoring", _fake_run_scoring(calls))
    monkeypatch.setattr(score_form.scoring_run, "scoring_available", lambda: None)
    return SimpleNamespace(allowed=allowed, outside=outside, cwd=cwd, calls=calls)


def _texts(path: Path, words: str) -> None:
    pd.DataFrame({"item_id": [f"x{i}" for i in range(30)], "split": ["calibration"] * 10 + ["test"] * 20,
                  "text": [f"{words} {i} " * (1 + i % 4) for i in range(30)]}).to_csv(path, index=False)


def _score(at: AppTest, models: str, texts_path: str) -> AppTest:
    at.switch_page(SCORE_PAGE).run()
    at.text_area(key="score.models").input(models).run()
    at.text_input(key="score.texts_path").input(texts_path).run()
    return at.button(key="score.run").click().run()


def test_score_cache_is_keyed_by_content_not_by_path_and_names(served):
    """Session B scores the same path after the file changed: it gets its own p-values, not A's."""
    texts = served.allowed / "texts.csv"
    models = f"a={served.allowed / 'model_a'}\nb={served.allowed / 'model_b'}"
    _texts(texts, "first version")
    a = _score(_session(), models, str(texts))
    assert not a.exception and not a.error, [e.value for e in a.error]
    _texts(texts, "the file changed on disk")
    b = _score(_session(), models, str(texts))
    assert not b.exception and not b.error
    key_a, key_b = a.session_state[state.ACTIVE_KEY], b.session_state[state.ACTIVE_KEY]
    assert key_a != key_b
    for at in (a, b):
        table = at.session_state[state.ACTIVE_TABLE]
        from jecs_core import conformal_pvalues

        expected = conformal_pvalues(table.test, table.calibration)
        np.testing.assert_array_equal(compute.pvalues(at.session_state[state.ACTIVE_KEY], table), expected)
    assert not np.array_equal(a.session_state[state.ACTIVE_TABLE].test, b.session_state[state.ACTIVE_TABLE].test)


@pytest.mark.parametrize("field", ["texts", "model"])
def test_paths_outside_the_allowed_dirs_are_refused_without_telling_existing_from_missing(served, field):
    existing, missing = served.outside / "secret.csv", served.outside / "missing.csv"
    _texts(existing, "another user's texts")
    _texts(served.allowed / "texts.csv", "mine")
    messages = []
    for target in (existing, missing):
        if field == "texts":
            at = _score(_session(), f"a={served.allowed / 'model_a'}", str(target))
        else:
            at = _score(_session(), f"a={target}", str(served.allowed / "texts.csv"))
        assert not at.exception
        messages.append(_plain(at.error[0].value).replace(str(target), "<path>"))
    assert messages[0] == messages[1] and "is not inside a directory this dashboard allows" in messages[0]
    assert served.calls == []  # nothing was read or scored


def test_served_to_others_the_score_page_offers_uploads_only(served, monkeypatch):
    monkeypatch.setenv("JECS_ALLOWED_DIRS", "none")
    at = _session().switch_page(SCORE_PAGE).run()
    assert not at.exception
    assert not at.text_input and not at.text_area  # no field takes a server path
    assert any("reads no paths on its server" in i.value for i in at.info)


def test_scores_are_not_cached_in_the_working_directory(served):
    texts = served.allowed / "texts.csv"
    _texts(texts, "cache me")
    models = f"a={served.allowed / 'model_a'}"
    _score(_session(), models, str(texts))
    _score(_session(), models, str(texts))
    first, second = served.calls
    assert first != second  # one private cache per session
    assert not first.is_relative_to(served.cwd) and not second.is_relative_to(served.cwd)
    assert list(served.cwd.iterdir()) == []


def test_uploaded_names_are_rendered_as_text_never_markdown():
    image = "![x](http://attacker.example/pixel.png)"
    at = _session().switch_page("views/data_page.py").run()
    at.session_state[state.UPLOAD_PAYLOAD] = (f"{image}.csv", _score_table(**{"score_a": f"score_{image}"}).to_csv(index=False).encode())
    at.run()
    assert not at.exception
    markdown = [e.value for e in [*at.markdown, *at.caption, *at.success, *at.error, *at.warning, *at.info]]
    assert not any(image in m for m in markdown)  # escaped wherever Markdown is rendered
    assert any(f"{image}.csv" == t.value for t in at.text)  # and shown as written, as text
    assert any(t.value == f"{image}, b" for t in at.text)  # the model list
    assert [t.value for t in at.sidebar.text] == [f"{image}.csv"]


def test_a_model_called_max_is_refused_cleanly_on_upload():
    at = _session().switch_page("views/data_page.py").run()
    at.session_state[state.UPLOAD_PAYLOAD] = ("max.csv", _score_table(models=("max", "b")).to_csv(index=False).encode())
    at.run()
    assert not at.exception
    problems = [t.value for t in at.text if t.value.startswith("• ")]
    assert any("max.csv: column 'score_max'" in p and "reserved" in p for p in problems)
    at.switch_page("views/select_page.py").run()
    assert not at.exception  # the active data set was left as it was


def test_score_page_download_is_spreadsheet_safe():
    wide = pd.DataFrame({"item_id": ["=HYPERLINK(\"http://x\")", "ok"], "split": ["test", "test"],
                         "text": ["@SUM(A1)", "-2"], "score_a": [0.5, -1.5]})
    back = pd.read_csv(io.BytesIO(score_form.download_bytes(wide)), dtype=str)
    assert back["item_id"].tolist() == ["'=HYPERLINK(\"http://x\")", "ok"]
    assert back["text"].tolist() == ["'@SUM(A1)", "-2"]  # a number written as text stays a number
    assert back["score_a"].tolist() == ["0.5", "-1.5"]


def test_evaluation_download_is_spreadsheet_safe():
    frame = download_frame(pd.DataFrame({"gcp": [0.1]}), data_name="=cmd|'/c calc'!A1", data_key="upload:x", seed=3)
    back = pd.read_csv(io.BytesIO(csv_bytes(frame)), dtype=str)
    assert back["data_set"].tolist() == ["'=cmd|'/c calc'!A1"] and back["seed"].tolist() == ["3"]


def test_a_malformed_operator_file_is_a_message_not_a_traceback(tmp_path, monkeypatch):
    bad = tmp_path / "ops.toml"
    bad.write_text("[paths\nallowed_dirs = 3")
    monkeypatch.setenv("JECS_DASHBOARD_CONFIG", str(bad))
    monkeypatch.delenv("JECS_ALLOWED_DIRS", raising=False)
    at = _session().switch_page(SCORE_PAGE).run()
    assert not at.exception
    assert "operator settings could not be read" in _plain(at.error[0].value)
    assert not at.text_input  # no path is read while the file is broken


@pytest.mark.parametrize("shape", ["csv_on_disk", "parquet_shards_in_memory"])
def test_a_texts_path_is_held_to_the_upload_limits(served, monkeypatch, shape):
    """The server's memory is shared: a named file or directory takes no more than an upload could."""
    if shape == "csv_on_disk":
        target = served.allowed / "texts.csv"
        _texts(target, "long " * 400)  # about 120 kB on disk
        monkeypatch.setattr(state, "upload_limit_mb", lambda: 0.1)
        expected = "MB on disk"
    else:
        target = served.allowed / "shards"
        target.mkdir()
        for part in range(3):  # 3 x 60,000 rows x 3 columns: 4.3 MB of cells, 1.4 MB per shard
            pd.DataFrame({"item_id": [f"p{part}-{i}" for i in range(60_000)], "split": "test", "text": "same"}) \
                .to_parquet(target / f"part-{part}.parquet")
        monkeypatch.setattr(state, "upload_limit_mb", lambda: 2.0)  # each shard alone is under 2 x 2 MB
        expected = "MB in memory"
    at = _score(_session(), f"a={served.allowed / 'model_a'}", str(target))
    assert not at.exception
    message = _plain(at.error[0].value)
    assert expected in message and "server.maxUploadSize" in message and "jecs score" in message
    assert served.calls == []  # refused before anything was read or scored
