"""The Data page: sample choice, upload (widget and hook), readable errors, summary, member AUC."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dashboard import samples, state
from sample_data import SAMPLE_DIR

APP = str(Path(__file__).resolve().parents[2] / "app.py")
SAMPLE = SAMPLE_DIR / "synthetic_k4.csv"


@pytest.fixture
def at() -> AppTest:
    app = AppTest.from_file(APP, default_timeout=60).run()
    return app.switch_page("views/data_page.py").run()


def _metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def _problems(at) -> list[str]:
    """The lines of the upload's problem list (drawn as plain text, one per problem)."""
    return [t.value[2:] for t in at.text if t.value.startswith("• ")]


def _bad_csv() -> bytes:
    frame = pd.read_csv(SAMPLE, dtype={"item_id": str})
    frame["score_m2"] = frame["score_m2"].astype(object)
    frame.loc[[6, 41], "score_m2"] = "high"
    return frame.to_csv(index=False).encode()


def test_summary_of_the_default_sample(at):
    assert not at.exception
    default = samples.get(samples.DEFAULT_SAMPLE)
    table = default.loader()
    assert _metrics(at) == {
        "Test items (n)": f"{table.n:,}", "Calibration items (m)": f"{table.m:,}", "Models (K)": str(table.K),
        "Labels": "present",
    }
    assert at.text[0].value == default.name
    assert len(at.get("plotly_chart")) == 1
    # Nothing on the page names a server directory: the sample's source is shown by file name only.
    shown = " ".join(e.value for e in [*at.text, *at.markdown, *at.caption])
    assert str(samples.REAL_DIR) not in shown and str(SAMPLE_DIR) not in shown


