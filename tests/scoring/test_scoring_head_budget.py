"""The LM head's memory budget: chunking follows it, and any budget gives the full-logits statistics."""

from __future__ import annotations

import contextlib

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from scoring import registry  # noqa: E402
from scoring.head import MEMORY_BUDGET, budget_elements, scored_statistics  # noqa: E402
from scoring.loading import load_model  # noqa: E402
from scoring.sources import model_source  # noqa: E402
from scoring.testing import save_tiny_model  # noqa: E402


def test_budget_elements_cover_the_live_float32_arrays():
    # On a CPU the chunk's logits are its one budget-sized array; the statistics' blocks are fixed.
    assert budget_elements(MEMORY_BUDGET, "cpu") * 4 <= MEMORY_BUDGET
    assert budget_elements(4 * 1000, "cpu") == 1000 and budget_elements(1, "cpu") == 1
    # Elsewhere the log-softmax, softmax and scratch arrays are chunk-sized too.
    assert budget_elements(16 * 1000, "cuda") == 1000 and budget_elements(1, "cuda") == 1


@pytest.mark.parametrize("arch", ["llama", "gpt2"])
def test_any_budget_gives_the_full_logits_statistics(tmp_path, arch):
    lm = load_model(model_source(save_tiny_model(tmp_path / arch, arch, seed=5)), device="cpu")
    ids = torch.tensor([[5, 9, 11, 4, 7, 8, 3], [6, 12, 13, 2, 0, 0, 0]])
    mask = torch.tensor([[1] * 7, [1, 1, 1, 1, 0, 0, 0]])
    start = torch.tensor([1, 2])
    vocab = lm.model.get_output_embeddings().weight.shape[0]
    with torch.inference_mode():
        full = scored_statistics(lm.model, ids, mask, start, needed=registry.STATISTICS, chunked=False)
        for rows in (1, 2, 5, 1000):  # one row per chunk up to everything in one
            part = scored_statistics(lm.model, ids, mask, start, needed=registry.STATISTICS,
                                     memory_budget=4 * rows * vocab)
            torch.testing.assert_close(part, full, rtol=1e-5, atol=1e-5)


def test_the_budget_follows_the_device_and_an_explicit_one_wins(monkeypatch):
    import scoring.head as head

    assert head.memory_budget_for("cpu") == head.MEMORY_BUDGET
    assert head.memory_budget_for("cuda") == head.memory_budget_for("mps") == head.ACCELERATOR_MEMORY_BUDGET
    assert head.ACCELERATOR_MEMORY_BUDGET > head.MEMORY_BUDGET  # kernel launches, not cache, set its size
    seen = []
    monkeypatch.setattr(head, "budget_elements", lambda budget, device_type, **_: seen.append(budget) or 1 << 20)
    monkeypatch.setitem(head.MEMORY_BUDGETS, "cpu", 12345)
    ids = torch.tensor([[1, 2, 3]])
    mask = torch.ones_like(ids)
    model = torch.nn.Module()
    for budget in (None, 999):
        with contextlib.suppress(Exception):  # the stand-in model cannot run: only the budget is looked at
            head.scored_statistics(model, ids, mask, torch.tensor([1]), needed=("lp",), memory_budget=budget)
    assert seen == [12345, 999]


def test_compiled_statistics_count_only_the_chunk_logits():
    # Compiled, the statistics hold no vocabulary-sized temporary: four times the rows per chunk.
    assert budget_elements(16 * 1000, "cuda", compiled=True) == 4000
    assert budget_elements(16 * 1000, "cpu", compiled=True) == 4000 and budget_elements(1, "cuda", compiled=True) == 1


def test_compiled_chunks_follow_their_own_budget(monkeypatch):
    import scoring.head as head

    seen = []
    monkeypatch.setattr(head, "budget_elements", lambda budget, device_type, **kw: seen.append(kw) or 1 << 20)
    ids = torch.tensor([[1, 2, 3]])
    model = torch.nn.Module()
    for compiled in (False, True):
        with contextlib.suppress(Exception):  # the stand-in model cannot run: only the budget is looked at
            head.scored_statistics(model, ids, torch.ones_like(ids), torch.tensor([1]), needed=("lp",), compiled=compiled)
    assert seen == [{"compiled": False}, {"compiled": True}]
