"""AppTest: the Score page scores a texts table with tiny local models and activates the result."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

pytest.importorskip("torch")

from dashboard import scoring_run, state  # noqa: E402
from scoring.testing import random_text, save_tiny_model  # noqa: E402

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGE = "views/score_page.py"


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    root = tmp_path_factory.mktemp("score_page")
    models = {name: save_tiny_model(root / name, arch, seed=seed) for name, arch, seed in (("a", "gpt2", 1), ("b", "llama", 2))}
    rng = np.random.default_rng(0)
    n = 40
    texts = pd.DataFrame({
        "item_id": [f"x{i}" for i in range(n)],
        "split": ["calibration"] * 15 + ["test"] * (n - 15),
        "text": [random_text(rng, int(w)) for w in rng.integers(4, 20, n)],
    })
    texts.loc[20, "text"] = ""  # nothing to score: NaN, left out with a warning
    path = root / "texts.csv"
    texts.to_csv(path, index=False)
    return models, path


def _page(tmp_path) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120).run()
    return at.switch_page(PAGE).run()


def test_score_page_scores_and_activates(inputs, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the score cache goes to .jecs_cache/ under the working directory
    models, texts_path = inputs
    at = _page(tmp_path)
    assert not at.exception
    at.text_area(key="score.models").input("\n".join(f"{k}={v}" for k, v in models.items())).run()
    at.text_input(key="score.texts_path").input(str(texts_path)).run()
    at.button(key="score.run").click().run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    assert any("x20" in w.value for w in at.warning)
    table = at.session_state[state.ACTIVE_TABLE]
    assert table.models == ("a", "b") and table.n == 24 and table.m == 15
    assert at.session_state[state.ACTIVE_KEY].startswith("scored:")


def test_bad_model_line_shows_an_error(inputs, tmp_path):
    _, texts_path = inputs
    at = _page(tmp_path)
    at.text_area(key="score.models").input("just-a-path").run()
    at.text_input(key="score.texts_path").input(str(texts_path)).run()
    at.button(key="score.run").click().run()
    assert not at.exception
    assert "line 1: expected NAME=PATH" in at.error[0].value


def test_helpers():
    assert scoring_run.parse_model_lines("# comment\n a = /x \n\nb=/y.gguf") == {"a": "/x", "b": "/y.gguf"}
    with pytest.raises(ValueError, match="used twice"):
        scoring_run.parse_model_lines("a=/x\na=/y")
    with pytest.raises(ValueError, match="at least one model"):
        scoring_run.parse_model_lines("\n# nothing\n")
    with pytest.raises(ValueError, match="expected a .csv or .parquet"):
        scoring_run.read_uploaded_texts("texts.pkl", b"\x80\x04")
    assert scoring_run.scoring_available() is None