def test_member_auc_per_model_matches_a_brute_force_count(at):
    from dashboard.data_summary import auc, member_auc

    table = samples.get(samples.DEFAULT_SAMPLE).loader()
    frame = member_auc(table)
    shown = next(d.value for d in at.dataframe if "auc" in d.value.columns)
    assert list(shown["model"]) == list(table.models)
    for k in range(table.K):
        member = table.test_members[:, k].astype(bool)
        pos, neg = table.test[member, k], table.test[~member, k]
        brute = ((pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()) / (pos.size * neg.size)
        assert frame["auc"][k] == pytest.approx(brute) == pytest.approx(shown["auc"][k])
    assert np.isnan(auc([1.0, 2.0], [1, 1]))


def test_choosing_a_sample_makes_it_active(at):
    at.selectbox(key=state.SAMPLE_CHOICE).set_value("synthetic-k16-10k").run()
    assert not at.exception
    assert at.session_state[state.ACTIVE_KEY] == "sample:synthetic-k16-10k"
    assert _metrics(at)["Models (K)"] == "16"
    assert len(at.multiselect) == 1  # K > 8: the user picks which models to draw


def test_bad_upload_shows_a_readable_error_and_keeps_the_data(at):
    at.session_state[state.UPLOAD_PAYLOAD] = ("scores.csv", _bad_csv())
    at.run()
    assert not at.exception
    assert len(at.error) == 1
    problems = _problems(at)
    assert any("scores.csv: column 'score_m2'" in p and "rows 7, 42 (spreadsheet rows 8, 43)" in p for p in problems)
    assert not any("Traceback" in p for p in problems)
    assert at.session_state[state.ACTIVE_KEY] == f"sample:{samples.DEFAULT_SAMPLE}"


def test_good_upload_becomes_active_with_its_options(at):
    frame = pd.read_csv(SAMPLE, dtype={"item_id": str}).drop(columns=[f"member_m{k}" for k in range(4)])
    at.checkbox(key=state.UPLOAD_LOWER).check().run()
    at.session_state[state.UPLOAD_PAYLOAD] = ("mine.csv", frame.to_csv(index=False).encode())
    at.run()
    assert not at.exception and not at.error
    assert at.success[0].value.startswith("Loaded mine\\.csv\\: 840 test items")
    assert at.session_state[state.ACTIVE_NAME] == "mine.csv"
    assert at.session_state[state.ACTIVE_TABLE].flipped
    assert _metrics(at)["Labels"] == "absent"
    assert [t.value for t in at.sidebar.text] == ["mine.csv"]  # named in the sidebar in the same rerun
    assert at.button(key="jecs.use_sample").label == "Use this sample" and not at.button(key="jecs.use_sample").disabled
    assert "data" in at.query_params and "sample" not in at.query_params
    at.switch_page("views/select_page.py").run()  # the Select page works without labels
    assert not at.exception


def test_upload_through_the_file_uploader_widget(at):
    uploader = at.file_uploader(key="jecs.uploader")
    if not hasattr(uploader, "set_value"):  # older Streamlit: the hook test above covers the path
        pytest.skip("this Streamlit's AppTest cannot drive st.file_uploader")
    uploader.set_value(("bad.csv", _bad_csv(), "text/csv")).run()
    assert not at.exception
    assert any("bad.csv: column 'score_m2'" in p for p in _problems(at))
    at.file_uploader(key="jecs.uploader").set_value(("good.csv", SAMPLE.read_bytes(), "text/csv")).run()
    assert not at.exception and not at.error
    assert at.session_state[state.ACTIVE_NAME] == "good.csv"


def test_oversized_upload_is_refused_with_the_limit(at, monkeypatch):
    monkeypatch.setattr(state, "upload_limit_mb", lambda: 0.01)
    at.session_state[state.UPLOAD_PAYLOAD] = ("huge.csv", SAMPLE.read_bytes())
    at.run()
    assert not at.exception
    assert "above the dashboard's limit of 0.01 MB" in _problems(at)[0]


@pytest.mark.skipif(samples.REAL_SAMPLE not in samples.SAMPLES, reason="the real audit files are not in this checkout")
def test_switching_the_detection_score_of_the_real_sample(at):
    at.selectbox(key=state.SAMPLE_CHOICE).set_value(samples.REAL_SAMPLE).run()
    at.selectbox(key=state.SAMPLE_SCORE).set_value("ppl").run()
    assert not at.exception
    assert at.session_state[state.ACTIVE_KEY] == f"sample:{samples.REAL_SAMPLE}:ppl"
    table = at.session_state[state.ACTIVE_TABLE]
    long = pd.read_parquet(samples.REAL_DIR / f"{samples.REAL_STEM}_all_scores.parquet")
    ppl = long[(long.score_name == "ppl") & (long.model == table.models[0])].set_index("item_id")["value"]
    np.testing.assert_allclose(table.test[:, 0], ppl.loc[list(table.test_ids)].to_numpy())
    in_use = at.button(key="jecs.use_sample")
    assert in_use.label == "In use" and in_use.disabled
    at.selectbox(key=state.SAMPLE_SCORE).set_value("minkpp").run()
    assert at.session_state[state.ACTIVE_KEY] == f"sample:{samples.REAL_SAMPLE}"
    assert at.button(key="jecs.use_sample").label == "In use"
    first = samples.get(samples.REAL_SAMPLE).scores[0]
    assert state.chosen_sample_key(samples.REAL_SAMPLE, first) == state.chosen_sample_key(samples.REAL_SAMPLE)
    assert state.chosen_sample_key(samples.REAL_SAMPLE, "ppl") == f"sample:{samples.REAL_SAMPLE}:ppl"


def test_semicolon_file_gets_a_delimiter_hint(at):
    frame = pd.read_csv(SAMPLE, dtype={"item_id": str})
    at.session_state[state.UPLOAD_PAYLOAD] = ("excel.csv", frame.to_csv(index=False, sep=";").encode())
    at.run()
    assert not at.exception
    assert "semicolon-separated" in _problems(at)[0]
    assert at.session_state[state.ACTIVE_KEY] == f"sample:{samples.DEFAULT_SAMPLE}"


def test_use_this_sample_is_always_drawn(at):
    button = at.button(key="jecs.use_sample")
    assert button.disabled and button.label == "In use"
    at.selectbox(key=state.SAMPLE_CHOICE).set_value(samples.PAPER_SAMPLE).run()
    assert at.session_state[state.ACTIVE_KEY] == f"sample:{samples.PAPER_SAMPLE}"
    assert at.query_params["sample"] == samples.PAPER_SAMPLE


def test_shift_check_on_a_table_with_a_shifted_covariate(at):
    pytest.importorskip("sklearn")
    rng = np.random.default_rng(3)
    n_cal, n_test = 80, 160
    frame = pd.DataFrame({"item_id": [f"i{i}" for i in range(n_cal + n_test)],
                          "split": ["calibration"] * n_cal + ["test"] * n_test,
                          "x_length": np.r_[rng.normal(1.5, 1, n_cal), rng.normal(0, 1, n_test)],
                          "score_a": rng.normal(size=n_cal + n_test), "score_b": rng.normal(size=n_cal + n_test)})
    at.session_state[state.UPLOAD_PAYLOAD] = ("shifted.csv", frame.to_csv(index=False).encode())
    at.run()
    at.toggle(key="jecs.shift_run").set_value(True).run()
    assert not at.exception
    metrics = _metrics(at)
    assert metrics["Verdict"] == "shifted" and float(metrics["AUC calibration vs test"]) > 0.75
    assert any("drivers: length" in w.value for w in at.warning)  # the covariate x_length drives it


def test_a_column_named_almost_as_a_role_is_flagged_where_the_file_is_uploaded(at):
    frame = pd.read_csv(SAMPLE, dtype={"item_id": str}).drop(columns=[f"member_m{k}" for k in range(4)])
    at.session_state[state.UPLOAD_PAYLOAD] = ("typo.csv", frame.rename(columns={"score_m3": "Score_m3"}).to_csv(index=False).encode())
    at.run()
    assert not at.exception
    lines = [re.sub(r"\\(.)", r"\1", w.value) for w in at.warning]  # shown escaped: every character as written
    assert any("column 'Score_m3' is carried to the export, not read as a model's scores" in line for line in lines), lines
    assert not any(line.startswith("warning:") for line in lines)


def test_an_upload_left_in_the_box_after_choosing_a_sample_is_said_not_in_use(at):
    data = pd.read_csv(SAMPLE, dtype={"item_id": str}).to_csv(index=False).encode()
    at.file_uploader(key="jecs.uploader").set_value(("u.csv", data, "text/csv")).run()
    assert any(s.value.replace("\\", "").startswith("Loaded u.csv") for s in at.success)
    upload_key = at.session_state[state.ACTIVE_KEY]
    at.selectbox(key=state.SAMPLE_CHOICE).set_value(samples.PAPER_SAMPLE).run()
    assert at.session_state[state.ACTIVE_KEY] == f"sample:{samples.PAPER_SAMPLE}"
    assert not at.success and any("u.csv is uploaded but not in use" in i.value.replace("\\", "") for i in at.info)
    at.button(key="jecs.reuse_upload").click().run()
    assert at.session_state[state.ACTIVE_KEY] == upload_key
    assert any(s.value.replace("\\", "").startswith("Loaded u.csv") for s in at.success)
