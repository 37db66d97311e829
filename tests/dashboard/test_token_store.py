"""The token store behind ``?data=`` and ``?results=`` links: least recently used out, tokens unguessable."""

from __future__ import annotations

import threading
from collections import OrderedDict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dashboard import leaderboard_results, state
from dashboard.token_store import TokenStore


def test_the_least_recently_used_item_is_dropped_first():
    store = TokenStore(2)
    a, b = store.hold("a"), store.hold("b")
    assert store.get(a) == "a"  # a is now the most recent
    c = store.hold("c")
    assert store.get(b) is None
    assert (store.get(a), store.get(c)) == ("a", "c")


def test_an_unknown_token_finds_nothing_and_tokens_are_distinct_and_long():
    store = TokenStore(3)
    tokens = [store.hold(i) for i in range(3)]
    assert len(set(tokens)) == 3
    assert all(len(t) >= 21 for t in tokens)  # 16 random bytes, URL-safe base64
    assert store.get("not-a-token") is None
    assert store.get("") is None


@pytest.mark.parametrize("capacity", [0, -1])
def test_a_capacity_below_one_is_refused(capacity):
    with pytest.raises(ValueError, match="capacity"):
        TokenStore(capacity)


@settings(max_examples=200, deadline=None)
@given(capacity=st.integers(1, 5), steps=st.lists(st.one_of(st.just("hold"), st.integers(0, 30)), max_size=60))
def test_the_store_behaves_as_a_least_recently_used_map(capacity, steps):
    """Against a model: holding appends; a hit moves the token to the end; the oldest beyond capacity goes."""
    store, model, tokens = TokenStore(capacity), OrderedDict(), []
    for i, step in enumerate(steps):
        if step == "hold":
            tokens.append(store.hold(i))
            model[tokens[-1]] = i
            while len(model) > capacity:
                model.popitem(last=False)
        elif tokens:
            token = tokens[step % len(tokens)]
            expected = model.get(token)
            if expected is not None:
                model.move_to_end(token)
            assert store.get(token) == expected
    assert [store.get(t) for t in list(model)] == list(model.values())


def test_concurrent_holds_keep_exactly_capacity_items():
    store = TokenStore(8)
    tokens: list[str] = []
    lock = threading.Lock()

    def work(n):
        for i in range(200):
            token = store.hold((n, i))
            with lock:
                tokens.append(token)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(tokens) == len(set(tokens)) == 800
    assert sum(store.get(t) is not None for t in tokens) == 8


def test_the_data_and_results_stores_are_separate_with_their_own_capacities():
    token = state.hold("a table")
    assert leaderboard_results.held(token) is None
    assert state.held(token) == "a table"
    assert (state.HELD_CAPACITY, leaderboard_results.HELD_CAPACITY) == (4, 8)
