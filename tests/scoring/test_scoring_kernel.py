"""The blocked statistics kernel: any block size, peaked rows, against float64 formulas."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")

from scoring import registry  # noqa: E402
from scoring.token_scores import BLOCK_ELEMENTS, PROB_EPS, SIGMA_FLOOR, token_statistics  # noqa: E402


def _from_log_softmax(logp: np.ndarray, y: np.ndarray) -> dict:
    """The formulas in float64 from given log-probs, log(1 - p) through expm1 at every entry."""
    rows = np.arange(len(y))
    p, lp = np.exp(logp), logp[rows, y]
    mu = (p * logp).sum(axis=1)
    sigma = np.sqrt((p * (logp - mu[:, None]) ** 2).sum(axis=1))
    log1m = np.log(np.maximum(-np.expm1(logp), PROB_EPS))
    others = p * log1m
    others[rows, y] = 0.0
    p_y = np.clip(p[rows, y], PROB_EPS, 1 - PROB_EPS)
    me = -np.maximum(-np.expm1(lp), PROB_EPS) * np.log(p_y) - others.sum(axis=1)
    return {"logprob": lp, "minkpp_z": (lp - mu) / np.maximum(sigma, SIGMA_FLOOR), "mentr": me}


def _peaked(rng, n, vocab, scale, spike, on_target):
    """Logits with one spike per row (top probability up to 1 - 1e-13), targets on or off it."""
    logits = rng.standard_normal((n, vocab)) * scale
    top = rng.integers(0, vocab, size=n)
    logits[np.arange(n), top] += spike
    y = np.where(on_target, top, rng.integers(0, vocab, size=n))
    return logits.astype(np.float32), y


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 9), st.integers(2, 300), st.floats(0.1, 4.0), st.floats(0.0, 40.0), st.booleans(),
       st.integers(1, 2000), st.integers(0, 2**31 - 1))
def test_blocked_kernel_equals_the_formulas_on_its_own_log_softmax(n, vocab, scale, spike, on_target, block, seed):
    # Peaked rows are where log(1 - p) is delicate: the kernel takes the top token's term from
    # its log-prob. Held against float64 evaluated on the kernel's own float32 log-softmax, the
    # only float32 step that cannot be avoided.
    rng = np.random.default_rng(seed)
    logits, y = _peaked(rng, n, vocab, scale, spike, on_target)
    x = torch.from_numpy(logits)
    got = token_statistics(x, torch.from_numpy(y), block_elements=block).double().numpy()
    logp = torch.log_softmax(x, dim=-1).double().numpy()
    want = _from_log_softmax(logp, y)
    # z = (lp - mu) / sigma inherits mu's float32 summation error (~eps * sqrt(V) * |mu|)
    # divided by sigma: on a near-flat row (sigma << |mu|) that alone exceeds 1e-5.
    mu = (np.exp(logp) * logp).sum(axis=1)
    sigma = np.sqrt((np.exp(logp) * (logp - mu[:, None]) ** 2).sum(axis=1))
    z_atol = 1e-5 + 4 * np.finfo(np.float32).eps * np.sqrt(vocab) * np.abs(mu) / np.maximum(sigma, SIGMA_FLOOR)
    for row, name in enumerate(registry.STATISTICS):
        atol = z_atol if name == "minkpp_z" else 1e-5
        assert np.all(np.abs(got[row] - want[name]) <= atol + 1e-4 * np.abs(want[name])), name


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.integers(2, 500), st.integers(1, 5000), st.integers(1, 5000), st.integers(0, 2**31 - 1))
def test_block_and_chunk_sizes_do_not_change_the_statistics(n, vocab, block, chunk, seed):
    rng = np.random.default_rng(seed)
    logits, y = _peaked(rng, n, vocab, 2.0, 8.0, rng.random(n) < 0.5)
    x, t = torch.from_numpy(logits), torch.from_numpy(y)
    whole = token_statistics(x, t, chunk_elements=1 << 30, block_elements=1 << 30)
    torch.testing.assert_close(token_statistics(x, t, chunk_elements=chunk, block_elements=block), whole,
                               rtol=1e-6, atol=1e-6)


def test_spike_on_the_target_gives_its_exact_modified_entropy():
    # One token at 1 - 1e-6: 1 - p in float32 keeps one digit, log(-expm1(log p)) keeps all.
    vocab = 1000
    logits = np.zeros((2, vocab), dtype=np.float32)
    logits[:, 7] = np.log((1 - 1e-6) / 1e-6 * (vocab - 1))
    y = np.array([7, 3])
    got = token_statistics(torch.from_numpy(logits), torch.from_numpy(y)).double().numpy()
    want = _from_log_softmax(torch.log_softmax(torch.from_numpy(logits), -1).double().numpy(), y)
    np.testing.assert_allclose(got[2], want["mentr"], rtol=1e-4, atol=1e-7)
    # Off the target, the spike's own term p log(1 - p) ~ -13.8 dominates the sum.
    assert want["mentr"][1] > 13.0


def test_default_block_fits_the_cache_it_is_sized_for():
    assert 4 * 3 * BLOCK_ELEMENTS <= 4 << 20
