"""An acknowledged write survives kill -9 of the client and of the embedded server."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import psutil

from graphmem import Memory

CHILD = Path(__file__).with_name("durability_child.py")


def run_child_until(data_dir: Path, acks_wanted: int) -> tuple[subprocess.Popen, int, list[int]]:
    proc = subprocess.Popen([sys.executable, str(CHILD), str(data_dir)], stdout=subprocess.PIPE, text=True)
    server_pid, acked = None, []
    for line in proc.stdout:
        kind, value = line.split()
        if kind == "SERVER":
            server_pid = int(value)
        else:
            acked.append(int(value))
            if len(acked) >= acks_wanted:
                break
    assert server_pid, "child never reported its server"
    return proc, server_pid, acked


def servers_on(data_dir: Path) -> list[int]:
    pids = []
    for proc in psutil.process_iter(["name"]):
        try:
            if "redis-server" in (proc.info["name"] or "") and Path(proc.cwd()) == data_dir:
                pids.append(proc.pid)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return pids


def drain_acks(proc: subprocess.Popen, acked: list[int]) -> None:
    """Acks already written to the pipe before the kill count too."""
    rest = proc.stdout.read()
    acked.extend(int(line.split()[1]) for line in rest.splitlines() if line.startswith("ACK"))


def visited(mem: Memory) -> set[str]:
    return {f.object for f in mem.facts("u1")}


def test_acknowledged_writes_survive_kill_9_of_client_and_server(tmp_path, embedder):
    data_dir = (tmp_path / "gm").resolve()
    proc, server_pid, acked = run_child_until(data_dir, 25)
    os.kill(proc.pid, signal.SIGKILL)
    os.kill(server_pid, signal.SIGKILL)
    proc.wait(timeout=10)
    drain_acks(proc, acked)
    psutil.Process  # noqa: B018 - the server is gone:
    assert not psutil.pid_exists(server_pid) or psutil.Process(server_pid).status() == psutil.STATUS_ZOMBIE

    with Memory(data_dir=data_dir, embedder=embedder) as mem:
        assert mem.store.server_pid != server_pid
        got = visited(mem)
    missing = {f"city{i}" for i in acked} - got
    assert not missing, f"acknowledged but lost: {sorted(missing)}"
    assert len(acked) >= 25


def test_reopening_joins_the_orphaned_server_instead_of_starting_another(tmp_path, embedder):
    data_dir = (tmp_path / "gm").resolve()
    proc, server_pid, acked = run_child_until(data_dir, 5)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    drain_acks(proc, acked)
    assert psutil.pid_exists(server_pid), "the server should outlive its killed client"

    with Memory(data_dir=data_dir, embedder=embedder) as mem, Memory(data_dir=data_dir, embedder=embedder) as again:
        assert mem.store.server_pid == server_pid == again.store.server_pid
        assert servers_on(data_dir) == [server_pid]
        assert {f"city{i}" for i in acked} <= visited(mem)
        mem.add_fact("u1", "me", "visited", "after-crash", single_valued=False)
        assert "after-crash" in visited(again)
