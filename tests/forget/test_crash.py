"""A forget killed at any point (client, or client and server) is finished on the
next open: the audit line exists and no file under the data dir holds the name."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from graphmem import Memory
from graphmem.graph.cypher import Query

CHILD = Path(__file__).with_name("forget_child.py")
NAME = "Zebulon"
TURNS = 200


def scan(data_dir: Path) -> bytes:
    return b"".join(p.read_bytes() for p in data_dir.rglob("*") if p.is_file())


def name_hits(data_dir: Path) -> int:
    blob = scan(data_dir).lower()
    return blob.count(NAME.lower().encode())


def count(mem: Memory, user: str, needle: str) -> int:
    return sum(needle in e.content.lower() for e in mem.inspect().episodes(user))


def turn(i: int) -> str:
    """Mostly plain mentions; every tenth states facts, so entities and facts name him too."""
    if i % 10 == 0:
        return f"My friend {NAME} visited Lisbon{i} with me on trip {i}."
    return f"I chatted with {NAME} about the garden, note {i}."


@pytest.fixture(scope="module")
def template(tmp_path_factory, embedder) -> Path:
    """A closed data dir: user `big` with hundreds of turns naming Zebulon, user `other`."""
    data_dir = tmp_path_factory.mktemp("crash-template") / "gm"
    with Memory(data_dir=data_dir, embedder=embedder) as mem:
        for start in range(0, TURNS, 50):
            turns = [{"role": "user", "content": turn(i)} for i in range(start, start + 50)]
            mem.write("big", turns, f"2024-03-{1 + start // 50:02d}T09:00:00Z", session_id=f"s{start}")
        mem.write("big", [{"role": "user", "content": "My sister Quimby lives in Oslo."}], "2024-04-01", "keep")
        mem.write("other", [{"role": "user", "content": "My cat Marmalade sleeps all day."}], "2024-04-01", "o")
    assert name_hits(data_dir) >= TURNS
    return data_dir


def start_child(data_dir: Path, step: str, mode: str = "block") -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen([sys.executable, str(CHILD), str(data_dir), "big", NAME, step, mode],
                            stdout=subprocess.PIPE, text=True)
    server = int(proc.stdout.readline().split()[1])
    assert proc.stdout.readline().strip() == "START"
    return proc, server


def wait_for(proc: subprocess.Popen, line: str) -> None:
    for got in proc.stdout:
        if got.strip() == line:
            return
    pytest.fail(f"child ended before {line!r}")


def kill(proc: subprocess.Popen, server: int | None) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    if server is not None:
        os.kill(server, signal.SIGKILL)
    proc.wait(timeout=30)
    proc.stdout.close()


def audit_lines(data_dir: Path) -> list[dict]:
    path = data_dir / "forget_audit.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def copy_of(template: Path, tmp_path: Path) -> Path:
    data_dir = (tmp_path / "gm").resolve()
    shutil.copytree(template, data_dir)
    return data_dir


def assert_finished(data_dir: Path, embedder, *, by_recovery: bool | None = True) -> None:
    """Reopen (which finishes the forget), then check the graph, the audit and every file.

    `by_recovery`: whether the audit line must come from the recovery (None: either).
    """
    with Memory(data_dir=data_dir, embedder=embedder) as mem:
        assert len(mem.recovered_forgets) == 1 or by_recovery is None
        assert mem.pending_forgets() == []
        assert count(mem, "big", NAME.lower()) == 0
        assert count(mem, "big", "quimby") == 1 and count(mem, "other", "marmalade") == 1
        assert all(NAME not in f.fact for f in mem.facts("big"))
    [line] = audit_lines(data_dir)
    assert (line["selector"], line["episodes"]) == ("text", TURNS)
    assert by_recovery is None or line["recovered"] is by_recovery
    blob = scan(data_dir)
    assert name_hits(data_dir) == 0, blob[max(0, blob.lower().find(b"zebulon") - 100):][:200]
    assert b"Quimby" in blob and b"Marmalade" in blob, "the scan must see kept text"
    assert not list((data_dir / "forget_pending").glob("*.json"))


@pytest.mark.parametrize(
    "step, kill_server",
    [("intent", False), ("facts_deleted", True), ("compacting", True), ("compacted", False), ("audited", True)],
)
def test_a_forget_killed_at_a_step_is_finished_on_reopen(template, tmp_path, embedder, step, kill_server, caplog):
    data_dir = copy_of(template, tmp_path)
    proc, server = start_child(data_dir, step)
    wait_for(proc, f"AT {step}")
    if step == "intent":
        intent = b"".join(p.read_bytes() for p in (data_dir / "forget_pending").glob("*.json"))
        assert b'"facts"' in intent and NAME.lower().encode() not in intent.lower()
    kill(proc, server if kill_server else None)
    assert name_hits(data_dir) > 0 or step in ("compacted", "audited")
    assert_finished(data_dir, embedder, by_recovery=step != "audited")
    assert "finishing an interrupted forget" in caplog.text


def test_a_forget_still_running_elsewhere_is_reported_not_taken_over(template, tmp_path, embedder, caplog):
    data_dir = copy_of(template, tmp_path)
    proc, server = start_child(data_dir, "facts_deleted")
    wait_for(proc, "AT facts_deleted")
    with Memory(data_dir=data_dir, embedder=embedder) as mem:
        [pending] = mem.pending_forgets()
        assert mem.recovered_forgets == () and (pending.user_id, pending.selector) == ("big", "text")
    assert "still running in another process" in caplog.text
    kill(proc, server)
    assert_finished(data_dir, embedder)


@pytest.mark.parametrize("offset_ms", [30, 120, 400])
def test_a_forget_killed_at_a_moment_after_its_intent_is_finished(template, tmp_path, embedder, offset_ms):
    """Timed kills of client and server while deleting or compacting."""
    data_dir = copy_of(template, tmp_path)
    proc, server = start_child(data_dir, "intent", "pass")
    wait_for(proc, "AT intent")
    time.sleep(offset_ms / 1000)
    kill(proc, server)
    assert_finished(data_dir, embedder, by_recovery=None)


def test_a_forget_killed_before_its_intent_changed_nothing_or_everything(template, tmp_path, embedder):
    """A kill 60-120 ms in (the crash of issue 8): after reopen, all or nothing."""
    data_dir = copy_of(template, tmp_path)
    proc, server = start_child(data_dir, "none", "pass")
    time.sleep(0.09)
    kill(proc, server)
    with Memory(data_dir=data_dir, embedder=embedder) as mem:
        left = count(mem, "big", NAME.lower())
        assert mem.pending_forgets() == []
    if left:
        assert left == TURNS and not audit_lines(data_dir)
    else:
        assert [line["selector"] for line in audit_lines(data_dir)] == ["text"]
        assert name_hits(data_dir) == 0


def redis_processes_under(root: Path) -> list[psutil.Process]:
    """Live redis-server processes (servers or their rewrite children) working in `root`."""
    found = []
    for proc in psutil.process_iter(["name"]):
        try:
            if "redis" in (proc.info["name"] or "") and proc.status() != psutil.STATUS_ZOMBIE \
                    and Path(proc.cwd()).is_relative_to(root):
                found.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
    return found


def test_a_snapshot_left_by_a_server_killed_mid_rewrite_is_removed(tmp_path, embedder):
    """The rewrite child outlives its killed server and leaves a full temp copy of the data."""
    data_dir = (tmp_path / "gm").resolve()
    with Memory(data_dir=data_dir, embedder=embedder) as mem:
        mem.store.run("x", Query(f"UNWIND range(1, 200000) AS i CREATE (:N {{i: i, s: '{NAME} was here'}})", {}))
        mem.store.execute("BGREWRITEAOF")
        os.kill(mem.store.server_pid, signal.SIGKILL)
    psutil.wait_procs(redis_processes_under(data_dir), timeout=120)
    assert list(data_dir.glob("temp-*.aof")), "precondition: the orphaned rewrite left its file"
    with Memory(data_dir=data_dir, embedder=embedder) as mem:
        mem.add_fact("y", "user", "likes", "Quimby", single_valued=False)
        assert mem.drop_user("x")
    assert not list(data_dir.glob("temp-*")) and name_hits(data_dir) == 0
    assert b"Quimby" in scan(data_dir)


def test_no_server_survives(tmp_path_factory):
    """No server of this module's kill tests (their dirs are named after them) is left."""
    base = tmp_path_factory.getbasetemp()
    ours = [d for d in base.iterdir() if d.name.startswith(("test_a_forget_killed", "test_a_forget_still", "test_a_snapshot_left"))]
    assert ours, "the kill tests ran in this session"
    assert not [p for d in ours for p in redis_processes_under(d)]
