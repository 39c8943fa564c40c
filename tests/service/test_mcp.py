"""`graphmem mcp` as an agent meets it: a real subprocess driven by the `mcp`
client, over stdio and over streamable HTTP with API keys.

Every server is started on a tmp data dir and stopped through the transport (the
client closes stdin; SIGTERM for HTTP); each test then checks that the embedded
redis-server the server started is gone too.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import psutil
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

TOOLS = {"add_memory", "search_memory", "list_facts", "fact_history", "forget", "list_users"}
BEIJING = {"session_id": "s1", "session_time": "2024-03-10T09:00:00Z",
           "turns": [{"role": "user", "content": "I live in Beijing."}]}
SHANGHAI = {"session_id": "s2", "session_time": "2024-07-10T09:00:00Z",
            "turns": [{"role": "user", "content": "I moved to Shanghai last month."}]}


def graphmem_command() -> tuple[str, list[str]]:
    """The venv's `graphmem` script, as an agent's config names it (else `python -m`)."""
    script = Path(sys.executable).with_name("graphmem")
    if script.exists():
        return str(script), []
    return sys.executable, ["-m", "graphmem.cli"]


def server_env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("GRAPHMEM_API_KEY", "GRAPHMEM_FALKORDB_URL")}
    return env | {"GRAPHMEM_DATA_DIR": str(data_dir), "HF_HUB_OFFLINE": "1"}


def redis_servers_under(path: Path) -> list[int]:
    """Live redis-server processes whose working dir is under `path` (the embedded ones)."""
    found = []
    for proc in psutil.process_iter(["name", "status"]):
        try:
            if "redis-server" in (proc.info["name"] or "") and proc.info["status"] != psutil.STATUS_ZOMBIE \
                    and Path(proc.cwd()).resolve().is_relative_to(path.resolve()):
                found.append(proc.pid)
        except psutil.Error:
            continue
    return found


def wait_until_gone(path: Path, timeout: float = 20.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while (left := redis_servers_under(path)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


def payload(result) -> object:
    """A tool result's structured content (a list or model result is wrapped as "result")."""
    assert not result.is_error, result.content[0].text
    data = result.structured_content
    return data["result"] if set(data) == {"result"} else data


@asynccontextmanager
async def stdio_session(data_dir: Path, *args: str, errlog=None):
    command, prefix = graphmem_command()
    params = StdioServerParameters(command=command, args=[*prefix, "mcp", *args], env=server_env(data_dir))
    async with stdio_client(params, errlog=errlog or sys.stderr) as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=300) as session:
            await session.initialize()
            yield session


def test_stdio_lists_the_tools_writes_searches_and_keeps_the_older_fact(tmp_path):
    data_dir = tmp_path / "gm"
    errlog_path = tmp_path / "server.stderr"

    async def scenario() -> dict:
        with errlog_path.open("w") as errlog:
            async with stdio_session(data_dir, errlog=errlog) as s:
                tools = {t.name: t for t in (await s.list_tools()).tools}
                out = {"tools": tools}
                out["w1"] = payload(await s.call_tool("add_memory", {"user_id": "alice", **BEIJING}))
                out["w2"] = payload(await s.call_tool("add_memory", {"user_id": "alice", **SHANGHAI}))
                out["search"] = await s.call_tool("search_memory", {
                    "user_id": "alice", "query": "Where do I live?", "now": "2024-09-01"})
                out["before"] = await s.call_tool("search_memory", {
                    "user_id": "alice", "query": "Where did I live before?", "now": "2024-09-01"})
                out["now"] = payload(await s.call_tool("list_facts", {"user_id": "alice"}))
                out["then"] = payload(await s.call_tool("list_facts", {"user_id": "alice", "valid_at": "2024-04-15"}))
                out["unknown"] = payload(await s.call_tool("list_facts", {"user_id": "alice", "known_at": "2020-01-01"}))
                out["history"] = payload(await s.call_tool("fact_history", {"user_id": "alice", "entity_or_fact": "user"}))
                out["users"] = payload(await s.call_tool("list_users", {}))
                out["bad_user"] = await s.call_tool("search_memory", {"user_id": "no such user!", "query": "x"})
                out["bad_time"] = await s.call_tool("list_facts", {"user_id": "alice", "valid_at": "yesterday-ish"})
                out["missing"] = await s.call_tool("fact_history", {"user_id": "alice", "entity_or_fact": "Atlantis"})
                return out

    out = anyio.run(scenario)

    assert set(out["tools"]) == TOOLS
    assert all(len(t.description) > 80 for t in out["tools"].values())
    forget_schema = out["tools"]["forget"].input_schema
    assert forget_schema["properties"]["confirm"]["default"] is False
    assert out["tools"]["forget"].annotations.destructive_hint is True
    assert out["tools"]["search_memory"].annotations.read_only_hint is True
    assert "permanent" in out["tools"]["forget"].description.lower()
    assert "known time" in out["tools"]["search_memory"].input_schema["properties"]["known_at"]["description"]

    assert out["w1"]["episodes"] == 1 and out["w1"]["facts_added"] >= 1
    assert out["w2"]["facts_superseded"] >= 1

    search = out["search"]
    assert not search.is_error
    text = search.content[0].text
    assert "Shanghai" in text and text == search.structured_content["prompt"]
    assert search.structured_content["facts"][0]["object"] == "Shanghai"
    assert "Beijing" in out["before"].content[0].text

    lives = lambda facts: {(f["object"], f["status"]) for f in facts if f["predicate"] == "LIVES_IN"}  # noqa: E731
    assert lives(out["now"]) == {("Shanghai", "current")}
    assert lives(out["then"]) == {("Beijing", "superseded")}
    assert out["unknown"] == []
    versions = [v["object"] for v in out["history"]["versions"] if v["predicate"] == "LIVES_IN"]
    assert versions == ["Beijing", "Shanghai"]
    assert out["users"] == ["alice"]

    for name in ("bad_user", "bad_time", "missing"):
        result = out[name]
        assert result.is_error, name
        assert "Traceback" not in result.content[0].text and 'File "' not in result.content[0].text
    assert "user id 'no such user!' is invalid" in out["bad_user"].content[0].text
    assert "valid_at" in out["bad_time"].content[0].text
    assert "Traceback" not in errlog_path.read_text()
    assert wait_until_gone(data_dir) == []


