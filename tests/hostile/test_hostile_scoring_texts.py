"""The texts table goes through the core's one reader, with the same one-line errors as a score table."""

from __future__ import annotations

import re

import pytest

from scoring.texts import read_texts


@pytest.mark.parametrize(("content", "error"), [
    # a duplicate header is refused, not renamed
    ("item_id,split,text,text\na,calibration,hello,again\n", r"column 'text' appears twice"),
    # a score column in a texts table would be read as a model's scores later
    ("item_id,split,text,score_old\na,test,hello,0.5\n", r"\['score_old'\] would be read as models' scores"),
])
def test_a_texts_table_the_scorer_would_misread_is_refused(tmp_path, content, error):
    path = tmp_path / "texts.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=error):
        read_texts(path)


def test_na_like_texts_and_ids_are_kept_as_written(tmp_path):
    path = tmp_path / "texts.csv"
    path.write_text("item_id,split,text\nNA,calibration,null\nb,test,NA\n", encoding="utf-8")
    frame = read_texts(path)
    assert frame["item_id"].tolist() == ["NA", "b"] and frame["text"].tolist() == ["null", "NA"]


def test_carried_columns_are_kept_as_written_and_labels_typed(tmp_path):
    path = tmp_path / "texts.csv"
    path.write_text("item_id,split,text,source,member_a\na,calibration,x,007,1\nb,test,y,NA,0\n", encoding="utf-8")
    frame = read_texts(path)
    assert frame["source"].tolist() == ["007", "NA"]  # carried to the score table as written
    assert frame["member_a"].tolist() == [1, 0]


def test_split_words_are_read_as_a_score_table_reads_them(tmp_path):
    path = tmp_path / "texts.csv"
    path.write_text("item_id,split,text\na,Test ,hello\nb, CALIBRATION,again\n", encoding="utf-8")
    assert read_texts(path)["split"].tolist() == ["Test ", " CALIBRATION"]  # accepted, kept as written
    path.write_text("item_id,split,text\na,calib,hello\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"column 'split' must be 'calibration' or 'test'; found \['calib'\]"):
        read_texts(path)
    path.write_text("item_id,split,text\na,test,hello\nb,,again\nc, ,more\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"'calibration' or 'test'; 2 empty cell\(s\), the first at row 2$"):
        read_texts(path)  # named as empty cells, not as the text 'nan'



@pytest.mark.parametrize(("second_header", "error"), [
    ("item_id,split,Text", "texts shard '{p1}': missing column(s) 'text'; a texts table needs item_id, split, text; "
                           "'Text' would be 'text' without its spaces or capitals"),
    ("item_id,text", "texts shard '{p1}': missing column(s) 'split'; a texts table needs item_id, split, text"),
    ("item_id,split,text,note", "texts shard '{p1}': its columns differ from those of 'p0.csv' in 'note'; "
                                "give every shard the same columns"),
])
def test_a_shard_whose_columns_differ_is_refused_naming_it(tmp_path, second_header, error):
    # Joined first, a shard without 'text' scored its items as empty texts (NaN) without a word.
    (tmp_path / "p0.csv").write_text("item_id,split,text\nq0,calibration,hello\nq1,test,world\n", encoding="utf-8")
    cells = {"item_id,split,Text": "q2,test,hi", "item_id,text": "q2,hi", "item_id,split,text,note": "q2,test,hi,n"}
    (tmp_path / "p1.csv").write_text(f"{second_header}\n{cells[second_header]}\n", encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        read_texts(tmp_path)
    assert str(caught.value) == error.format(p1=tmp_path / "p1.csv")


def test_a_header_with_spaces_after_the_commas_is_named_with_the_fix(tmp_path):
    path = tmp_path / "texts.csv"
    path.write_text("item_id, split, text\na,test,hello\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"' split' would be 'split' without its spaces or capitals; "
                                         r"' text' would be 'text' without"):
        read_texts(path)


@pytest.mark.parametrize(("cells", "kind"), [
    ([[1, 2], [3]], "list<element: int64>"),  # token ids: the reader would print them, and "[1, 2]" be scored
    ([1, 2], "int64"),
    ([b"x", b"y"], "binary"),  # refused by the reader itself
])
def test_a_parquet_text_column_that_is_not_text_is_refused(tmp_path, cells, kind):
    import pandas as pd

    path = tmp_path / "texts.parquet"
    pd.DataFrame({"item_id": ["a", "b"], "split": ["test", "test"], "text": cells}).to_parquet(path)
    with pytest.raises(ValueError, match=rf"column 'text' (is of Parquet type {re.escape(kind)}, not text|holds {kind})"):
        read_texts(path)


def test_a_text_cell_that_is_not_a_string_is_refused_naming_the_item():
    import pandas as pd

    from scoring.texts import validate_texts

    frame = pd.DataFrame({"item_id": ["a", "b"], "split": ["test", "test"], "text": [[1, 2], "fine"]})
    with pytest.raises(ValueError, match=r"column 'text' must hold text; item 'a' \(row 1\) holds a list"):
        validate_texts(frame)


def test_an_unpaired_surrogate_is_refused_naming_the_item():
    import pandas as pd

    from scoring.texts import validate_texts

    frame = pd.DataFrame({"item_id": ["a", "b"], "split": ["test", "test"], "text": ["fine", "w1 \ud800"]}, dtype=object)
    with pytest.raises(ValueError, match=r"item 'b' \(row 2\) holds an unpaired surrogate at character 4"):
        validate_texts(frame)


def test_repeated_ids_are_named_as_written():
    import pandas as pd

    from scoring.texts import validate_texts

    frame = pd.DataFrame({"item_id": [1.0, 1.0], "split": ["test", "test"], "text": ["x", "y"]})
    with pytest.raises(ValueError, match=r"repeated: \['1.0'\]$"):
        validate_texts(frame)


def test_an_uploaded_parquet_text_column_of_token_ids_is_refused():
    import io

    import pandas as pd

    from scoring.texts import read_texts_bytes

    buffer = io.BytesIO()
    pd.DataFrame({"item_id": ["a"], "split": ["test"], "text": [[1, 2]]}).to_parquet(buffer)
    with pytest.raises(ValueError, match=r"^t\.parquet: column 'text' is of Parquet type list<element: int64>, not"):
        read_texts_bytes(buffer.getvalue(), "t.parquet")


def test_a_categorical_text_column_with_a_missing_cell_reads_as_the_empty_text(tmp_path):
    import pandas as pd

    path = tmp_path / "texts.parquet"
    frame = pd.DataFrame({"item_id": ["a", "b", "c"], "split": ["test"] * 3, "text": ["x", None, "x"]})
    frame.astype({"text": "category"}).to_parquet(path)
    assert read_texts(path)["text"].tolist() == ["x", "", "x"]
