"""The compiled statistics for large GPU jobs: when they are used, that they give the plain values, the fallback."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

import scoring.fused as fused  # noqa: E402
from scoring.batching import encode_texts  # noqa: E402
from scoring.engine import score_encoded  # noqa: E402
from scoring.loading import load_model  # noqa: E402
from scoring.settings import ScoreSettings  # noqa: E402
from scoring.sources import model_source  # noqa: E402
from scoring.testing import save_tiny_model  # noqa: E402
from scoring.token_scores import chunk_statistics, token_statistics  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_state(monkeypatch):
    monkeypatch.setattr(fused, "_STATE", {"compiled": None, "failed": False})


def _counting_compile(monkeypatch, *, fail: bool = False) -> list:
    """Stand in for torch.compile (no compiler needed): the returned function counts its calls or fails."""
    calls = []

    def compile_(fn, dynamic=None):
        def run(*args):
            calls.append(len(args[0]))
            if fail:
                raise RuntimeError("backend compiler failed\nwith a long trace")
            return fn(*args)
        return run

    monkeypatch.setattr(torch, "compile", compile_)
    return calls


def test_only_large_jobs_on_cuda_compile(monkeypatch):
    big = fused.COMPILE_FROM_TOKENS
    assert fused.should_compile("cuda", big) and not fused.should_compile("cuda", big - 1)
    assert not fused.should_compile("cpu", 10 * big) and not fused.should_compile("mps", 10 * big)
    monkeypatch.setattr(fused, "COMPILE_FROM_TOKENS", None)
    assert not fused.should_compile("cuda", 10 * big)
    assert fused.chunk_kernel(False) is chunk_statistics


def test_the_compiled_kernel_gives_the_plain_statistics(monkeypatch):
    calls = _counting_compile(monkeypatch)
    torch.manual_seed(0)
    logits, targets = torch.randn(23, 50) * 4, torch.randint(0, 50, (23,))
    plain = token_statistics(logits, targets, chunk_elements=50 * 5)
    compiled = token_statistics(logits, targets, chunk_elements=50 * 5, kernel=fused.chunk_kernel(True))
    torch.testing.assert_close(compiled, plain, rtol=0, atol=0)
    assert sum(calls) == 23  # every row went through the compiled function


def test_a_failing_compiler_warns_once_and_the_plain_kernel_goes_on(monkeypatch):
    calls = _counting_compile(monkeypatch, fail=True)
    logits, targets = torch.randn(9, 40), torch.randint(0, 40, (9,))
    plain = token_statistics(logits, targets, chunk_elements=40 * 3)
    with pytest.warns(RuntimeWarning, match=r"compiling the scoring statistics failed \(RuntimeError: backend compiler "
                                            r"failed\); scoring goes on with the plain kernel"):
        first = token_statistics(logits, targets, chunk_elements=40 * 3, kernel=fused.chunk_kernel(True))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no second warning
        again = token_statistics(logits, targets, chunk_elements=40 * 3, kernel=fused.chunk_kernel(True))
    torch.testing.assert_close(first, plain, rtol=0, atol=0)
    torch.testing.assert_close(again, plain, rtol=0, atol=0)
    assert len(calls) == 1  # tried once, then never again


def test_the_engine_compiles_when_the_job_is_large_enough(monkeypatch, tmp_path):
    calls = _counting_compile(monkeypatch)
    lm = load_model(model_source(save_tiny_model(tmp_path / "llama", "llama", seed=3)), device="cpu")
    texts = ["one two three four five six", "seven eight nine ten", "a b c d e f g h"]
    encoded = encode_texts(lm.tokenizer, texts, max_length=32)
    settings = ScoreSettings()
    plain = score_encoded(lm.model, encoded, settings=settings, token_budget=64, device=lm.device, texts=texts)
    assert calls == []  # a CPU job never compiles
    monkeypatch.setattr("scoring.engine.should_compile", lambda device_type, tokens: tokens == int(encoded.n_scored.sum()))
    compiled = score_encoded(lm.model, encoded, settings=settings, token_budget=64, device=lm.device, texts=texts)
    assert sum(calls) == int(encoded.n_scored.sum())
    np.testing.assert_array_equal(compiled, plain)


def test_only_the_plain_kernel_gets_a_scratch_array():
    # Written through by a compiled kernel, the scratch would cost one more pass over the vocabulary.
    logits, targets = torch.randn(7, 50), torch.randint(0, 50, (7,))
    seen = []

    def spy(logits, y, needed, scratch):
        seen.append(scratch)
        return chunk_statistics(logits, y, needed, scratch)

    plain = token_statistics(logits, targets)
    torch.testing.assert_close(token_statistics(logits, targets, kernel=spy), plain, rtol=0, atol=0)
    assert seen and all(s is None for s in seen)
    torch.testing.assert_close(token_statistics(logits, targets, kernel=chunk_statistics, chunk_elements=100), plain,
                               rtol=1e-6, atol=1e-6)
