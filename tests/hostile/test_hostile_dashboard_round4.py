"""Dashboard cases met by using it as an auditor would: options a table cannot take (from a link or a switch),
results that match no item, blank texts, a table too small for a twin, the commit mode on the Leaderboard."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from dashboard import leaderboard_results as lr
from dashboard import state

APP = str(Path(__file__).resolve().parents[2] / "app.py")
LEADERBOARD, SELECT, DATA = "views/leaderboard_page.py", "views/select_page.py", "views/data_page.py"
EXPOSURE = "wiki-smollm2-exposure-k4"  # n = 320 test items


def _app(**query) -> AppTest:
    """A new session opened with ``query`` in its link (it lands on the Select page)."""
    at = AppTest.from_file(APP, default_timeout=180)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def _messages(at) -> list[str]:
    return [e.value.replace("\\", "") for e in [*at.warning, *at.error, *at.info]]  # escaped Markdown, read back


def test_a_k_n_above_n_from_a_link_falls_back_to_the_default():
    at = _app(sample=EXPOSURE, alpha="0.2", method="jecs", lam="0.5", knn="5000")
    assert not at.exception
    assert any("knn: 5000 is more than the n = 320 test items" in m and "default knn on" in m
               for m in _messages(at))
    assert (at.query_params["knn"], at.query_params["lam"]) == ("auto", "0.5")  # the link says what the cards show
    at.switch_page(LEADERBOARD).run()
    assert not at.exception and at.metric
    assert any("lam = 0.5, knn = auto" in c.value for c in at.caption)


def test_usable_resets_only_the_option_to_blame():
    from dashboard.rule_controls import RuleSettings, defaults, usable

    def check(settings):
        if settings["knn"] is not None and settings["knn"] > 10:
            raise ValueError(f"knn must be at most 10, got {settings['knn']}")

    chosen = RuleSettings(tuple({**dict(defaults().pairs), "lam": 0.5, "knn": 50}.items()))
    settled, why = usable(chosen, check)
    assert (settled["lam"], settled["knn"], why) == (0.5, None, "knn must be at most 10, got 50: using the default "
                                                                "knn on this table")
    fine = RuleSettings(tuple({**dict(defaults().pairs), "knn": 5}.items()))
    assert usable(fine, check) == (fine, None)

    def refuse(settings):
        raise ValueError("the table itself")
    assert usable(chosen, refuse) == (chosen, None)  # no option to blame: left to the caller


def test_a_k_n_that_fits_one_table_survives_a_switch_to_a_smaller_one():
    at = _app(method="jecs", knn="400")  # the landing sample has 560 test items: 400 is fine there
    assert not at.exception and not any("knn" in m for m in _messages(at))
    at.switch_page(DATA).run()
    at.selectbox(key=state.SAMPLE_CHOICE).set_value(EXPOSURE).run()
    at.switch_page(SELECT).run()
    assert not at.exception
    assert any("knn: 400 is more than the n = 320 test items" in m for m in _messages(at))


def test_leaderboard_link_carries_rule_options_and_delta():
    at = _app(sample=EXPOSURE, alpha="0.2", method="jecs", lam="0.5", knn="5", delta="0.2")
    at.switch_page(LEADERBOARD).run()
    assert not at.exception
    assert (at.query_params["lam"], at.query_params["knn"], at.query_params["delta"]) == ("0.5", "5", "0.2")
    assert any("lam = 0.5, knn = 5" in c.value and "δ = 0.2" in c.value for c in at.caption)
    assert any("With 80% confidence" in c.value for c in at.caption)  # the board's bound is at the link's δ


def test_results_for_no_test_item_give_one_error_line():
    at = _app(sample=EXPOSURE, alpha="0.2")
    at.switch_page(LEADERBOARD).run()
    at.text_input(key=lr.LOG_MODELS).set_value("ft01, ft02, ft03, ft04").run()
    logs = "\n".join(json.dumps({"doc_id": i, "acc": i % 2}) for i in range(320)).encode()
    at.session_state[lr.RESULTS_PAYLOAD] = [(f"s_{m}.jsonl", logs) for m in ("ft01", "ft02", "ft03", "ft04")]
    at.run()
    assert not at.exception
    (error,) = [e.value.replace("\\", "") for e in at.error]
    assert "no result for any of the 320 test items" in error and error.count("s_ft01.jsonl") == 1


def test_commit_mode_hides_the_leaderboard_until_the_commit_and_then_locks_alpha():
    at = _app(commit="first", sample=EXPOSURE, alpha="0.2")
    at.switch_page(LEADERBOARD).run()
    assert not at.exception and not at.metric  # no count before the commit
    assert any(m.startswith("Counts hidden") for m in _messages(at))
    at.switch_page(SELECT).run()
    at.button(key="commit-alpha").click().run()
    assert any("before the results at that α were seen" in c.value for c in at.caption)
    at.switch_page(LEADERBOARD).run()
    assert [m.value for m in at.metric][0] == "38 of 320"
    assert at.slider(key=state.ALPHA).disabled


def test_leaderboard_shown_before_a_commit_is_on_the_record():
    at = _app(sample=EXPOSURE, alpha="0.2")
    at.switch_page(LEADERBOARD).run()
    assert at.metric  # seen here, with the mode off
    at.switch_page(SELECT).run()
    at.toggle(key=state.COMMIT_FIRST).set_value(True).run()
    at.button(key="commit-alpha").click().run()
    assert any("had displayed the results at that α before the commit" in c.value for c in at.caption)


def test_blank_texts_in_an_upload_reach_the_select_page():
    n = 150
    frame = pd.DataFrame({"item_id": [f"i{i}" for i in range(n)], "split": ["calibration"] * 50 + ["test"] * 100,
                          "score_a": np.random.default_rng(0).normal(size=n), "text": ["hello world"] * 145 + [""] * 5})
    at = _app()
    at.session_state[state.UPLOAD_PAYLOAD] = ("t.csv", frame.to_csv(index=False).encode())
    at.switch_page(DATA).run()
    at.switch_page(SELECT).run()
    assert not at.exception
    assert any("identical texts" in m for m in _messages(at))


def test_twin_estimate_on_a_table_too_small_for_a_twin_says_why():
    frame = pd.DataFrame({"item_id": ["c0", "t0", "t1", "t2"], "split": ["calibration", "test", "test", "test"],
                          "score_a": [0.5, 0.1, 0.9, 0.3], "member_a": [None, 0, 1, 0]})
    at = _app()
    at.session_state[state.UPLOAD_PAYLOAD] = ("tiny.csv", frame.to_csv(index=False).encode())
    at.switch_page(DATA).run()
    at.switch_page("views/evaluate_page.py").run()
    at.number_input(key="eval.twin_tables").set_value(2).run()
    at.button(key="eval.twin_run").click().run()
    assert not at.exception
    assert any("a twin needs at least 2 calibration and 2 test items" in m for m in _messages(at))
    assert any(b.key == "eval.sweep.lambda" for b in at.button)  # the page goes on below


def test_path_errors_name_the_field(tmp_path):
    from dashboard.settings import OperatorSettings, resolve_path

    settings = OperatorSettings((tmp_path.resolve(),), None, "test")
    for text, expected in (("a\0b", "texts: a path cannot hold a NUL character"),
                           ("x" * 5000, "texts: " + "x" * 80 + "... cannot be read (File name too long)")):
        try:
            resolve_path(text, settings, what="texts")
        except ValueError as exc:
            assert str(exc) == expected
        else:
            raise AssertionError("no error")


def test_row_hint_only_when_rows_are_named_by_number():
    from dashboard.upload import LINE_HINT, problems
    from jecs_core import ScoreTableError

    empty = problems("h.csv", b"item_id,split,score_a\n", ScoreTableError("h.csv: the table has no rows"))
    assert empty == ["h.csv: the table has no rows"]
    numbered = problems("a.csv", b"item_id,split\n", ScoreTableError("a.csv: column 'x': missing score at row 3"))
    assert numbered[-1] == LINE_HINT


def test_header_only_results_file_says_so(tmp_path):
    from jecs_core.leaderboard import load_results

    path = tmp_path / "r.csv"
    path.write_text("item_id,model,correct\n")
    try:
        load_results(str(path))
    except ValueError as exc:
        assert str(exc) == f"{path}: the results have no rows (only the header ['item_id', 'model', 'correct'])"
    else:
        raise AssertionError("no error")
