"""The audit report: self-contained HTML with every figure, escaped strings, provenance; and `jecs report`."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import jecs_core
from dashboard import samples
from dashboard.figures import build_all
from dashboard.report import ReportInputs, build_report, provenance_for, report_file_name
from jecs_core.simulate.synthetic import wide_table


@pytest.fixture(scope="module")
def real():
    return samples.get(samples.DEFAULT_SAMPLE).loader()


def _report(table, method=jecs_core.DEFAULT_METHOD, name="audit", diagnostics=None) -> str:
    comparison = jecs_core.compare_methods(table, alpha=0.1)
    return build_report(ReportInputs(table=table, comparison=comparison, method=method, data_name=name,
                                     diagnostics=diagnostics))


def test_report_has_every_figure_and_plotly_inlined_once(real):
    html = _report(real)
    comparison = jecs_core.compare_methods(real, alpha=0.1)
    expected = build_all(comparison, jecs_core.DEFAULT_METHOD)
    shown = re.findall(r"data-figure='(\w+)'", html)
    assert shown == list(expected)
    assert html.count("plotly-graph-div") >= len(expected)
    assert "<script src=" not in html and "src=\"http" not in html  # nothing fetched from the network
    assert html.count("plotly.js v") <= 2 and len(html) > 3_000_000  # the bundle, inlined once
    for method in comparison.methods:
        assert jecs_core.REGISTRY[method].label in html


def test_report_counts_settings_and_hashes(real):
    html = _report(real)
    comparison = jecs_core.compare_methods(real, alpha=0.1)
    for method in comparison.methods:
        assert f"<td>{comparison.selected(method).sum()}</td>" in html
    assert real.source_sha256 in html and "target GCR α" in html
    assert "input_sha256" in html  # the selection sidecar's record


def test_report_includes_the_provenance_sidecar(real):
    provenance = provenance_for(real)
    assert provenance is not None and "base_model" in provenance
    html = _report(real)
    section = html.split("<section id='provenance'>", 1)[1].split("</section>", 1)[0]
    assert "<th>base model</th>" in section and "<pre>" not in section  # a readable table, not a JSON dump


@pytest.mark.filterwarnings("ignore::jecs_core.JECSFallbackWarning")  # a table too small for the envelope
def test_user_strings_are_escaped():
    rng = np.random.default_rng(0)
    frame = wide_table(rng.standard_normal((60, 2)) + 3, rng.standard_normal((40, 2)), np.zeros((40, 2)))
    frame = frame.rename(columns={"score_m0": "score_<img src=x onerror=alert(1)>",
                                  "member_m0": "member_<img src=x onerror=alert(1)>"})
    frame.loc[frame["split"] == "test", "item_id"] = [f"<b>id{i}</b>" for i in range(40)]
    table = jecs_core.table_from_frame(frame)
    html = _report(table, name="<script>alert(2)</script>.csv")
    assert "<img src=x" not in html and "<script>alert(2)" not in html and "<b>id" not in html
    assert "&lt;script&gt;alert(2)&lt;/script&gt;.csv" in html


def test_diagnostics_of_any_shape_are_written(real):
    html = _report(real, diagnostics={"tail_size": np.int64(39), "band": np.array([0.1, 0.3])})
    assert "<tr><th>tail size</th><td>39</td></tr>" in html and "<td>0.1, 0.3</td>" in html
    assert "Not computed" in _report(real)


def test_report_file_name():
    assert report_file_name("Real audit: x", "jmcs", 0.1) == "jecs_report_real-audit-x_jmcs_alpha0.10.html"


def test_jecs_report_command(tmp_path, real):
    from jecs_cli import main

    out = tmp_path / "r.html"
    assert main(["report", real.source, "--out", str(out), "--alpha", "0.2", "--method", "jmcs"]) == 0
    html = out.read_text(encoding="utf-8")
    assert "data-figure='stepup'" in html and "JMCS" in html and "<td>0.2</td>" in html
    assert main(["report", real.source, "--out", str(tmp_path / "r.csv")]) == 2
    assert main(["report", real.source, "--out", real.source]) == 2
    assert not (tmp_path / "r.csv").exists()


def test_jecs_report_takes_the_post_hoc_delta_as_jecs_select_does(tmp_path, real, capsys):
    from jecs_cli import main

    out = tmp_path / "r.html"
    assert main(["report", real.source, "--out", str(out), "--post-hoc-delta", "0.2"]) == 0
    html = out.read_text(encoding="utf-8")
    assert "80% confidence" in html and "90% confidence" not in html
    with pytest.raises(SystemExit) as stop:
        main(["report", real.source, "--out", str(out), "--post-hoc-delta", "1.5"])
    assert stop.value.code == 2 and "--post-hoc-delta" in capsys.readouterr().err


def test_jecs_report_writes_through_the_shared_atomic_writer(tmp_path, real, monkeypatch):
    from jecs_cli import main

    out = tmp_path / "r.html"
    (tmp_path / "r.html.part").mkdir()  # a name a hand-rolled temporary file would collide with
    assert main(["report", real.source, "--out", str(out)]) == 0 and out.stat().st_size > 0
    before = out.read_bytes()

    def broken(inputs):
        raise ValueError("the report could not be built")

    monkeypatch.setattr("dashboard.report.build_report", broken)
    assert main(["report", real.source, "--out", str(out)]) == 2
    assert out.read_bytes() == before  # the old report stands
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html", "r.html.part"]  # no temporary left


def test_report_cli_standalone(tmp_path, real, capsys):
    from dashboard.report_cli import main

    assert main([real.source, "--out", str(tmp_path / "a.html")]) == 0
    assert "wrote" in capsys.readouterr().out
    json.dumps({"ok": True})


def test_a_bug_in_the_diagnostics_is_not_hidden(monkeypatch):
    import jecs_core.diagnostics as diagnostics
    from dashboard.report import audit_diagnostics_or_none

    def broken(table, **options):
        raise TypeError("a programming error")

    monkeypatch.setattr(diagnostics, "audit_diagnostics", broken)
    with pytest.raises(TypeError, match="programming error"):
        audit_diagnostics_or_none(object(), alpha=0.1)


def test_jecs_report_takes_covariates_as_jecs_select_does(tmp_path, capsys):
    import html as html_text

    from jecs_cli import main
    from jecs_core.simulate.shift_scenarios import location_shift

    scores, selection, out = tmp_path / "shift.csv", tmp_path / "s.csv", tmp_path / "r.html"
    location_shift(np.random.default_rng(0)).to_csv(scores, index=False)
    assert main(["select", str(scores), "--covariates", "x_len", "--out", str(selection), "--no-diagnostics",
                 "--no-progress"]) == 0
    record = json.loads(selection.with_suffix(".json").read_text())
    assert main(["report", str(scores), "--covariates", "x_len", "--out", str(out)]) == 0
    page = html_text.unescape(out.read_text(encoding="utf-8"))
    method = record["options"]["shift"]["method"]
    assert "<th>covariates</th><td>x_len</td>" in page and f"<th>covariate use</th><td>{method}: " in page
    assert re.findall(r'"n_selected": (\d+)', page) == [str(record["post_hoc"]["n_selected"])]
    assert f'"method": "{method}"' in page  # the report's selection record says how its p-values were made
    basis = "The diagnostics read the plain conformal p-values and scores, not the covariate-aware"
    assert method != "none" and basis in page  # beside the diagnostics they describe
    assert page.index("Diagnostics (label-free)") < page.index(basis) < page.index("Figures")
    plain = tmp_path / "plain.html"
    assert main(["report", str(scores), "--out", str(plain)]) == 0
    assert "covariate use" not in plain.read_text(encoding="utf-8") and basis not in plain.read_text(encoding="utf-8")
    capsys.readouterr()
    assert main(["report", str(scores), "--covariates", "x_nope", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("jecs report: error: --covariates: ") and "x_nope" in err and err.count("\n") == 1


def test_audit_diagnostics_read_as_jecs_select_prints_them(real):
    from jecs_core.diagnostics import audit_diagnostics

    found = audit_diagnostics(real, alpha=0.1, twin_tables=4, bootstrap=20)
    page = _report(real, diagnostics=found)
    import html as html_text

    text = html_text.unescape(page)
    assert "array of shape" not in text
    for line in found.lines():
        assert line in text
    assert "As recorded in the sidecar" in text


def test_the_post_hoc_section_cites_its_method_and_the_version(real):
    import html as html_text

    page = html_text.unescape(_report(real))
    assert "Goeman & Solari 2011" in page and f"docs/GUARANTEES.md of jecs {jecs_core.__version__}" in page
