"""A query slower than the socket timeout fails once with StoreError and is never
sent again: redis-py 8's default (10 retries on a timeout) made the server run a
slow write several times, storing every fact edge of a large import twice. Only a
connection the server refused is tried again: nothing was sent on it."""

from __future__ import annotations

import socket
import threading
import time

import pytest
import redis

from graphmem.graph.cypher.query import Query
from graphmem.graph.embedded import client_options
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


class LateListener:
    """A socket bound now that listens only after `delay_s` (its file exists, connections
    are refused until then, as a starting redis-server's are between bind and listen),
    then passes one client's bytes to the real server at `upstream` and back."""

    def __init__(self, path: str, upstream: str, delay_s: float) -> None:
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.upstream, self.delay_s = upstream, delay_s
        self.sockets: list[socket.socket] = [self.listener]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        time.sleep(self.delay_s)
        self.listener.listen(1)
        client, _ = self.listener.accept()
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.connect(self.upstream)
        self.sockets += [client, server]
        for src, dst in ((client, server), (server, client)):
            threading.Thread(target=self._pump, args=(src, dst), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass

    def close(self) -> None:
        for sock in self.sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)  # wakes the pumps; close alone would not end their recv
            except OSError:
                pass
            sock.close()


def test_a_connection_refused_until_the_server_listens_is_tried_again(tmp_path):
    """The socket file exists before the server listens: a connection in between is
    refused. It is tried again (nothing was sent on it), so a start that raced the
    server's listen no longer fails ("Connection refused", once in a CI run)."""
    store = Store.open(data_dir=tmp_path / "gm")
    try:
        path = str(tmp_path / "late.sock")
        late = LateListener(path, store.url.removeprefix("unix://"), 0.3)
        client = redis.Redis(unix_socket_path=path, **client_options(5.0))
        started = time.monotonic()
        try:
            assert client.ping() is True
            assert time.monotonic() - started >= 0.25  # it was refused first, then tried again
        finally:
            client.close()
            late.close()
        for _ in range(100):  # the relayed connection is gone before the store's close stops the server
            if all(c.get("name") for c in store._db.connection.client_list()):
                break
            time.sleep(0.05)
    finally:
        store.close()


def test_a_refused_connection_is_given_up_after_a_second(tmp_path):
    """Nobody ever listens: the refusal surfaces as an error after the retries, not never."""
    path = str(tmp_path / "dead.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    client = redis.Redis(unix_socket_path=path, **client_options(5.0))
    started = time.monotonic()
    with pytest.raises(redis.ConnectionError):
        client.ping()
    assert 0.9 <= time.monotonic() - started < 5.0
    listener.close()
