"""A real store that fails one kind of query: how the tests reach a write's error paths
(the server going away half-way) without a stand-in store."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from graphmem import StoreError


@contextmanager
def failing(store, cypher: str, message: str = "server went away") -> Iterator[None]:
    """Inside the block, `store.run` raises `StoreError(message)` for queries whose text
    is `cypher` and runs every other query on the real store."""
    real_run = store.run

    def run(user_id, query, *args, **kwargs):
        if query.cypher == cypher:
            raise StoreError(message)
        return real_run(user_id, query, *args, **kwargs)

    store.run = run
    try:
        yield
    finally:
        del store.run
