"""A query slower than the socket timeout fails once with StoreError and is never
sent again: redis-py 8's default (10 retries on a timeout) made the server run a
slow write several times, storing every fact edge of a large import twice."""

from __future__ import annotations

import time

import pytest

from graphmem.graph.cypher.query import Query
from graphmem.graph.store import Store
from graphmem.schema.errors import StoreError

ROWS = 300_000
SLOW_WRITE = Query("UNWIND range(1, $n) AS i CREATE (:Probe {i: i})", {"n": ROWS})
COUNT = Query("MATCH (p:Probe) RETURN count(p) AS n", {})


def test_a_write_that_outlasts_the_timeout_runs_exactly_once(tmp_path):
    patient = Store.open(data_dir=tmp_path)  # keeps the embedded server up throughout
    try:
        impatient = Store.open(data_dir=tmp_path, timeout_s=0.05)
        try:
            with pytest.raises(StoreError):
                impatient.run("resend", SLOW_WRITE)
        finally:
            impatient.close()
        counts = []
        for _ in range(120):  # the server finishes the one copy it received
            counts.append(patient.run("resend", COUNT, read_only=True)[0]["n"])
            if len(counts) > 2 and counts[-1] == counts[-2] == counts[-3] == ROWS:
                break
            time.sleep(0.5)
        assert counts[-1] == ROWS, counts
    finally:
        patient.close()
