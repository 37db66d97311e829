"""The Leaderboard page (AppTest from the frame): shipped sample, uploads, bad uploads, URL state, sessions.

Every number the page shows is checked against :func:`jecs_core.leaderboard.leaderboard` run
directly on the same table and results, bypassing the dashboard's caches.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dashboard import leaderboard_results as lr
from dashboard import leaderboard_view as lb
from dashboard import samples, select_view, state
from jecs_core import DEFAULT_METHOD, load_scores
from jecs_core.leaderboard import leaderboard, load_results_bytes

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGE = "views/leaderboard_page.py"


def _page(query: dict | None = None, *, first: bool = False) -> AppTest:
    """The page, reached from the Select page (the frame's default) or, with ``first``, opened directly."""
    at = AppTest.from_file(APP, default_timeout=180)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.run()
    if first:  # AppTest starts on the default page; undo what the Select page left, as if it never ran
        del at.session_state[select_view.URL_LOADED]
        for key in ("alpha", "lam", "knn", "method", "view", "fig"):
            if key in at.query_params:
                del at.query_params[key]
    at.switch_page(PAGE).run()
    assert not at.exception
    return at


def _shown(at: AppTest) -> pd.DataFrame:
    return at.dataframe[0].value.reset_index(drop=True)  # the table comes before the pairwise one


def _expected(table, data: bytes, name: str, *, alpha=0.1, method=DEFAULT_METHOD, metric=None) -> pd.DataFrame:
    board = leaderboard(table, load_results_bytes(data, name, metric=metric), alpha=alpha, method=method)
    return lb.table_frame(board.frame).reset_index(drop=True)


def _long_results(table, seed: int = 0, flip: str | None = None) -> bytes:
    """0/1 results of every model on every test item; ``flip`` answers every contaminated item right."""
    rng = np.random.default_rng(seed)
    rows = []
    for k, model in enumerate(table.models):
        correct = (rng.random(table.n) < 0.3 + 0.05 * k).astype(int)
        if model == flip:
            correct[table.contaminated] = 1
        rows.append(pd.DataFrame({"item_id": table.test_ids, "model": model, "correct": correct}))
    return pd.concat(rows).to_csv(index=False).encode()


def test_page_opens_on_the_shipped_leaderboard_sample():
    at = _page(first=True)
    sample = samples.get(samples.LEADERBOARD_SAMPLE)
    assert at.session_state[state.ACTIVE_KEY] != f"sample:{samples.LEADERBOARD_SAMPLE}"
    assert any("shipped leaderboard sample" in i.value for i in at.info)  # the active audit has no results
    assert at.slider(key=state.ALPHA).value == pytest.approx(sample.alpha)  # opened at the sample's own alpha
    assert at.query_params["alpha"] == f"{sample.alpha:g}"
    table = sample.load()
    expected = _expected(table, sample.results_file.read_bytes(), sample.results_file.name, alpha=sample.alpha)
    pd.testing.assert_frame_equal(_shown(at), expected)
    assert (expected["Rank (clean)"] != expected["Rank (full)"]).any()  # contamination reorders the models
    fig = at.get("plotly_chart")[0]
    assert "change rank" in fig.proto.spec
    assert not at.error
    assert any("at most" in c.value and "post-hoc bound" in c.value for c in at.caption)
    at.button(key="jecs.lb_activate").click().run()  # the sample becomes the data set of every page
    assert at.session_state[state.ACTIVE_KEY] == f"sample:{samples.LEADERBOARD_SAMPLE}"
    assert not any("shipped leaderboard sample" in i.value for i in at.info)
    pd.testing.assert_frame_equal(_shown(at), expected)


def test_from_the_select_page_alpha_is_kept_and_an_empty_subset_is_said_not_drawn():
    at = _page()  # the Select page ran first at alpha = 0.1, where the small sample's rule selects nothing
    assert at.slider(key=state.ALPHA).value == pytest.approx(0.1)
    assert any("selects no test item at α = 0.1" in w.value for w in at.warning)
    assert not at.error and not at.get("plotly_chart") and not at.dataframe
    at.slider(key=state.ALPHA).set_value(0.3).run()
    assert not at.exception and at.get("plotly_chart")


def test_upload_of_a_long_csv_ranks_the_active_data_set():
    at = _page()
    table = at.session_state[state.ACTIVE_TABLE]
    data = _long_results(table, flip=table.models[0])
    at.session_state[lr.RESULTS_PAYLOAD] = ("my results.csv", data)
    at.run()
    assert not at.exception and not at.error
    assert not any("shipped leaderboard sample" in i.value for i in at.info)
    pd.testing.assert_frame_equal(_shown(at), _expected(table, data, "my results.csv"))
    token = at.query_params["results"]
    assert lr.held(token).data == data
    at.button(key="jecs.lb_forget").click().run()  # back to the sample's results
    assert "results" not in at.query_params


def test_one_table_per_model_uploaded_together_ranks_as_one_table():
    at = _page()
    table = at.session_state[state.ACTIVE_TABLE]
    data = _long_results(table, seed=4)
    whole = pd.read_csv(io.BytesIO(data), dtype={"item_id": str})
    parts = [(f"{m}.csv", whole[whole.model == m].to_csv(index=False).encode()) for m in table.models]
    at.session_state[lr.RESULTS_PAYLOAD] = parts
    at.run()
    assert not at.exception and not at.error
    pd.testing.assert_frame_equal(_shown(at), _expected(table, data, "all.csv"))
    held = lr.held(at.query_params["results"])
    assert held.tables == tuple(parts) and held.name == ", ".join(name for name, _ in parts)
    at.session_state[lr.RESULTS_PAYLOAD] = [parts[0], (f"again {parts[0][0]}", parts[0][1])]  # one model twice
    at.run()
    assert not at.exception and any("is in both" in e.value for e in at.error)


def test_metric_and_wide_layout():
    at = _page()
    table = at.session_state[state.ACTIVE_TABLE]
    rng = np.random.default_rng(3)
    wide = pd.DataFrame({"item_id": table.test_ids, **{f"f1_{m}": rng.random(table.n) for m in table.models}})
    data = wide.to_csv(index=False).encode()
    at.text_input(key=lb.METRIC).set_value("f1")
    at.session_state[lr.RESULTS_PAYLOAD] = ("wide.csv", data)
    at.run()
    assert not at.exception and not at.error
    pd.testing.assert_frame_equal(_shown(at), _expected(table, data, "wide.csv", metric="f1"))
    assert at.query_params["metric"] == "f1"


@pytest.mark.parametrize("make, fragment", [
    (lambda t: b"item_id,model,correct\n" + b"x,nobody,1\n", "not in the score table"),
    (lambda t: _long_results(t).replace(b",0\n", b",zero\n", 1), "expected a finite number"),
    (lambda t: b"\x00\x01garbage\xff", "results.csv"),
    (lambda t: b"item_id,model,score\nx,a,1\n", "no 'correct' column"),
])
def test_bad_upload_shows_one_line_error_not_a_traceback(make, fragment):
    at = _page()
    at.session_state[lr.RESULTS_PAYLOAD] = ("results.csv", make(at.session_state[state.ACTIVE_TABLE]))
    at.run()
    assert not at.exception
    assert len(at.error) == 1
    message = at.error[0].value
    assert "\n" not in message and "Traceback" not in message
    assert fragment in message.replace("\\", "")
    assert not at.get("plotly_chart")


def test_url_state_round_trip():
    sample = samples.get(samples.LEADERBOARD_SAMPLE)
    at = _page({"sample": samples.LEADERBOARD_SAMPLE, "alpha": "0.2", "method": "jmcs", "metric": "token_accuracy"})
    assert at.session_state[state.ALPHA] == 0.2 and at.session_state[lb.METHOD] == "jmcs"
    assert at.text_input(key=lb.METRIC).value == "token_accuracy"
    assert not any("shipped leaderboard sample" in i.value for i in at.info)  # it is the active data set
    table = load_scores(samples.REAL_DIR / f"{samples.LEADERBOARD_STEM}.csv")
    expected = _expected(table, sample.results_file.read_bytes(), sample.results_file.name, alpha=0.2,
                         method="jmcs", metric="token_accuracy")
    pd.testing.assert_frame_equal(_shown(at), expected)
    at.slider(key=state.ALPHA).set_value(0.15).run()
    assert at.query_params["alpha"] == "0.15" and at.query_params["method"] == "jmcs"
    assert at.query_params["sample"] == samples.LEADERBOARD_SAMPLE


def test_an_upload_stays_in_its_session():
    first, second = _page(), _page()
    table = first.session_state[state.ACTIVE_TABLE]
    first.session_state[lr.RESULTS_PAYLOAD] = ("mine.csv", _long_results(table, seed=9))
    first.run()
    second.run()
    assert first.session_state[lr.RESULTS][1].name == "mine.csv"
    assert lr.RESULTS not in second.session_state
    assert not any("mine.csv" in t.value for t in second.text)
    assert any("shipped leaderboard sample" in i.value for i in second.info)


def _log(table, values, id_field: bool) -> bytes:
    """An lm-eval ``--log_samples`` file: one JSON line per sample, ``doc_id`` an integer."""
    import json

    lines = [json.dumps({"doc_id": j, "doc": {"uid": str(item)} if id_field else {}, "target": "x",
                         "acc": int(v), "filter": "none"}) for j, (item, v) in enumerate(zip(table.test_ids, values))]
    return ("\n".join(lines) + "\n").encode()


def test_lm_eval_sample_logs_named_in_upload_order():
    at = _page()
    table = at.session_state[state.ACTIVE_TABLE]
    rng = np.random.default_rng(4)
    values = {m: rng.random(table.n) < 0.5 for m in table.models}
    logs = [(f"samples_task_{k}.jsonl", _log(table, values[m], id_field=True)) for k, m in enumerate(table.models)]
    at.text_input(key=lr.LOG_ID_FIELD).set_value("uid")
    at.session_state[lr.RESULTS_PAYLOAD] = logs[:2]  # a model left unnamed: one line, no traceback
    at.run()
    assert not at.exception and len(at.error) == 1 and "name the model of each" in at.error[0].value.replace("\\", "")
    at.text_input(key=lr.LOG_MODELS).set_value(", ".join(table.models))
    at.session_state[lr.RESULTS_PAYLOAD] = logs
    at.run()
    assert not at.exception and not at.error
    wide = pd.DataFrame({"item_id": table.test_ids, **{f"acc_{m}": values[m].astype(int) for m in table.models}})
    pd.testing.assert_frame_equal(_shown(at), _expected(table, wide.to_csv(index=False).encode(), "w.csv", metric="acc"))


def test_a_link_to_results_the_server_no_longer_holds_says_so_on_this_page():
    at = _page({"results": "0123456789abcdef"})
    assert any("no longer held by this server" in info.value for info in at.info)
    at.switch_page("views/select_page.py").run()  # said once, where the link led, not again elsewhere
    assert not any("results in the link" in info.value for info in at.info)


def test_a_refused_upload_leaves_one_error_and_its_metric_is_not_tried_on_other_results():
    at = _page()
    table = at.session_state[state.ACTIVE_TABLE]
    values = np.ones(table.n, dtype=bool)
    at.text_input(key=lb.METRIC).set_value("acc")  # the logs' metric; the shipped table has no such column
    at.session_state[lr.RESULTS_PAYLOAD] = [("samples_a.jsonl", _log(table, values, id_field=False))]
    at.run()  # no model named for the log: refused
    assert not at.exception and len(at.error) == 1
    assert "name the model of each" in at.error[0].value.replace("\\", "")
    assert any("waits for results it can use" in i.value for i in at.info)
    assert not at.get("plotly_chart")
    at.text_input(key=lr.LOG_MODELS).set_value(table.models[0])
    at.session_state[lr.RESULTS_PAYLOAD] = [("samples_a.jsonl", _log(table, values, id_field=False))]
    at.run()  # accepted: ranked on its own metric, no notice left
    assert not at.exception
    assert not any("waits for results" in i.value for i in at.info)
    assert at.session_state[lr.RESULTS][1].name == "samples_a.jsonl"


def _cards_page():
    from types import SimpleNamespace

    import pandas as pd
    import streamlit as st

    from dashboard.leaderboard_view import summary_cards

    frame = pd.DataFrame({"model": ["a", "b"], "move": [0, 0], "inflation": st.session_state["inflation"],
                          "n_clean": [40, 40], "n_all": [100, 100]})
    summary_cards(SimpleNamespace(frame=frame, delta=0.1, n_clean=40, max_contaminated=3))


@pytest.mark.parametrize(("inflation", "named"), [([0.05, -0.01], "(a)"), ([-0.004, -0.02], "(no inflation")])
def test_the_largest_inflation_names_a_model_only_when_it_is_inflated(inflation, named):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_cards_page, default_timeout=30)
    at.session_state["inflation"] = inflation
    at.run()
    assert not at.exception
    assert any(t.value.startswith(named) for t in at.text)
