"""The server registry a reopen trusts: a recorded server that refuses connections is
dying (a SIGKILL landed while it wrote), so the reopen waits for it to go and starts
its own, instead of joining it and failing with "Connection refused"."""

from __future__ import annotations

import json
import socket
import subprocess
import threading
import time

from graphmem.graph.embedded import clear_stale_registry


def registry(tmp_path, pid: int, sock: str):
    db = tmp_path / "graphmem.db"
    (tmp_path / "redis.pid").write_text(str(pid))
    (tmp_path / "graphmem.db.settings").write_text(json.dumps({"pidfile": str(tmp_path / "redis.pid"),
                                                               "unixsocket": sock}))
    return db


def bound_socket(path, listening: bool) -> socket.socket:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(str(path))
    if listening:
        s.listen(1)
    return s


def test_a_recorded_server_that_refuses_is_waited_for_and_forgotten(tmp_path):
    dying = subprocess.Popen(["sleep", "30"])
    sock = bound_socket(tmp_path / "redis.socket", listening=False)
    db = registry(tmp_path, dying.pid, sock.getsockname())
    threading.Timer(0.5, dying.kill).start()
    started = time.monotonic()
    try:
        assert clear_stale_registry(db) is True
    finally:
        dying.kill()
        dying.wait()
        sock.close()
    assert time.monotonic() - started >= 0.4  # it waited for the dying server rather than joining it
    assert not (tmp_path / "graphmem.db.settings").exists()


def test_a_recorded_server_that_listens_is_kept(tmp_path):
    live = subprocess.Popen(["sleep", "30"])
    sock = bound_socket(tmp_path / "redis.socket", listening=True)
    db = registry(tmp_path, live.pid, sock.getsockname())
    try:
        assert clear_stale_registry(db) is False
        assert (tmp_path / "graphmem.db.settings").exists()
    finally:
        live.kill()
        live.wait()
        sock.close()
