"""`QueryWriter` runs queries in order behind a thread, stops at the first failure,
and never writes after its block has been left."""

from __future__ import annotations

import threading
import time

import pytest

from graphmem import StoreError
from graphmem.graph.cypher import Query
from graphmem.graph.writer import QueryWriter


class SlowStore:
    """Records what it ran; `fail_on` raises StoreError, `gate` holds each query until set."""

    def __init__(self, fail_on: str | None = None) -> None:
        self.ran: list[str] = []
        self.fail_on = fail_on
        self.gate = threading.Event()
        self.gate.set()

    def run(self, user_id: str, query: Query) -> list:
        self.gate.wait()
        if query.cypher == self.fail_on:
            raise StoreError(f"{query.cypher} failed")
        time.sleep(0.01)
        self.ran.append(query.cypher)
        return []


def queries(n: int) -> list[Query]:
    return [Query(f"q{i}", {}) for i in range(n)]


def test_queries_run_in_the_order_given_and_all_before_the_block_ends():
    store = SlowStore()
    with QueryWriter(store, "u") as writer:
        for query in queries(20):
            writer.put(query)
    assert store.ran == [f"q{i}" for i in range(20)]


def test_a_failed_query_stops_the_rest_and_reaches_the_caller():
    store = SlowStore(fail_on="q3")
    with pytest.raises(StoreError, match="q3 failed"):
        with QueryWriter(store, "u") as writer:
            for query in queries(20):
                writer.put(query)
    assert store.ran == ["q0", "q1", "q2"]


def test_the_callers_error_drops_the_queries_not_started_and_waits_for_the_running_one():
    store = SlowStore()
    store.gate.clear()
    with pytest.raises(RuntimeError, match="embedder down"):
        with QueryWriter(store, "u", depth=2) as writer:
            for query in queries(3):  # one running (held at the gate), two waiting
                writer.put(query)
            threading.Timer(0.1, store.gate.set).start()
            raise RuntimeError("embedder down")
    assert store.ran == ["q0"]
