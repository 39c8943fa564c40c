"""The service on a real loopback port: uvicorn in a thread, a real Memory (embedded
FalkorDB on a tmp dir, the real MiniLM), real keys in that dir's key file.

One server per test module (starting the store and the app costs seconds on this
machine); tests keep apart by using their own user ids.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest
import uvicorn

from graphmem import Memory
from graphmem.service.app import create_app
from graphmem.service.keys import KeyStore


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Live:
    """A running service: its base URL, its Memory and key store, and helpers."""

    url: str
    memory: Memory
    keys: KeyStore

    def client(self, token: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=120)

    def key(self, *users: str) -> str:
        """A new key for `users` (none: admin), as `graphmem keys create` makes it."""
        return self.keys.create(list(users) if users else None)[1]


@pytest.fixture(scope="module")
def live(tmp_path_factory, embedder) -> Iterator[Live]:
    data_dir = tmp_path_factory.mktemp("service") / "gm"
    memory = Memory(data_dir=data_dir, embedder=embedder)
    keys = KeyStore(data_dir)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(memory, keys), host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True, name="uvicorn")
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            memory.close()
            pytest.fail("uvicorn did not start")
        time.sleep(0.05)
    try:
        yield Live(url=f"http://127.0.0.1:{port}", memory=memory, keys=keys)
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        memory.close()
