"""Row-parallel CPU statistics: every row once, in whole blocks, with the one-thread result bit for bit."""

import threading

import pytest

torch = pytest.importorskip("torch")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from scoring import cpu_rows  # noqa: E402
from scoring.token_scores import token_statistics  # noqa: E402


@settings(max_examples=60, deadline=None)
@given(n_rows=st.integers(0, 60), step=st.integers(1, 9), parts=st.integers(1, 4))
def test_parts_cover_every_row_once_in_whole_blocks(n_rows, step, parts):
    seen, lock = [], threading.Lock()

    def record(start, stop):
        with lock:
            seen.append((start, stop))

    cpu_rows.run_row_parts(record, n_rows, step, parts)
    covered = sorted(r for start, stop in seen for r in range(start, stop))
    assert covered == list(range(n_rows))
    assert all(start % step == 0 for start, _ in seen)
    assert len(seen) <= max(1, parts)


def test_workers_run_in_the_callers_modes():
    modes = []

    def record(start, stop):
        modes.append((torch.is_inference_mode_enabled(), torch.is_grad_enabled(), torch.get_num_threads()))

    with torch.inference_mode():
        cpu_rows.run_row_parts(record, 10, 2, 2)
    with torch.no_grad():
        cpu_rows.run_row_parts(record, 10, 2, 2)
    assert modes[:2] == [(True, False, 1)] * 2 and modes[2:] == [(False, False, 1)] * 2


@pytest.mark.parametrize("rows, vocab, block", [(1, 50, 100), (7, 50, 100), (33, 300, 600), (64, 1000, 1 << 18)])
def test_threaded_statistics_equal_one_thread_bit_for_bit(rows, vocab, block):
    gen = torch.Generator().manual_seed(rows)
    logits = torch.randn((rows, vocab), generator=gen) * 4
    targets = torch.randint(0, vocab, (rows,), generator=gen)
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        alone = token_statistics(logits, targets, block_elements=block)
        torch.set_num_threads(3)
        with torch.inference_mode():
            threaded = token_statistics(logits, targets, block_elements=block)
    finally:
        torch.set_num_threads(before)
    assert torch.get_num_threads() == before  # the workers' one-thread setting stays in the workers
    assert torch.equal(alone, threaded)


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs fork")
def test_a_forked_child_gets_its_own_workers():
    import os
    import signal

    cpu_rows.run_row_parts(lambda a, b: None, 10, 2, 2)  # the parent's pool exists
    pid = os.fork()
    if pid == 0:  # the child inherits the pool object, not its threads, and must still score
        signal.alarm(30)  # a child stuck on the inherited pool dies instead of hanging the test
        done = []
        cpu_rows.run_row_parts(lambda a, b: done.append(b - a), 10, 2, 2)
        os._exit(0 if sum(done) == 10 else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
