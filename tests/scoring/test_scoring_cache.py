"""The portable, integrity-checked score cache."""

import shutil
import warnings

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

import scoring.fingerprint  # noqa: E402
import scoring.loading  # noqa: E402
from scoring import run_scoring  # noqa: E402
from scoring.cache import CacheWarning  # noqa: E402
from scoring.fingerprint import content_fingerprint  # noqa: E402
from scoring.sources import model_source  # noqa: E402
from scoring.testing import random_text, save_tiny_model  # noqa: E402


@pytest.fixture(scope="module")
def table():
    rng = np.random.default_rng(7)
    return pd.DataFrame({"item_id": range(20), "split": ["test"] * 20,
                         "text": [random_text(rng, int(w)) for w in rng.integers(2, 25, 20)]})


@pytest.fixture
def no_loading(monkeypatch):
    loads = []
    monkeypatch.setattr(scoring.loading, "load_model", lambda *a, **k: loads.append(a) or pytest.fail("model loaded"))
    return loads


def test_a_cache_written_at_one_path_is_reused_for_a_copy_elsewhere(table, tmp_path, monkeypatch):
    a = save_tiny_model(tmp_path / "disk_a" / "model", "gpt2", seed=21)
    first = run_scoring(table, {"m": a}, cache_dir=tmp_path / "cache")
    b = tmp_path / "disk_b" / "renamed"
    shutil.copytree(a, b)  # copytree keeps content; mtimes may differ
    shutil.rmtree(a)
    monkeypatch.setattr(scoring.loading, "load_model", lambda *x, **k: pytest.fail("the copy was not a cache hit"))
    second = run_scoring(table, {"m": b}, cache_dir=tmp_path / "cache")
    assert second.report.models[0].n_from_cache == table["text"].nunique()
    pd.testing.assert_frame_equal(second.long, first.long)


def test_fingerprint_is_content_based_and_computed_once_per_place(tmp_path, monkeypatch):
    a = save_tiny_model(tmp_path / "a", "llama", seed=1)
    b = tmp_path / "b"
    shutil.copytree(a, b)
    (b / "README.md").write_text("docs do not change scores")
    store = tmp_path / "store"
    fa, fb = content_fingerprint(model_source(a), store=store), content_fingerprint(model_source(b), store=store)
    assert fa == fb and len(fa) == 64
    assert len(list((store / "fingerprints").glob("*.json"))) == 2
    scoring.fingerprint._MEMO.clear()
    monkeypatch.setattr(scoring.fingerprint, "file_sha256", lambda p: pytest.fail("hashed again"))
    assert content_fingerprint(model_source(a), store=store) == fa  # read from the stored record
    monkeypatch.undo()
    save_tiny_model(b, "llama", seed=2)  # other weights in place
    assert content_fingerprint(model_source(b), store=store) != fa


def _parts(cache_root):
    return sorted(p for p in cache_root.glob("*/part-*.parquet"))


def test_a_tampered_part_is_recomputed_with_a_warning(table, tmp_path):
    model = save_tiny_model(tmp_path / "m", "gpt2", seed=22)
    first = run_scoring(table, {"m": model}, cache_dir=tmp_path / "cache")
    (part,) = _parts(tmp_path / "cache")
    frame = pd.read_parquet(part)
    frame.loc[0, "minkpp"] = 123.0  # a plausible-looking altered value
    frame.to_parquet(part, index=False)
    with pytest.warns(CacheWarning, match=r"content does not match its hash"):
        again = run_scoring(table, {"m": model}, cache_dir=tmp_path / "cache")
    assert again.report.models[0].n_scored == table["text"].nunique()
    assert not (again.long["value"] == 123.0).any()
    np.testing.assert_allclose(again.long["value"], first.long["value"], rtol=1e-6)
    assert part.with_name(part.name + ".bad").is_file()  # kept aside, not read again
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheWarning)
        run_scoring(table, {"m": model}, cache_dir=tmp_path / "cache")


