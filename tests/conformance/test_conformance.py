"""The conformance cases in tests/conformance/cases reproduced exactly.

The cases and their expected outputs are written by ``make_cases.py`` beside this file, from a
brute-force reference that shares no code with ``jecs_core``; the first test checks that the
committed files are what the generator writes, so an expected value cannot drift by hand.
"""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import numpy as np
import pytest

import jecs_core
from jecs_core import compare_methods, load_scores

HERE = Path(__file__).resolve().parent
TOL = 1e-9


def _expected(csv_path):
    return json.loads(csv_path.with_name(csv_path.name.replace(".csv", ".expected.json")).read_text())


def _generator():
    spec = importlib.util.spec_from_file_location("jecs_conformance_make_cases", HERE / "make_cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def conformance_cases() -> list[Path]:
    return sorted((HERE / "cases").glob("case*.csv"))


def test_committed_cases_are_what_the_generator_writes(conformance_cases):
    make_cases = _generator()
    assert [p.stem for p in conformance_cases] == sorted(make_cases.CASES)
    for path in conformance_cases:
        table, expected = make_cases.build_case(path.stem)
        assert path.read_text(encoding="utf-8") == table, path.name
        assert _expected(path) == json.loads(expected), path.name


def test_all_cases_present(conformance_cases):
    assert len(conformance_cases) >= 5


def _each_case(conformance_cases):
    for path in conformance_cases:
        yield path, _expected(path), load_scores(path)


def test_sizes_and_p_max(conformance_cases):
    for path, expected, table in _each_case(conformance_cases):
        assert (table.n, table.m, table.K) == (expected["n"], expected["m"], expected["K"]), path.name
        p_max = jecs_core.conformal_pvalues(table.test, table.calibration).max(axis=1)
        np.testing.assert_allclose(p_max, expected["p_max"], rtol=0, atol=TOL, err_msg=path.name)


def test_lambda_grid_table(conformance_cases):
    for path, expected, table in _each_case(conformance_cases):
        p_max = jecs_core.conformal_pvalues(table.test, table.calibration).max(axis=1)
        grid = jecs_core.fit_jecs(p_max, warn=False).grid.to_frame()
        assert len(grid) == len(expected["lambda_grid"]), path.name
        for row, want in zip(grid.to_dict("records"), expected["lambda_grid"]):
            assert row["lambda"] == pytest.approx(want["lambda"], abs=TOL)
            assert row["m_R"] == want["m_R"], (path.name, want)
            if want["m_R"] == 0:
                assert not row["usable"]
                continue
            assert row["k_n"] == want["k_n"], (path.name, want)
            assert row["F_fit_lambda"] == pytest.approx(want["F_fit_lambda"], abs=TOL)
            assert row["slope"] == pytest.approx(want["slope"], abs=TOL)


@pytest.mark.filterwarnings("ignore::jecs_core.JECSFallbackWarning")
def test_selections_lambda_and_pi0(conformance_cases):
    checked = 0
    for path, expected, table in _each_case(conformance_cases):
        for alpha_text, want in expected["alphas"].items():
            comparison = compare_methods(table, alpha=float(alpha_text))
            for method in ("jecs", "jmcs", "union", "intersection"):
                got = list(table.test_ids[comparison.selected(method)])
                assert got == want[f"{method}_selected"], (path.name, alpha_text, method)
                checked += 1
            jecs = comparison.jecs
            if want.get("jecs_fallback_to_jmcs"):
                assert jecs.fallback_to_jmcs
                assert jecs.lam is None
                np.testing.assert_array_equal(jecs.selected, comparison.jmcs.selected)
            else:
                assert not jecs.fallback_to_jmcs
                assert jecs.lam == pytest.approx(want["lambda"], abs=TOL)
                assert jecs.F_fit_lambda == pytest.approx(want["F_fit_lambda"], abs=TOL)
                assert jecs.pi0_hat == pytest.approx(want["pi0_hat"], abs=TOL)
                assert jecs.envelope_at(jecs.lam) == pytest.approx(want["F_fit_lambda"], abs=TOL)
    assert checked >= 4 * 3 * 4


def test_default_rule_selections_and_pi0(conformance_cases):
    checked = 0
    for path, expected, table in _each_case(conformance_cases):
        p = jecs_core.conformal_pvalues(table.test, table.calibration)
        for alpha_text, want in expected["alphas"].items():
            result = jecs_core.select(p, alpha=float(alpha_text), method="storey-maxp")
            assert list(table.test_ids[result.selected]) == want["storey_maxp_selected"], (path.name, alpha_text)
            assert result.pi0_hat == pytest.approx(want["storey_maxp_pi0_hat"], abs=TOL), (path.name, alpha_text)
            checked += 1
    assert checked >= 5 * 3


def test_fallback_case_warns(conformance_cases):
    fallback = [p for p in conformance_cases if _expected(p)["alphas"]["0.1"].get("jecs_fallback_to_jmcs")]
    assert fallback, "expected a conformance case exercising the fallback"
    table = load_scores(fallback[0])
    p = jecs_core.conformal_pvalues(table.test, table.calibration)
    with pytest.warns(jecs_core.JECSFallbackWarning, match="no max-p value lies above"):
        result = jecs_core.jecs(p, alpha=0.1)
    assert result.fallback_to_jmcs and result.fallback_reason
    assert math.isclose(result.pi0_hat, 1.0)
