"""Scored positions known on the host, and one batch in flight: the same statistics, no device waits."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import scoring.engine as engine  # noqa: E402
from scoring import registry  # noqa: E402
from scoring.batching import encode_texts, plan_batches, plan_pieces  # noqa: E402
from scoring.head import scored_mask, scored_positions, scored_statistics  # noqa: E402
from scoring.loading import load_model  # noqa: E402
from scoring.settings import ScoreSettings  # noqa: E402
from scoring.sources import model_source  # noqa: E402
from scoring.testing import random_text, save_tiny_model  # noqa: E402
from scoring.transfer import HostCopy, to_device, to_host  # noqa: E402


@st.composite
def right_padded(draw):
    lengths = draw(st.lists(st.integers(0, 9), min_size=1, max_size=5))
    width = max(2, max(lengths))
    mask = torch.tensor([[1] * n + [0] * (width - n) for n in lengths])
    score_from = torch.tensor([draw(st.integers(0, width)) for _ in lengths])
    ids = torch.arange(mask.numel()).reshape(mask.shape)
    return ids, mask, score_from


@settings(max_examples=200, deadline=None)
@given(right_padded())
def test_flat_positions_gather_what_the_boolean_mask_selects(batch):
    ids, mask, score_from = batch
    keep = scored_mask(mask, score_from)
    positions = scored_positions(mask, score_from)
    hidden = torch.randn(*ids.shape, 3)
    assert torch.equal(hidden.flatten(0, 1).index_select(0, positions), hidden[keep])
    # The target of position t is token t + 1 of the same row, never the next row's first.
    assert torch.equal(ids.flatten().index_select(0, positions + 1), ids[:, 1:][keep[:, :-1]])
    assert not keep[:, -1].any()


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = save_tiny_model(tmp_path_factory.mktemp("models") / "llama", "llama", seed=3)
    return load_model(model_source(path), device="cpu")


def test_given_positions_give_the_same_statistics_bit_for_bit(tiny):
    ids = torch.tensor([[5, 9, 11, 4, 7, 8, 3], [6, 12, 13, 2, 0, 0, 0], [7, 7, 0, 0, 0, 0, 0]])
    mask = (torch.arange(7)[None, :] < torch.tensor([[7], [4], [2]])).long()
    start = torch.tensor([1, 2, 1])
    with torch.inference_mode():
        for chunked in (True, False):
            found = scored_statistics(tiny.model, ids, mask, start, needed=registry.STATISTICS, chunked=chunked)
            given_ = scored_statistics(tiny.model, ids, mask, start, needed=registry.STATISTICS, chunked=chunked,
                                       positions=scored_positions(mask, start))
            assert found.shape[1] == int(scored_mask(mask, start).sum())
            assert torch.equal(found, given_)


@pytest.mark.parametrize("ahead", [True, False])
def test_the_next_batch_is_launched_before_a_batch_is_reduced_where_the_device_queues(tiny, monkeypatch, ahead):
    rng = np.random.default_rng(4)
    texts = [random_text(rng, n) for n in (3, 30, 8, 21, 5, 13, 2, 34)]
    settings_ = ScoreSettings()
    encoded = encode_texts(tiny.tokenizer, texts, max_length=64)
    expected = engine.score_encoded(tiny.model, encoded, settings=settings_, token_budget=48, device="cpu")
    n_batches = len(plan_batches(plan_pieces(encoded).lengths, 48))
    assert n_batches >= 3
    assert engine.runs_ahead("cuda") and not engine.runs_ahead("cpu")
    monkeypatch.setattr(engine, "runs_ahead", lambda device: ahead)
    events = []
    launch, reduce = engine.scored_statistics, engine.reduce_text
    monkeypatch.setattr(engine, "scored_statistics", lambda *a, **k: events.append("launch") or launch(*a, **k))
    monkeypatch.setattr(engine, "reduce_text", lambda *a, **k: events.append("reduce") or reduce(*a, **k))
    found = engine.score_encoded(tiny.model, encoded, settings=settings_, token_budget=48, device="cpu")
    np.testing.assert_array_equal(found, expected)
    assert events.count("launch") == n_batches and events.count("reduce") == len(texts)
    launches_before = [events[:i].count("launch") for i, e in enumerate(events) if e == "reduce"]
    assert launches_before[-1] == n_batches
    if ahead:  # batch 2 is queued before batch 1's texts are reduced
        assert events[:2] == ["launch", "launch"]
    else:  # a CPU reduces each batch before computing the next: progress is never a batch late
        assert events[:2] == ["launch", "reduce"]
        assert "launch,launch" not in ",".join(events)  # every batch here finishes a text


def test_host_copies_round_trip_on_the_cpu():
    values = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    copy = to_host(to_device(values, torch.device("cpu")))
    assert isinstance(copy, HostCopy) and copy.done is None
    np.testing.assert_array_equal(copy.result(), values.numpy())


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_host_copies_round_trip_through_a_cuda_device():
    values = torch.randn(5, 1000)
    on_device = to_device(values, torch.device("cuda"))
    copy = to_host(on_device * 2)
    assert copy.done is not None and copy.host.is_pinned()
    np.testing.assert_array_equal(copy.result(), (values * 2).numpy())