def test_a_part_missing_a_column_is_recomputed_not_a_keyerror(table, tmp_path):
    model = save_tiny_model(tmp_path / "m", "gpt2", seed=23)
    first = run_scoring(table, {"m": model}, cache_dir=tmp_path / "cache")
    (part,) = _parts(tmp_path / "cache")
    pd.read_parquet(part).drop(columns="mentr").to_parquet(part, index=False)
    with pytest.warns(CacheWarning, match=r"missing column\(s\) mentr"):
        again = run_scoring(table, {"m": model}, cache_dir=tmp_path / "cache")
    np.testing.assert_allclose(again.long["value"], first.long["value"], rtol=1e-6)


def test_an_unreadable_part_is_recomputed(table, tmp_path):
    model = save_tiny_model(tmp_path / "m", "gpt2", seed=24)
    run_scoring(table, {"m": model}, cache_dir=tmp_path / "cache")
    (part,) = _parts(tmp_path / "cache")
    part.write_bytes(b"not parquet")
    with pytest.warns(CacheWarning, match="unreadable"):
        again = run_scoring(table, {"m": model}, cache_dir=tmp_path / "cache")
    assert again.report.models[0].n_scored == table["text"].nunique()


def test_the_reference_model_is_part_of_the_key(table, tmp_path):
    target = save_tiny_model(tmp_path / "t", "gpt2", seed=25)
    ref1, ref2 = save_tiny_model(tmp_path / "r1", "gpt2", seed=26), save_tiny_model(tmp_path / "r2", "gpt2", seed=27)
    one = run_scoring(table, {"t": target}, "refratio", cache_dir=tmp_path / "c", reference=ref1)
    two = run_scoring(table, {"t": target}, "refratio", cache_dir=tmp_path / "c", reference=ref2)
    assert two.report.models[0].n_from_cache == 0
    assert not np.allclose(one.wide["score_t"], two.wide["score_t"])
    with pytest.raises(ValueError, match="needs a reference model"):
        run_scoring(table, {"t": target}, "refratio", cache_dir=None)


def test_tokenizer_text_files_are_part_of_the_fingerprint_and_documentation_is_not(tmp_path):
    model = save_tiny_model(tmp_path / "m", "llama", seed=3)
    base = content_fingerprint(model_source(model))
    for doc in ("README", "LICENSE.txt", "notes.md"):  # documentation by name
        (model / doc).write_text("words that change no score")
    scoring.fingerprint._MEMO.clear()
    assert content_fingerprint(model_source(model)) == base
    (model / "merges.txt").write_text("#version: 0.2\na b\n")  # a BPE tokenizer's merges
    scoring.fingerprint._MEMO.clear()
    with_merges = content_fingerprint(model_source(model))
    assert with_merges != base
    (model / "merges.txt").write_text("#version: 0.2\nb c\n")
    scoring.fingerprint._MEMO.clear()
    assert content_fingerprint(model_source(model)) not in (base, with_merges)


def test_a_file_replaced_with_its_size_and_mtime_kept_is_hashed_again(tmp_path):
    import os

    model = save_tiny_model(tmp_path / "m", "llama", seed=4)
    extra = model / "special_tokens_map.json"
    extra.write_text('{"a": 1}')
    store = tmp_path / "store"
    first = content_fingerprint(model_source(model), store=store)
    scoring.fingerprint._MEMO.clear()
    stat = extra.stat()
    replacement = tmp_path / "new.json"
    replacement.write_text('{"a": 2}')  # same size
    os.utime(replacement, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # the times rsync -a keeps
    os.replace(replacement, extra)
    assert extra.stat().st_size == stat.st_size and extra.stat().st_mtime_ns == stat.st_mtime_ns
    assert content_fingerprint(model_source(model), store=store) != first


def test_library_versions_are_part_of_the_cache_key(tmp_path, monkeypatch):
    import scoring.cache
    from scoring.settings import ScoreSettings

    source = model_source(save_tiny_model(tmp_path / "m", "llama", seed=5))
    key = scoring.cache.cache_key

    def digest():
        return key(source, ScoreSettings(), names=("ppl",), device_type="cpu", dtype="float32")[0]

    before = digest()
    assert scoring.cache.library_versions()["transformers"] is not None
    monkeypatch.setattr(scoring.cache, "library_versions", lambda: {"torch": "0", "transformers": "0", "tokenizers": "0"})
    assert digest() != before
