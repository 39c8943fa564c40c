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

TOOLS = {"add_memory", "search_memory", "list_facts", "fact_history", "forget", "list_users", "list_candidates",
         "confirm_candidate", "reject_candidate"}
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
    env = {k: v for k, v in os.environ.items() if k not in ("GRAPHMEM_MCP_KEY", "GRAPHMEM_FALKORDB_URL")}
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


def lives(facts: list[dict]) -> set[tuple[str, str]]:
    """(city, status) of each LIVES_IN fact."""
    return {(f["object"], f["status"]) for f in facts if f["predicate"] == "LIVES_IN"}


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
                selector = {"text": "Shanghai"}
                out["dry"] = payload(await s.call_tool("forget", {"user_id": "alice", "selector": selector}))
                out["kept"] = payload(await s.call_tool("list_facts", {"user_id": "alice"}))
                out["two"] = await s.call_tool("forget", {"user_id": "alice", "selector": {"text": "x", "entity": "y"}})
                out["done"] = payload(await s.call_tool("forget", {"user_id": "alice", "selector": selector,
                                                                   "confirm": True}))
                out["after"] = payload(await s.call_tool("list_facts", {"user_id": "alice"}))
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

    # forget: a dry run changes nothing; confirmed, it deletes and re-opens the older fact
    assert out["dry"]["dry_run"] is True and out["dry"]["facts_deleted"] >= 1 and out["dry"]["turn_ids"] == ["s2#0"]
    assert lives(out["kept"]) == {("Shanghai", "current")}
    assert out["two"].is_error and "exactly one" in out["two"].content[0].text
    assert out["done"]["dry_run"] is False and out["done"]["episodes_deleted"] == 1
    assert lives(out["after"]) == {("Beijing", "current")}

    assert "Traceback" not in errlog_path.read_text()
    assert wait_until_gone(data_dir) == []


def test_stdio_users_limit_the_scope_and_an_absent_user_reads_the_same(tmp_path, embedder):
    from graphmem import Memory

    data_dir = tmp_path / "gm"
    with Memory(data_dir=data_dir, embedder=embedder) as mem:  # written in-process: the server only reads
        for user in ("alice", "bob"):
            mem.write(user, BEIJING["turns"], BEIJING["session_time"], BEIJING["session_id"])
    assert wait_until_gone(data_dir) == []

    async def scenario() -> dict:
        async with stdio_session(data_dir, "--users", "bob") as s:
            return {"users": payload(await s.call_tool("list_users", {})),
                    "bob": payload(await s.call_tool("list_facts", {"user_id": "bob"})),
                    "alice": await s.call_tool("list_facts", {"user_id": "alice"}),
                    "alice_forget": await s.call_tool("forget", {"user_id": "alice", "selector": {"all": True},
                                                                 "confirm": True}),
                    "nobody": await s.call_tool("list_facts", {"user_id": "carol"})}

    out = anyio.run(scenario)
    assert out["users"] == ["bob"]
    assert lives(out["bob"]) == {("Beijing", "current")}
    refusal = out["alice"].content[0].text
    assert out["alice"].is_error and out["alice_forget"].is_error and "not covered" in refusal
    # a user that exists and one that does not get the same refusal: nothing leaks
    assert out["nobody"].content[0].text == refusal.replace("alice", "carol")
    assert wait_until_gone(data_dir) == []
    with Memory(data_dir=data_dir, embedder=embedder) as mem:
        assert lives([f.model_dump() for f in mem.facts("alice")]) == {("Beijing", "current")}
    assert wait_until_gone(data_dir) == []


def test_stdio_scope_from_a_key_in_the_environment(tmp_path, monkeypatch):
    from graphmem.cli_mcp import KEY_ENV, _stdio_scope
    from graphmem.service.keys import KeyStore

    data_dir = tmp_path / "gm"
    _, token = KeyStore(data_dir).create(["bob"])
    monkeypatch.setenv(KEY_ENV, token)
    scope = _stdio_scope(None, data_dir)
    assert scope.covers("bob") and not scope.covers("alice")
    assert _stdio_scope("alice", data_dir).covers("alice")  # --users wins over the key
    monkeypatch.delenv(KEY_ENV)
    assert _stdio_scope(None, data_dir).covers("anyone")  # neither: every user, as the CLI


