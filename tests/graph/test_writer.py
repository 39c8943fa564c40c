"""`QueryWriter` runs queries in order behind a thread, stops at the first failure,
and never writes after its block has been left: on the real embedded FalkorDB."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from graphmem import StoreError
from graphmem.graph.cypher import Query
from graphmem.graph.writer import QueryWriter

USER = "writer"
STEP = Query(
    "MERGE (c:Counter {id: 0}) ON CREATE SET c.n = 0 WITH c SET c.n = c.n + 1 CREATE (:Step {i: $i, seq: c.n})", {})
SLOW = "UNWIND range(1, 3000000) AS x WITH count(x) AS c CREATE (:Step {i: $i, seq: -1})"
"""About 0.4 s of server time: long enough that the caller acts while it runs."""


def step(i: int) -> Query:
    return Query(STEP.cypher, {"i": i})


def steps(memory) -> list[tuple[int, int]]:
    rows = memory.store.run(USER, Query("MATCH (s:Step) RETURN s.i AS i, s.seq AS seq ORDER BY s.i", {}),
                            read_only=True)
    return [(row["i"], row["seq"]) for row in rows]


@pytest.fixture
def store_user(memory):
    memory.add_fact(USER, "a", "likes", "b")  # the user's graph exists
    return memory


def test_queries_run_in_the_order_given_and_all_before_the_block_ends(store_user):
    with QueryWriter(store_user.store, USER) as writer:
        for i in range(20):
            writer.put(step(i))
    assert steps(store_user) == [(i, i + 1) for i in range(20)]


def test_a_failed_query_stops_the_rest_and_reaches_the_caller(store_user):
    with pytest.raises(StoreError, match="nosuch"):
        with QueryWriter(store_user.store, USER) as writer:
            for i in range(20):
                writer.put(Query("CREATE (:Step {i: $i}) RETURN nosuch", {"i": i}) if i == 3 else step(i))
    assert steps(store_user) == [(0, 1), (1, 2), (2, 3)]


def test_the_callers_error_drops_the_queries_not_started_and_waits_for_the_running_one(store_user):
    with pytest.raises(RuntimeError, match="embedder down"):
        with QueryWriter(store_user.store, USER, depth=1) as writer:
            writer.put(Query(SLOW, {"i": 0}))
            writer.put(step(1))  # returns once the slow query has been taken: it waits behind it
            raise RuntimeError("embedder down")
    after_exit = steps(store_user)
    time.sleep(0.5)
    assert after_exit == [(0, -1)] and steps(store_user) == after_exit


def test_ctrl_c_while_the_block_waits_stops_the_writer_before_the_lock_is_left(store_user):
    """The interrupt lands in `__exit__` (waiting for the slow query): the queued step
    must not run after the block is left, and the running query is waited for."""
    with pytest.raises(KeyboardInterrupt):
        with QueryWriter(store_user.store, USER, depth=1) as writer:
            writer.put(Query(SLOW, {"i": 0}))
            writer.put(step(1))
            threading.Timer(0.1, os.kill, (os.getpid(), signal.SIGINT)).start()
    after_exit = steps(store_user)
    time.sleep(0.5)
    assert after_exit == [(0, -1)] and steps(store_user) == after_exit