def test_stdio_forget_is_a_dry_run_until_confirmed_and_users_limit_the_scope(tmp_path):
    data_dir = tmp_path / "gm"

    async def scenario() -> dict:
        out = {}
        async with stdio_session(data_dir) as s:
            await s.call_tool("add_memory", {"user_id": "alice", **BEIJING})
            await s.call_tool("add_memory", {"user_id": "alice", **SHANGHAI})
            await s.call_tool("add_memory", {"user_id": "bob", **BEIJING})
            selector = {"text": "Shanghai"}
            out["dry"] = payload(await s.call_tool("forget", {"user_id": "alice", "selector": selector}))
            out["kept"] = payload(await s.call_tool("list_facts", {"user_id": "alice"}))
            out["two"] = await s.call_tool("forget", {"user_id": "alice", "selector": {"text": "x", "entity": "y"}})
            out["done"] = payload(await s.call_tool("forget", {"user_id": "alice", "selector": selector,
                                                               "confirm": True}))
            out["after"] = payload(await s.call_tool("list_facts", {"user_id": "alice"}))
        assert wait_until_gone(data_dir) == []
        async with stdio_session(data_dir, "--users", "bob") as s:
            out["scoped_users"] = payload(await s.call_tool("list_users", {}))
            out["bob"] = payload(await s.call_tool("list_facts", {"user_id": "bob"}))
            out["alice"] = await s.call_tool("list_facts", {"user_id": "alice"})
            out["nobody"] = await s.call_tool("list_facts", {"user_id": "carol"})
        return out

    out = anyio.run(scenario)
    lives = lambda facts: {(f["object"], f["status"]) for f in facts if f["predicate"] == "LIVES_IN"}  # noqa: E731

    assert out["dry"]["dry_run"] is True and out["dry"]["facts_deleted"] >= 1 and out["dry"]["turn_ids"] == ["s2#0"]
    assert lives(out["kept"]) == {("Shanghai", "current")}
    assert out["two"].is_error and "exactly one" in out["two"].content[0].text
    assert out["done"]["dry_run"] is False and out["done"]["episodes_deleted"] == 1
    assert lives(out["after"]) == {("Beijing", "current")}  # the superseded fact is re-opened

    assert out["scoped_users"] == ["bob"]
    assert lives(out["bob"]) == {("Beijing", "current")}
    refusal = out["alice"].content[0].text
    assert out["alice"].is_error and "not covered" in refusal
    # a user that exists and one that does not get the same refusal: nothing leaks
    assert out["nobody"].content[0].text == refusal.replace("alice", "carol")
    assert wait_until_gone(data_dir) == []