@pytest.mark.parametrize("args, message", [
    (["--users", "not an id!"], "user id 'not an id!' is invalid"),
    (["--users", " , "], "--users names no user id"),
    (["--transport", "http", "--users", "alice"], "--users is for stdio"),
])
def test_bad_scope_options_exit_2_before_opening_the_store(tmp_path, args, message):
    command, prefix = graphmem_command()
    data_dir = tmp_path / "gm"
    done = subprocess.run([command, *prefix, "mcp", *args], env=server_env(data_dir), stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
    assert not data_dir.exists()


def test_a_key_that_is_not_in_the_data_dir_stops_a_stdio_server_at_start(tmp_path):
    command, prefix = graphmem_command()
    data_dir = tmp_path / "gm"
    env = server_env(data_dir) | {"GRAPHMEM_MCP_KEY": "gm_not-a-key"}
    done = subprocess.run([command, *prefix, "mcp"], env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "GRAPHMEM_MCP_KEY is not a key" in done.stderr


# -- streamable HTTP with API keys ------------------------------------------------------


def create_key(data_dir: Path, *scope: str) -> str:
    """`graphmem keys create ...`: the key is alone on the last line of stdout."""
    command, prefix = graphmem_command()
    done = subprocess.run([command, *prefix, "keys", "create", *scope], env=server_env(data_dir),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, timeout: float = 180.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"graphmem mcp exited with {proc.returncode}"
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    pytest.fail("graphmem mcp --transport http did not start listening")


def post_initialize(url: str, key: str | None) -> tuple[int, str]:
    """A raw MCP initialize request, with or without a bearer key."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "raw", "version": "0"}}}
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


@asynccontextmanager
async def http_session(url: str, key: str):
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    timeout = httpx2.Timeout(30.0, read=300.0)
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=timeout) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=300) as session:
                await session.initialize()
                yield session


@pytest.fixture
def http_server(tmp_path):
    """`graphmem mcp --transport http` on a free loopback port, keys for alice and bob
    and an admin key; stopped with SIGTERM, as a service manager would."""
    data_dir = tmp_path / "gm"
    keys = {"alice": create_key(data_dir, "--users", "alice"), "bob": create_key(data_dir, "--users", "bob"),
            "admin": create_key(data_dir, "--admin")}
    port = free_port()
    command, prefix = graphmem_command()
    errlog = (tmp_path / "server.stderr").open("w")
    proc = subprocess.Popen([command, *prefix, "mcp", "--transport", "http", "--port", str(port)],
                            env=server_env(data_dir), stdout=subprocess.DEVNULL, stderr=errlog)
    try:
        wait_for_port(port, proc)
        yield {"url": f"http://127.0.0.1:{port}/mcp", "keys": keys, "proc": proc, "data_dir": data_dir}
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)
        errlog.close()
    assert proc.returncode == 0, (tmp_path / "server.stderr").read_text()[-2000:]
    assert "Traceback" not in (tmp_path / "server.stderr").read_text()
    assert wait_until_gone(data_dir) == []


def test_http_refuses_requests_without_a_valid_key(http_server):
    for key in (None, "gm_not-a-key", ""):
        status, body = post_initialize(http_server["url"], key)
        assert status == 401, (key, status, body)
        assert json.loads(body)["error"] == "invalid_token" and "Traceback" not in body
    status, _ = post_initialize(http_server["url"], http_server["keys"]["alice"])
    assert status == 200


def test_http_a_key_for_alice_can_neither_read_nor_learn_of_bob(http_server):
    url, keys = http_server["url"], http_server["keys"]

    async def scenario() -> dict:
        out = {}
        async with http_session(url, keys["bob"]) as s:
            payload(await s.call_tool("add_memory", {"user_id": "bob", **BEIJING}))
        async with http_session(url, keys["alice"]) as s:
            out["tools"] = {t.name for t in (await s.list_tools()).tools}
            payload(await s.call_tool("add_memory", {"user_id": "alice", **BEIJING}))
            payload(await s.call_tool("add_memory", {"user_id": "alice", **SHANGHAI}))
            out["alice_search"] = await s.call_tool("search_memory", {
                "user_id": "alice", "query": "Where do I live?", "now": "2024-09-01"})
            out["alice_users"] = payload(await s.call_tool("list_users", {}))
            for tool, args in {"list_facts": {}, "search_memory": {"query": "Where do I live?"},
                               "fact_history": {"entity_or_fact": "user"},
                               "forget": {"selector": {"all": True}, "confirm": True},
                               "add_memory": SHANGHAI}.items():
                out[f"bob_{tool}"] = await s.call_tool(tool, {"user_id": "bob", **args})
            out["carol"] = await s.call_tool("list_facts", {"user_id": "carol"})
        async with http_session(url, keys["bob"]) as s:
            out["bob_facts"] = payload(await s.call_tool("list_facts", {"user_id": "bob"}))
            out["bob_users"] = payload(await s.call_tool("list_users", {}))
        async with http_session(url, keys["admin"]) as s:
            out["admin_users"] = payload(await s.call_tool("list_users", {}))
        return out

    out = anyio.run(scenario)
    assert out["tools"] == TOOLS
    assert "Shanghai" in out["alice_search"].content[0].text
    assert out["alice_users"] == ["alice"] and out["bob_users"] == ["bob"]
    assert out["admin_users"] == ["alice", "bob"]

    refusal = out["carol"].content[0].text
    assert out["carol"].is_error and "not covered" in refusal
    for tool in ("list_facts", "search_memory", "fact_history", "forget", "add_memory"):
        result = out[f"bob_{tool}"]
        assert result.is_error, tool
        # the same words as for a user that does not exist: bob's existence does not leak
        assert result.content[0].text.replace(tool, "T") == refusal.replace("list_facts", "T").replace("carol", "bob")
    # nothing alice's key tried reached bob's memory
    assert lives(out["bob_facts"]) == {("Beijing", "current")}
