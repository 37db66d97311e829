"""A process-wide store of the last few items, each reached only through an unguessable token.

F5 or a shared link starts a new Streamlit session; the URL's token finds the item again. A token
is 128 random bits, so a session reaches an item only through a link that names it.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from typing import Generic, TypeVar

T = TypeVar("T")


class TokenStore(Generic[T]):
    """The ``capacity`` most recently held or fetched items, each under its own random token.

    Parameters
    ----------
    capacity : int
        How many items are kept; holding one more drops the least recently used.

    Examples
    --------
    >>> store = TokenStore(1)
    >>> first = store.hold("a")
    >>> store.get(first)
    'a'
    >>> second = store.hold("b")
    >>> store.get(first) is None, store.get(second)
    (True, 'b')
    """

    def __init__(self, capacity: int) -> None:
        if int(capacity) < 1:
            raise ValueError(f"capacity: expected a positive count, got {capacity!r}")
        self.capacity = int(capacity)
        self._items: OrderedDict[str, T] = OrderedDict()
        self._lock = threading.Lock()

    def hold(self, item: T) -> str:
        """Keep ``item`` and return its token."""
        token = secrets.token_urlsafe(16)
        with self._lock:
            self._items[token] = item
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)
        return token

    def get(self, token: str) -> T | None:
        """The item held under ``token`` (now the most recently used), or None when it was dropped or never held."""
        with self._lock:
            item = self._items.get(token)
            if item is not None:
                self._items.move_to_end(token)
            return item
