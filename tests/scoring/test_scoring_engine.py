"""The scoring engine against a float64, one-text-at-a-time reference on tiny models."""

import functools
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from transformers import AutoModelForCausalLM, AutoTokenizer  # noqa: E402

from scoring.batching import collate, encode_texts, plan_batches  # noqa: E402
from scoring.engine import score_encoded, score_texts  # noqa: E402
from scoring.loading import load_model  # noqa: E402
from scoring.settings import ScoreSettings  # noqa: E402
from scoring.sources import model_source  # noqa: E402
from scoring.testing import BOS_ID, random_text, save_tiny_gguf, save_tiny_model  # noqa: E402
from scoring.token_scores import token_statistics  # noqa: E402

K = 0.2
FOUR = ("ppl", "mink", "minkpp", "mentr")


@pytest.fixture(scope="module")
def model_dirs(tmp_path_factory):
    root = tmp_path_factory.mktemp("models")
    return {
        "gpt2": save_tiny_model(root / "gpt2", "gpt2", seed=1),
        "llama": save_tiny_model(root / "llama", "llama", seed=2),
        # Same weights as "llama", but a tokenizer that pads on the left.
        "llama_left": save_tiny_model(root / "llama_left", "llama", seed=2, padding_side="left"),
    }


@pytest.fixture(scope="module")
def loaded(model_dirs):
    return {name: load_model(model_source(path), device="cpu") for name, path in model_dirs.items()}


@pytest.fixture(scope="module")
def texts():
    rng = np.random.default_rng(0)
    return [random_text(rng, n) for n in (1, 2, 3, 5, 8, 13, 21, 34, 7, 2, 40, 4)]


@functools.cache
def _plain_load(model_dir, gguf_file=None):
    """The model and tokenizer loaded by transformers directly, not by scoring."""
    kw = {"local_files_only": True, "gguf_file": gguf_file} if gguf_file else {"local_files_only": True}
    tok = AutoTokenizer.from_pretrained(model_dir, **kw)
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32, **kw).eval()
    return tok, model


def four(out):
    """The first four score columns, checked to be the original four."""
    assert out.names[:4] == FOUR
    return out.scores[:, :4]


def reference_scores(model_dir, text, *, k=K, prepend_bos=False, max_length=None, gguf_file=None):
    """The four scores of one text, straight from the formulas, in float64."""
    tok, model = _plain_load(model_dir, gguf_file)
    ids = tok(text)["input_ids"]
    if prepend_bos and (not ids or ids[0] != tok.bos_token_id):
        ids = [tok.bos_token_id] + ids
    ids = ids[:max_length] if max_length else ids
    if len(ids) < 2:
        return np.full(4, np.nan)
    with torch.no_grad():
        logits = model(torch.tensor([ids])).logits[0, :-1].double()
    y = torch.tensor(ids[1:])
    logp = torch.log_softmax(logits, -1)
    p = logp.exp()
    rows = torch.arange(len(y))
    lp = logp[rows, y]
    mu = (p * logp).sum(-1)
    sigma = ((p * logp**2).sum(-1) - mu**2).sqrt()
    z = (lp - mu) / sigma
    pc = p.clamp(1e-10, 1 - 1e-10)
    others = pc * torch.log(1 - pc)
    others[rows, y] = 0.0
    me = -(1 - pc[rows, y]) * torch.log(pc[rows, y]) - others.sum(-1)
    m = max(1, math.floor(k * len(y)))
    return np.array(
        [lp.mean().item(), lp.sort().values[:m].mean().item(), z.sort().values[:m].mean().item(), -me.mean().item()]
    )


@pytest.mark.parametrize("arch", ["gpt2", "llama"])
def test_all_four_scores_match_float64_reference(arch, model_dirs, loaded, texts):
    # A small budget forces several padded batches of mixed lengths.
    got = four(score_texts(loaded[arch], texts, settings=ScoreSettings(), token_budget=48))
    want = np.stack([reference_scores(model_dirs[arch], t) for t in texts])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert np.isfinite(got[1:]).all()


@pytest.mark.parametrize("arch", ["gpt2", "llama"])
def test_batched_equals_unbatched(arch, loaded, texts):
    one_by_one = score_texts(loaded[arch], texts, token_budget=1).scores
    all_at_once = score_texts(loaded[arch], texts, token_budget=10_000).scores
    np.testing.assert_allclose(all_at_once, one_by_one, rtol=1e-5, atol=1e-5)


def test_left_padding_tokenizer_gives_the_same_scores(loaded, texts):
    assert loaded["llama_left"].tokenizer.padding_side == "left"
    right = score_texts(loaded["llama"], texts, token_budget=64).scores
    left = score_texts(loaded["llama_left"], texts, token_budget=64).scores
    np.testing.assert_allclose(left, right, rtol=1e-6, atol=1e-6)


