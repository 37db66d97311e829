"""AppTest: the Learn page renders and reacts to its sliders."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

PAGE = str(Path(__file__).resolve().parents[2] / "views" / "learn_page.py")


def _array(value) -> np.ndarray:
    """A trace array from a plotly JSON spec (plotly packs numeric arrays as base64 'bdata')."""
    if isinstance(value, dict) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
    return np.asarray(value)


def _density_curve(at):
    for chart in at.get("plotly_chart"):
        for trace in json.loads(chart.proto.spec)["data"]:
            if trace.get("name", "").startswith("max-p null density"):
                return _array(trace["x"]), _array(trace["y"]), trace["name"]
    raise AssertionError("max-p density curve not found")


def test_learn_page_renders_and_k_moves_the_density():
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    assert not at.exception
    assert len(at.get("plotly_chart")) == 6
    x, y, name = _density_curve(at)
    np.testing.assert_allclose(y, 8 * x**7, atol=1e-9)  # defaults: K = 8, eta = 0, all exposed

    at.slider(key="learn.k").set_value(3).run()
    assert not at.exception
    x, y, name = _density_curve(at)
    np.testing.assert_allclose(y, 3 * x**2, atol=1e-9)
    assert "c = 3" in name

    at.slider(key="learn.eta").set_value(0.5).run()
    x, y, _ = _density_curve(at)
    np.testing.assert_allclose(y, 0.5 + 0.5 * 3 * x**2, atol=1e-9)


def test_learn_page_exposure_and_lambda_controls():
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.toggle(key="learn.all").set_value(False).run()
    at.slider(key="learn.c").set_value(2).run()
    assert not at.exception
    _, _, name = _density_curve(at)
    assert "c = 2" in name
    at.slider(key="learn.lam").set_value(0.8).run()
    assert not at.exception
    assert any("λ" in m.value for m in at.markdown)


def test_one_model_without_all_exposed_has_no_slider_error():
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.toggle(key="learn.all").set_value(False).run()
    at.slider(key="learn.c").set_value(5).run()
    at.slider(key="learn.k").set_value(1).run()
    assert not at.exception
    _, _, name = _density_curve(at)
    assert name.endswith("c = 1")
    at.slider(key="learn.k").set_value(6).run()
    at.slider(key="learn.c").set_value(6).run()
    at.slider(key="learn.k").set_value(3).run()  # c = 6 is above the new K: clamped, no error
    assert not at.exception and at.slider(key="learn.c").value == 3


def test_every_section_uses_the_chosen_k():
    """No silent cap: K = 16 reaches the envelope and power sections too."""
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    at.slider(key="learn.k").set_value(16).run()
    assert not at.exception
    text = " ".join(m.value for m in at.markdown)
    assert "16 model(s)" in text and "K = 1, 2, 3, 4, 6, 8, 12, 16" in text
