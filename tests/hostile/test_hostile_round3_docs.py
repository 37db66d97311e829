"""Docs and pages that must match the code: GUARANTEES' guard and floor, the Score page's last run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from jecs_core.rules import select
from jecs_core.rules.storey_maxp import cap_correction

GUARANTEES = Path(__file__).resolve().parents[2] / "docs" / "GUARANTEES.md"


def test_guarantees_states_the_guard_and_the_floor():
    text = " ".join(GUARANTEES.read_text().split())
    assert "**The guard:** when the smallest max-p is above alpha" in text
    assert "**The floor:** `c(n)` is never below 1" in text


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.floats(0.01, 0.5), st.integers(0, 2**32 - 1))
def test_the_guard_selects_nothing_when_no_max_p_reaches_alpha(n, alpha, seed):
    p = np.random.default_rng(seed).uniform(alpha * 1.0001, 1.0, (n, 3))  # every max-p above alpha
    assert select(p, alpha=alpha, method="storey-maxp").n_selected == 0


@settings(max_examples=40, deadline=None)
@given(st.integers(-3, 3000))
def test_the_floor_keeps_c_of_n_at_least_one(n):
    assert cap_correction(n) >= 1.0


def test_score_page_last_run_wraps_long_lines():
    import pandas as pd
    from streamlit.testing.v1 import AppTest

    def page():
        import pandas as pd
        import streamlit as st

        from dashboard import score_form

        st.session_state[score_form.LAST_REPORT] = "wrote " + "/very/long/path" * 40 + "/scores.csv"
        st.session_state[score_form.LAST_WIDE] = pd.DataFrame({"item_id": ["a"], "split": ["test"]})
        score_form.last_run()

    assert pd is not None
    at = AppTest.from_function(page, default_timeout=60).run()
    # Only the link to the Select page fails outside the app (no page registry in a one-function script).
    assert all("Could not find page: `views/select_page.py`" in e.value for e in at.exception)
    (code,) = at.code
    assert code.proto.wrap_lines and code.value.endswith("/scores.csv")  # the whole line, wrapped, not cut
