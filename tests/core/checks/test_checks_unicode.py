"""Texts and ids that differ only in how Unicode writes them: one text to the duplicate checks, a warning for ids."""

from __future__ import annotations

import unicodedata

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jecs_core as jc
from jecs_core.checks import calibration_copies, data_warnings, find_duplicates, look_alike_ids
from jecs_core.checks.duplicates import normalised
from jecs_core.leaderboard import leaderboard, results_from_frame

CAFE = "Qu'est-ce qu'un café crème à Zürich, numéro {}?"


def _frame(texts_test, texts_cal=None, ids=None) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n, m = len(texts_test), 30
    texts_cal = texts_cal or [f"calibration passage {i}" for i in range(m)]
    return pd.DataFrame({
        "item_id": ids or [f"c{i}" for i in range(m)] + [f"t{i}" for i in range(n)],
        "split": ["calibration"] * m + ["test"] * n,
        "score_a": rng.normal(size=m + n), "score_b": rng.normal(size=m + n),
        "text": list(texts_cal) + list(texts_test),
    })


def _nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


def test_copies_written_in_two_unicode_forms_are_copies():
    texts = [CAFE.format(i) for i in range(10)] + [_nfd(CAFE.format(i)) for i in range(10)]
    assert texts[0] != texts[10]  # different code points, the same text to a reader
    report = find_duplicates(jc.table_from_frame(_frame(texts)), near=False)
    assert report.text_groups == 10 and report.text_rows == 20


def test_a_test_text_repeating_a_calibration_text_in_another_form_is_found():
    cal = [CAFE.format(i) for i in range(30)]
    test = [_nfd(CAFE.format(i)) for i in range(5)] + [f"fresh passage {i}" for i in range(15)]
    copies = calibration_copies(jc.table_from_frame(_frame(test, cal)))
    assert copies.text_rows == 5


@settings(max_examples=50, deadline=None)
@given(st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x250), min_size=1, max_size=20))
def test_normalised_texts_are_alike_in_every_unicode_form(text):
    forms = [unicodedata.normalize(form, text) for form in ("NFC", "NFD")]
    assert normalised(forms)[0] == normalised(forms)[1]


def test_ids_that_print_alike_are_named_in_one_warning():
    ids = [f"c{i}" for i in range(30)] + ["café", _nfd("café"), "a\u200bb", "ab"] + [f"t{i}" for i in range(6)]
    table = jc.table_from_frame(_frame([f"passage {i}" for i in range(10)], ids=ids))
    (line,) = look_alike_ids(table)
    assert line.startswith("warning: 2 group(s) of item ids differ only in spaces around them, Unicode form")
    assert "'cafe\\u0301' and 'caf\\xe9'" in line and "'ab' and 'a\\u200bb'" in line
    assert line in data_warnings(table, near=False)


def test_ascii_ids_padded_with_spaces_are_named():
    ids = [f"c{i}" for i in range(30)] + ["t1", "t1 ", " t2", "t2"] + [f"t{i}" for i in range(3, 9)]
    table = jc.table_from_frame(_frame([f"passage {i}" for i in range(10)], ids=ids))
    (line,) = look_alike_ids(table)
    assert line.startswith("warning: 2 group(s) of item ids differ only in spaces around them")
    assert "'t1' and 't1 '" in line and "' t2' and 't2'" in line


def test_plain_ascii_ids_and_ids_differing_in_case_are_not_warned_about():
    ids = [f"c{i}" for i in range(30)] + ["A1", "a1"] + [f"t{i}" for i in range(8)] + ["ü"]
    table = jc.table_from_frame(_frame([f"passage {i}" for i in range(11)], ids=ids))
    assert look_alike_ids(table) == []


def test_leaderboard_says_when_missing_result_ids_are_spelt_otherwise():
    ids = [f"c{i}" for i in range(30)] + [f"Zürich_{i}" for i in range(20)]
    table = jc.table_from_frame(_frame([f"passage {i}" for i in range(20)], ids=ids))
    spelt = [_nfd(i) if n < 5 else i for n, i in enumerate(ids[30:])]
    results = results_from_frame(pd.DataFrame({"item_id": spelt * 2, "model": ["a"] * 20 + ["b"] * 20,
                                               "correct": [1, 0] * 20}), metric="correct")
    with pytest.warns(UserWarning):
        board = leaderboard(table, results, alpha=0.5)
    (line,) = [w for w in board.warnings if "not in the score table" in w]
    assert line.startswith("5 item(s) with results are not in the score table (first: 'Zu\u0308rich_0')")
    assert "5 of them match a test id once Unicode forms and invisible characters are folded" in line


def test_results_matching_no_test_item_name_the_unicode_spelling():
    ids = [f"c{i}" for i in range(30)] + [f"ét{i}" for i in range(20)]
    table = jc.table_from_frame(_frame([f"passage {i}" for i in range(20)], ids=ids))
    spelt = [_nfd(i) for i in ids[30:]]
    results = results_from_frame(pd.DataFrame({"item_id": spelt * 2, "model": ["a"] * 20 + ["b"] * 20,
                                               "correct": [1, 0] * 20}), metric="correct")
    with pytest.raises(ValueError) as caught:
        leaderboard(table, results, alpha=0.5)
    message = str(caught.value)
    assert "first result is for item id 'e\\u0301t0' and the table's first test item id is '\\xe9t0'" in message
    assert "20 of them match a test id once Unicode forms and invisible characters are folded" in message


def test_ids_mixing_text_and_numbers_are_read_as_text():
    from types import SimpleNamespace

    table = SimpleNamespace(calibration_ids=np.array(["c0", 1, 2], dtype=object),
                            test_ids=np.array(["t0", 3, "3 "], dtype=object))
    (line,) = look_alike_ids(table)  # 3 and '3 ' print alike
    assert "'3' and '3 '" in line