def test_k_ratios_are_parameters(model_dirs, loaded, texts):
    settings = ScoreSettings(k_mink=0.5, k_minkpp=0.1)
    got = four(score_texts(loaded["gpt2"], texts, settings=settings, token_budget=64))
    for i in (4, 7):
        ref_half = reference_scores(model_dirs["gpt2"], texts[i], k=0.5)
        ref_tenth = reference_scores(model_dirs["gpt2"], texts[i], k=0.1)
        np.testing.assert_allclose(got[i, 1], ref_half[1], rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(got[i, 2], ref_tenth[2], rtol=1e-5, atol=1e-5)


def test_bos_handling(model_dirs, loaded, texts):
    words = [len(t.split()) for t in texts]
    # GPT-2-style tokenizer adds no BOS: the first word is context only.
    gpt2 = score_texts(loaded["gpt2"], texts)
    assert list(gpt2.n_scored) == [w - 1 for w in words]
    # The Llama-style tokenizer adds BOS itself: every word is scored.
    llama = score_texts(loaded["llama"], texts)
    assert list(llama.n_scored) == words
    # prepend_bos scores the first word under GPT-2, and never doubles an existing BOS.
    bos = ScoreSettings(prepend_bos=True)
    gpt2_bos = score_texts(loaded["gpt2"], texts, settings=bos)
    assert list(gpt2_bos.n_scored) == words
    np.testing.assert_allclose(
        four(gpt2_bos)[3], reference_scores(model_dirs["gpt2"], texts[3], prepend_bos=True), rtol=1e-5, atol=1e-5
    )
    assert list(score_texts(loaded["llama"], texts, settings=bos).n_scored) == words
    enc = encode_texts(loaded["gpt2"].tokenizer, ["w1 w2"], max_length=10, prepend_bos=True)
    assert enc.ids[0][0] == BOS_ID and enc.ids[0].count(BOS_ID) == 1


def test_nan_policy_for_texts_with_nothing_to_score(loaded):
    texts = ["", "w5", "w5 w6", "   "]
    gpt2 = score_texts(loaded["gpt2"], texts)
    assert np.isnan(gpt2.scores[[0, 1, 3]]).all()  # empty, one token without BOS, blank
    assert np.isfinite(gpt2.scores[2]).all()
    assert list(gpt2.n_scored) == [0, 0, 1, 0]
    llama = score_texts(loaded["llama"], texts)
    assert np.isnan(llama.scores[[0, 3]]).all()  # BOS alone: still nothing to score
    assert np.isfinite(llama.scores[[1, 2]]).all()  # BOS makes one word scoreable
    # Nothing scoreable at all: no batch, no crash.
    assert np.isnan(score_texts(loaded["gpt2"], ["", "w1"]).scores).all()


def test_truncation_to_max_length(model_dirs, loaded, texts):
    settings = ScoreSettings(max_length=6)
    out = score_texts(loaded["gpt2"], texts, settings=settings)
    words = np.array([len(t.split()) for t in texts])
    assert out.max_length == 6
    np.testing.assert_array_equal(out.truncated, words > 6)
    np.testing.assert_array_equal(out.n_scored, np.minimum(words, 6) - 1)
    want = np.stack([reference_scores(model_dirs["gpt2"], t, max_length=6) for t in texts])
    np.testing.assert_allclose(four(out), want, rtol=1e-5, atol=1e-5)
    # The limit is lowered to the model's context length (64 here).
    assert score_texts(loaded["gpt2"], texts[:2], settings=ScoreSettings(max_length=10_000)).max_length == 64


def test_model_without_logits_to_keep_gives_the_same_scores(loaded, texts):
    class FullLogits(torch.nn.Module):
        """A causal LM whose forward has no logits_to_keep (all positions come back)."""

        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask=None, use_cache=False):
            return self.inner(input_ids=input_ids, attention_mask=attention_mask, use_cache=use_cache)

    lm = loaded["llama"]
    enc = encode_texts(lm.tokenizer, texts, max_length=64)
    settings = ScoreSettings()
    fast = score_encoded(lm.model, enc, settings=settings, token_budget=64, device=lm.device, texts=texts)
    full = score_encoded(FullLogits(lm.model), enc, settings=settings, token_budget=64, device=lm.device, texts=texts)
    unchunked = score_encoded(lm.model, enc, settings=settings, token_budget=64, device=lm.device, texts=texts,
                              chunked=False)
    np.testing.assert_allclose(full, fast, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(unchunked, fast, rtol=1e-6, atol=1e-6)


def test_a_release_whose_logits_to_keep_takes_no_mask_gives_the_same_scores(loaded, texts):
    class IndicesOnly(torch.nn.Module):
        """A causal LM whose logits_to_keep indexes the sequence axis only (transformers 5.17 and others)."""

        def __init__(self, inner):
            super().__init__()
            self.inner = inner
            self.calls = []

        def forward(self, input_ids, attention_mask=None, use_cache=False, logits_to_keep=0):
            self.calls.append(getattr(logits_to_keep, "ndim", 0))
            if getattr(logits_to_keep, "ndim", 0) > 1:
                raise IndexError("too many indices for tensor of dimension 3")
            return self.inner(input_ids=input_ids, attention_mask=attention_mask, use_cache=use_cache)

    lm = loaded["llama"]
    enc = encode_texts(lm.tokenizer, texts, max_length=64)
    settings = ScoreSettings()
    fast = score_encoded(lm.model, enc, settings=settings, token_budget=64, device=lm.device, texts=texts)
    model = IndicesOnly(lm.model)
    cut = score_encoded(model, enc, settings=settings, token_budget=64, device=lm.device, texts=texts, chunked=False)
    np.testing.assert_allclose(cut, fast, rtol=1e-6, atol=1e-6)
    assert model.calls[:2] == [2, 0] and set(model.calls[2:]) == {0}  # the mask is tried once per model


def test_the_forward_signature_is_read_once_per_model(loaded, texts, monkeypatch):
    import scoring.head as head

    reads = []
    real = head._accepts_logits_to_keep
    monkeypatch.setattr(head, "_accepts_logits_to_keep", lambda model: reads.append(model) or real(model))
    lm = loaded["llama"]
    enc = encode_texts(lm.tokenizer, texts, max_length=64)
    head._MASK_KEEP_OK.pop(lm.model, None)
    for _ in range(2):
        score_encoded(lm.model, enc, settings=ScoreSettings(), token_budget=16, device=lm.device, texts=texts,
                      chunked=False)
    assert reads == [lm.model]


def test_token_statistics_chunking_and_degenerate_rows():
    torch.manual_seed(0)
    logits = torch.randn(37, 300) * 3
    targets = torch.randint(0, 300, (37,))
    whole = token_statistics(logits, targets, chunk_elements=1 << 30)
    chunked = token_statistics(logits, targets, chunk_elements=300 * 5)
    torch.testing.assert_close(chunked, whole)
    # A flat row has sigma = 0: Min-K%++ stays finite (0) instead of 0/0.
    flat = token_statistics(torch.zeros(2, 50), torch.tensor([0, 7]))
    assert torch.isfinite(flat).all()
    assert flat[1].abs().max() < 1e-3
    # A one-hot row (p_y = 1): Modified Entropy is ~0 thanks to the clamps, no NaN.
    sharp = torch.full((1, 50), -1e4)
    sharp[0, 3] = 0.0
    stats = token_statistics(sharp, torch.tensor([3]))
    assert torch.isfinite(stats).all() and abs(stats[2, 0].item()) < 1e-6


def test_bfloat16_weights_keep_float32_statistics(model_dirs, texts):
    lm = load_model(model_source(model_dirs["llama"]), device="cpu", dtype="bfloat16")
    assert lm.dtype == torch.bfloat16
    out = score_texts(lm, texts, token_budget=64).scores
    assert out.dtype == np.float64 and np.isfinite(out).all()


def test_gguf_checkpoint_loads_and_scores(tmp_path):
    pytest.importorskip("gguf")
    path = save_tiny_gguf(tmp_path / "tiny.gguf")
    lm = load_model(model_source(path), device="cpu")
    texts = ["hello world", "abc", "", "x", "the quick brown fox, 42."]
    out = score_texts(lm, texts, token_budget=32)
    assert lm.source.gguf_file == "tiny.gguf"
    assert list(out.n_scored) == [len(t) + 1 if t else 0 for t in texts]  # BOS + one token per character
    want = np.stack([reference_scores(str(tmp_path), t, gguf_file="tiny.gguf") for t in texts])
    np.testing.assert_allclose(four(out), want, rtol=1e-5, atol=1e-5)


def test_plan_batches_respects_the_budget_and_sorts_by_length():
    lengths = np.array([5, 1, 30, 2, 12, 0, 7, 100])
    batches = plan_batches(lengths, token_budget=24)
    flat = np.concatenate(batches)
    assert sorted(flat) == [0, 2, 3, 4, 6, 7]  # texts under two tokens are left out
    assert list(lengths[flat]) == sorted(lengths[flat], reverse=True)
    for b in batches:
        assert len(b) == 1 or len(b) * lengths[b].max() <= 24


def test_collate_pads_right_and_masks():
    ids, mask = collate([[5, 6, 7], [8]], pad_id=0)
    assert ids.tolist() == [[5, 6, 7], [8, 0, 0]]
    assert mask.tolist() == [[1, 1, 1], [1, 0, 0]]
