"""`graphmem mcp --transport http` honours keys limited to scopes the way the HTTP
API does: a real server subprocess, keys made by `graphmem keys create --scopes`,
the `mcp` client over streamable HTTP."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
from mcp.client.session import ClientSession

USER = "alice"
PROJECT = {"session_id": "p1", "session_time": "2024-03-10T09:00:00Z", "scope": "project:apollo",
           "turns": [{"role": "user", "content": "I live in Zapburg."}]}
MINE = {"session_id": "u1", "session_time": "2024-03-11T09:00:00Z",
        "turns": [{"role": "user", "content": "I live in Quxford."}]}


def graphmem(data_dir: Path, *args: str, **kw) -> subprocess.CompletedProcess:
    script = Path(sys.executable).with_name("graphmem")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "graphmem.cli"]
    env = {k: v for k, v in os.environ.items() if k not in ("GRAPHMEM_MCP_KEY", "GRAPHMEM_FALKORDB_URL")}
    env |= {"GRAPHMEM_DATA_DIR": str(data_dir), "HF_HUB_OFFLINE": "1"}
    if kw.pop("background", False):
        return subprocess.Popen([*command, *args], env=env, stdout=subprocess.DEVNULL, stderr=kw["stderr"])
    return subprocess.run([*command, *args], env=env, capture_output=True, text=True, timeout=120)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@asynccontextmanager
async def session(url: str, key: str):
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"},
                                  timeout=httpx2.Timeout(30.0, read=300.0)) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=300) as s:
                await s.initialize()
                yield s


def made_key(data_dir: Path, *args: str) -> str:
    done = graphmem(data_dir, "keys", "create", *args)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def test_mcp_over_http_reads_and_writes_only_the_scopes_of_its_key(tmp_path):
    data_dir = tmp_path / "gm"
    admin = made_key(data_dir, "--users", USER)
    scoped = made_key(data_dir, "--users", USER, "--scopes", "project:apollo")
    listed = graphmem(data_dir, "keys", "list")
    assert "scopes project:apollo" in listed.stdout
    port = free_port()
    errlog = (tmp_path / "server.stderr").open("w")
    proc = graphmem(data_dir, "mcp", "--transport", "http", "--port", str(port), background=True, stderr=errlog)
    url = f"http://127.0.0.1:{port}/mcp"

    async def scenario() -> dict:
        out = {}
        async with session(url, admin) as s:
            assert not (await s.call_tool("add_memory", {"user_id": USER, **PROJECT})).is_error
            assert not (await s.call_tool("add_memory", {"user_id": USER, **MINE})).is_error
        async with session(url, scoped) as s:
            out["search"] = await s.call_tool("search_memory", {"user_id": USER, "query": "Where do I live?",
                                                                "now": "2024-09-01"})
            out["facts"] = await s.call_tool("list_facts", {"user_id": USER})
            out["history"] = await s.call_tool("fact_history", {"user_id": USER, "entity_or_fact": "user"})
            out["ask_user"] = await s.call_tool("search_memory", {"user_id": USER, "query": "Where do I live?",
                                                                  "scopes": ["user"]})
            out["write_user"] = await s.call_tool("add_memory", {"user_id": USER, **MINE, "session_id": "u2"})
            out["write_own"] = await s.call_tool("add_memory", {"user_id": USER, **PROJECT, "session_id": "p2"})
            out["forget"] = await s.call_tool("forget", {"user_id": USER, "selector": {"text": "Quxford"}})
        async with session(url, admin) as s:
            out["admin_facts"] = await s.call_tool("list_facts", {"user_id": USER})
        return out

    try:
        deadline = time.monotonic() + 180
        while True:
            assert proc.poll() is None, (tmp_path / "server.stderr").read_text()[-2000:]
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert time.monotonic() < deadline, "the MCP server did not start"
            time.sleep(0.2)
        out = anyio.run(scenario)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)
        errlog.close()

    for name in ("search", "facts", "history"):
        result = out[name]
        assert not result.is_error, result.content[0].text
        text = str(result.structured_content)
        assert "Zapburg" in text and "Quxford" not in text, (name, text)
    for name, words in (("ask_user", "may read only the scopes project:apollo"),
                        ("write_user", "may write only the scopes project:apollo"),
                        ("forget", "acts on every scope")):
        assert out[name].is_error and words in out[name].content[0].text, (name, out[name].content[0].text)
    assert not out["write_own"].is_error
    everything = out["admin_facts"].structured_content["result"]
    assert {(f["object"], f["scope"]) for f in everything if f["predicate"] == "LIVES_IN"} == {
        ("Zapburg", "project:apollo"), ("Quxford", "user")}
    assert proc.returncode == 0 and "Traceback" not in (tmp_path / "server.stderr").read_text()
