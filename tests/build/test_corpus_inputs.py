"""The builder's inputs: a corpus file it cannot read, and folders that are files, each one line naming it."""

from __future__ import annotations

import argparse

import pytest

from jecs_build.cli import add_arguments, config_from_args
from jecs_build.corpus import load_corpus


@pytest.mark.parametrize(("name", "content", "message"), [
    ("c.json", b"\xff\xfe bad", "not UTF-8 text; save it as UTF-8"),
    ("c.csv", b"text\n\xff\n", "not UTF-8 text; save it as UTF-8"),
    ("c.json", b'[{"text": "a\x01b"', "not valid JSON at line 1, column 13 (Invalid control character at)"),
    ("c.csv", b"", "the file is empty; a CSV corpus needs a header with a 'text' column"),
    ("c.parquet", b"PAR1", "expected a .json or .csv file of texts, got .parquet"),
    ("c.csv", b"title,body\na,b\n", "CSV needs a 'text' column"),
])
def test_a_corpus_it_cannot_read_is_named_with_what_to_do(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(ValueError) as caught:
        load_corpus(path)
    assert str(caught.value) == f"corpus {path}: {message}"


def test_a_folder_given_as_the_corpus_is_said_to_be_one(tmp_path):
    with pytest.raises(ValueError, match="is a folder; give a .json or .csv file of texts"):
        load_corpus(tmp_path)


def test_csv_texts_are_read_as_written(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text("title,text\n007,1.50\nNA,null\n", encoding="utf-8")
    frame = load_corpus(path)
    assert frame["title"].tolist() == ["007", "NA"] and frame["text"].tolist() == ["1.50", "null"]


def _args(*argv):
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(list(argv))


@pytest.mark.parametrize(("argv", "message"), [
    (["--b", "0"], "--b 0.0 leaves no calibration items in a pool of --n-pool 800"),
    (["--n-pool", "1"], "--b 0.3 leaves no calibration items in a pool of --n-pool 1"),
    (["--a", "0.9", "--b", "0.2"], "--a + --b must be below 1, got 0.9 + 0.2"),
])
def test_a_split_with_an_empty_block_names_the_flags(argv, message):
    with pytest.raises(ValueError) as caught:
        config_from_args(_args(*argv))
    assert str(caught.value) == message


@pytest.mark.parametrize("flag", ["--out-dir", "--cache-dir"])
def test_a_file_where_a_folder_goes_is_refused_before_any_work(tmp_path, flag):
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    with pytest.raises(ValueError) as caught:
        config_from_args(_args(flag, str(blocker / "inner")))
    assert str(caught.value) == f"{flag}: {blocker} is a file, not a folder; name a folder"


def test_padding_a_corpus_cannot_supply_names_the_flag():
    import pandas as pd

    from jecs_build.exposure import padding_texts

    plan = pd.DataFrame({"text": ["a", "b", "c"], "member_m1": [1, 1, 1], "member_m2": [1, 0, 0]})
    corpus = pd.DataFrame({"title": ["", "", "", ""], "text": ["a", "b", "c", "d"]})
    with pytest.raises(ValueError) as caught:
        padding_texts(corpus, plan, ["m1", "m2"], seed=0)
    assert str(caught.value) == ("--pad-training: padding needs 2 texts outside the pool, the corpus has 1; "
                                 "use a larger corpus or a smaller --n-pool")
