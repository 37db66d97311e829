"""Two sessions of one dashboard server never see each other's data, including after scoring.

Two AppTest instances in one process share module state and Streamlit's process-wide caches,
as two browser sessions on one server do.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dashboard import compute, state
from jecs_core import compare_pvalues, conformal_pvalues

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def _session() -> AppTest:
    return AppTest.from_file(APP, default_timeout=120).run()


def _table_bytes(seed: int, shift: float) -> bytes:
    rng = np.random.default_rng(seed)
    n = 200
    frame = pd.DataFrame({"item_id": [f"i{i}" for i in range(n)], "split": ["calibration"] * 60 + ["test"] * 140})
    for model in ("a", "b"):
        frame[f"score_{model}"] = rng.normal(size=n) + shift * (np.arange(n) < 100)
    return frame.to_csv(index=False).encode()


def _jecs_shown(at: AppTest) -> int:
    """The paper's JECS count the Select page draws, read from its method card."""
    at.switch_page("views/select_page.py").run()
    assert not at.exception
    cards = " ".join(h.proto.body for h in at.get("html"))
    match = re.search(r"jecs-name'>JECS \(paper\)</div>\s*<div class='jecs-count'>([\d,]+)<", cards)
    assert match, "the JECS card was not found on the Select page"
    return int(match.group(1).replace(",", ""))


def _own_numbers(at: AppTest) -> int:
    """The JECS count computed straight from this session's own table, bypassing every cache."""
    table = at.session_state[state.ACTIVE_TABLE]
    p = conformal_pvalues(table.test, table.calibration)
    np.testing.assert_array_equal(compute.pvalues(at.session_state[state.ACTIVE_KEY], table), p)
    return int(compare_pvalues(p, alpha=float(at.session_state[state.ALPHA])).result("jecs").selected.sum())


def _upload(at: AppTest, name: str, data: bytes) -> None:
    at.switch_page("views/data_page.py").run()
    at.session_state[state.UPLOAD_PAYLOAD] = (name, data)
    at.run()
    assert not at.exception and not at.error


def test_two_uploads_with_the_same_name_stay_apart():
    a, b = _session(), _session()
    _upload(a, "scores.csv", _table_bytes(1, 3.0))
    _upload(b, "scores.csv", _table_bytes(2, 0.5))
    assert a.session_state[state.ACTIVE_KEY] != b.session_state[state.ACTIVE_KEY]
    assert a.query_params["data"] != b.query_params["data"]
    shown_a, shown_b = _jecs_shown(a), _jecs_shown(b)
    assert shown_a == _own_numbers(a) and shown_b == _own_numbers(b)
    a.run()  # A after B's upload: still A's data
    assert _jecs_shown(a) == shown_a
    assert not np.array_equal(a.session_state[state.ACTIVE_TABLE].test, b.session_state[state.ACTIVE_TABLE].test)


def test_two_sessions_stay_apart_after_scoring(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    from scoring.testing import random_text, save_tiny_model

    models = {name: save_tiny_model(tmp_path / name, arch, seed=s) for name, arch, s in (("a", "gpt2", 1), ("b", "llama", 2))}
    rng = np.random.default_rng(0)
    for stem, n in (("one", 40), ("two", 46)):
        pd.DataFrame({"item_id": [f"{stem}{i}" for i in range(n)], "split": ["calibration"] * 15 + ["test"] * (n - 15),
                      "text": [random_text(rng, int(w)) for w in rng.integers(4, 20, n)]}).to_csv(tmp_path / f"{stem}.csv",
                                                                                                  index=False)
    monkeypatch.setenv("JECS_ALLOWED_DIRS", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    sessions = {}
    for stem in ("one", "two"):
        at = _session().switch_page("views/score_page.py").run()
        at.text_area(key="score.models").input("\n".join(f"{k}={v}" for k, v in models.items())).run()
        at.text_input(key="score.texts_path").input(str(tmp_path / f"{stem}.csv")).run()
        at.button(key="score.run").click().run()
        assert not at.exception and not at.error, [e.value for e in at.error]
        sessions[stem] = at
    one, two = sessions["one"], sessions["two"]
    for stem, at in sessions.items():
        at.run()
        table = at.session_state[state.ACTIVE_TABLE]
        assert all(i.startswith(stem) for i in table.test_ids)  # only its own texts
        assert _jecs_shown(at) == _own_numbers(at)
    assert one.session_state[state.ACTIVE_KEY] != two.session_state[state.ACTIVE_KEY]
    assert one.session_state["score.tmpdir"].name != two.session_state["score.tmpdir"].name
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b", "one.csv", "two.csv"]  # no cache in the cwd
