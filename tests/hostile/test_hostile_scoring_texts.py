"""The texts table goes through the core's one reader, with the same one-line errors as a score table."""

from __future__ import annotations

import pytest

from scoring.texts import read_texts


def test_a_duplicate_header_in_a_texts_file_is_refused_not_renamed(tmp_path):
    path = tmp_path / "texts.csv"
    path.write_text("item_id,split,text,text\na,calibration,hello,again\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"column 'text' appears twice"):
        read_texts(path)


def test_na_like_texts_and_ids_are_kept_as_written(tmp_path):
    path = tmp_path / "texts.csv"
    path.write_text("item_id,split,text\nNA,calibration,null\nb,test,NA\n", encoding="utf-8")
    frame = read_texts(path)
    assert frame["item_id"].tolist() == ["NA", "b"] and frame["text"].tolist() == ["null", "NA"]


def test_split_words_are_read_as_a_score_table_reads_them(tmp_path):
    path = tmp_path / "texts.csv"
    path.write_text("item_id,split,text\na,Test ,hello\nb, CALIBRATION,again\n", encoding="utf-8")
    assert read_texts(path)["split"].tolist() == ["Test ", " CALIBRATION"]  # accepted, kept as written
    path.write_text("item_id,split,text\na,calib,hello\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"column 'split' must be 'calibration' or 'test'; found \['calib'\]"):
        read_texts(path)


def test_a_score_column_in_a_texts_table_is_refused(tmp_path):
    path = tmp_path / "texts.csv"
    path.write_text("item_id,split,text,score_old\na,test,hello,0.5\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"\['score_old'\] would be read as models' scores"):
        read_texts(path)
