"""Score-cache parts written from plain columns: read back unchanged, same digest as the pandas path."""

import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.cache import ScoreCache, frame_digest
from scoring.cache_parts import cache_columns, columns_digest, concatenated, write_part

NAMES = ("ppl", "minkpp")
META = {"purpose": "test"}


def _columns(rng, n: int) -> dict[str, np.ndarray]:
    scores = rng.normal(size=(n, len(NAMES)))
    scores[rng.random(scores.shape) < 0.2] = np.nan
    return {"text_sha": np.array([f"{i:064x}" for i in rng.permutation(10 * n)[:n]], dtype=object),
            "n_scored": rng.integers(0, 500, n), "truncated": rng.random(n) < 0.5,
            "max_length": np.full(n, 2048), **{name: scores[:, j] for j, name in enumerate(NAMES)}}


def _read(directory: Path) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a part set aside would warn
        return ScoreCache(directory=directory, meta=META, names=NAMES).load()


def _expected(columns) -> pd.DataFrame:
    return pd.DataFrame(columns).set_index("text_sha")


def _assert_same_rows(read: pd.DataFrame, columns) -> None:
    expected = _expected(columns)
    assert list(read.columns) == list(expected.columns)
    assert list(read.index) == list(expected.index)
    for column in expected.columns:
        np.testing.assert_array_equal(read[column].to_numpy(), expected[column].to_numpy())


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 60), seed=st.integers(0, 10_000))
def test_columns_read_back_unchanged_and_named_by_their_digest(tmp_path_factory, n, seed):
    directory = tmp_path_factory.mktemp("cache")
    columns = _columns(np.random.default_rng(seed), n)
    path = write_part(directory, META, columns, tag="-shard000003")
    read = _read(directory)
    _assert_same_rows(read, columns)
    assert path.name.endswith(f"-{frame_digest(read.reset_index())[:32]}.parquet")
    assert "-shard000003-" in path.name and (directory / "meta.json").exists()


def test_the_dataframe_writer_and_the_column_writer_give_the_same_part(tmp_path):
    columns = _columns(np.random.default_rng(3), 25)
    from_frame = ScoreCache(directory=tmp_path / "a", meta=META, names=NAMES).write(pd.DataFrame(columns))
    from_columns = write_part(tmp_path / "b", META, columns)
    assert from_frame.name.rsplit("-", 1)[1] == from_columns.name.rsplit("-", 1)[1]
    pd.testing.assert_frame_equal(_read(tmp_path / "a"), _read(tmp_path / "b"))


def test_a_part_written_by_pandas_still_loads(tmp_path):
    """Caches written with ``DataFrame.to_parquet`` keep their rows: the digest is of the values."""
    columns = _columns(np.random.default_rng(5), 12)
    frame = pd.DataFrame(columns)
    tmp_path.mkdir(exist_ok=True)
    frame.to_parquet(tmp_path / f"part-00000000000000000001-abcdef12-{frame_digest(frame)[:32]}.parquet", index=False)
    _assert_same_rows(_read(tmp_path), columns)


def test_digest_depends_on_values_not_on_their_integer_or_float_type():
    columns = _columns(np.random.default_rng(1), 8)
    as_floats = {**columns, "n_scored": columns["n_scored"].astype(float)}
    assert columns_digest(columns) == columns_digest(as_floats)
    changed = {**columns, "ppl": columns["ppl"] + 1.0}
    assert columns_digest(columns) != columns_digest(changed)


def test_concatenated_keeps_order_and_gives_typed_empty_columns():
    rng = np.random.default_rng(2)
    a, b = _columns(rng, 3), _columns(rng, 4)
    both = concatenated([a, b], NAMES)
    assert list(both) == list(cache_columns(NAMES))
    np.testing.assert_array_equal(both["ppl"], np.concatenate([a["ppl"], b["ppl"]]))
    empty = concatenated([], NAMES)
    assert list(empty) == list(cache_columns(NAMES)) and all(len(v) == 0 for v in empty.values())
    assert empty["truncated"].dtype == bool and empty["ppl"].dtype == np.float64


def test_no_rows_write_no_part_and_mixed_columns_are_refused(tmp_path):
    assert write_part(tmp_path / "none", META, concatenated([], NAMES)) is None
    assert not (tmp_path / "none").exists()
    columns = _columns(np.random.default_rng(4), 2)
    columns["n_scored"] = np.array([1, "two"], dtype=object)
    with pytest.raises(TypeError, match="mixed types"):
        write_part(tmp_path / "mixed", META, columns)


def test_a_ray_actor_scores_and_writes_its_shard_without_pandas(tmp_path):
    """pandas costs a cold actor about 0.3 s to import; the actor's path must not need it."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from scoring.testing import save_tiny_model

    model = save_tiny_model(tmp_path / "model", "llama", seed=3)
    script = textwrap.dedent(f"""
        import hashlib, sys
        from scoring.ray_actors import ShardScorer
        from scoring.settings import ScoreSettings
        from scoring.sources import model_source
        actor = ShardScorer(source=model_source({str(model)!r}), device="cpu", dtype="float32",
                            allow_pickle=False, threads=1)
        texts = ["one two three four", "", "five six seven"]
        digests = [hashlib.sha256(t.encode()).hexdigest() for t in texts]
        actor.score(index=0, texts=texts, digests=digests, reference_loss=None, settings=ScoreSettings(),
                    token_budget=256, names=("ppl", "minkpp"), cache_directory={str(tmp_path / "cache")!r},
                    cache_meta={{}})
        print("pandas imported:", "pandas" in sys.modules)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "pandas imported: False" in done.stdout
    read = ScoreCache(directory=tmp_path / "cache", meta={}, names=("ppl", "minkpp")).load()
    assert len(read) == 3 and np.isnan(read["ppl"]).sum() == 1
