"""No embedded server outlives its last client, and closing loses nothing.

Real processes throughout: the children below open the store in their own
interpreter, so falkordblite's registry, the file lock and `atexit` all run as
they do for a user.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import redis

from graphmem import Memory
from graphmem.graph.embedded import DB_FILENAME, foreign_connections
from graphmem.graph.cypher import Query
from graphmem.graph.store import Store

ROOT = Path(__file__).resolve().parents[2]

TWO_THREADS_NO_CLOSE = """
import sys, threading
from pathlib import Path
from graphmem.graph.cypher import Query
from graphmem.graph.store import Store

store = Store.open(data_dir=Path(sys.argv[1]))
def work(k):
    for i in range(40):
        store.run("u", Query("CREATE (:T {k: $k, i: $i})", {"k": k, "i": i}))
threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(store.server_pid, len(store._db.client.client_list()), flush=True)
"""

WRITER = """
import sys
from pathlib import Path
from graphmem.graph.cypher import Query
from graphmem.graph.store import Store

store = Store.open(data_dir=Path(sys.argv[1]))
def write(i):
    store.run("u", Query("CREATE (:W {i: $i})", {"i": i}))
write(0)
print("READY", store.server_pid, flush=True)
i = 1
for command in sys.stdin:
    if command.strip() == "close":
        break
    for _ in range(int(command)):
        write(i)
        i += 1
    count = store.run("u", Query("MATCH (w:W) RETURN count(w) AS n", {}))[0]["n"]
    print("WROTE", i, count, flush=True)
store.close()
print("CLOSED", flush=True)
"""


def alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        return psutil.Process(pid).status() not in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)
    except psutil.Error:
        return False


def servers_on(data_dir: Path) -> list[int]:
    """Live redis-servers whose working directory or command line names `data_dir`."""
    found = []
    for proc in psutil.process_iter(["name", "cmdline"]):
        try:
            if "redis-server" not in (proc.info["name"] or "") or not alive(proc.pid):
                continue
            if Path(proc.cwd()) == data_dir or str(data_dir) in " ".join(proc.info["cmdline"] or []):
                found.append(proc.pid)
        except psutil.Error:
            continue
    return found


def child(code: str, data_dir: Path, **kwargs) -> subprocess.Popen:
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    return subprocess.Popen(
        [sys.executable, "-c", code, str(data_dir)], cwd=ROOT, env=env, text=True, stdout=subprocess.PIPE, **kwargs
    )


def count(store: Store, label: str) -> int:
    return store.run("u", Query(f"MATCH (n:{label}) RETURN count(n) AS n", {}))[0]["n"]


def test_only_connections_named_ours_are_ours():
    clients = [{"name": "graphmem-1-a"}, {"name": "graphmem-1-a"}]
    assert foreign_connections(clients, "graphmem-1-a") == 0
    assert foreign_connections(clients + [{"name": ""}], "graphmem-1-a") == 1
    assert foreign_connections(clients + [{"name": "graphmem-2-b"}], "graphmem-1-a") == 1


def test_close_stops_the_server_and_clears_its_traces(tmp_path):
    data_dir = (tmp_path / "gm").resolve()
    store = Store.open(data_dir=data_dir)
    pid, socket_file = store.server_pid, store.url.removeprefix("unix://")
    assert alive(pid)
    store.close()
    store.close()
    assert not alive(pid)
    assert servers_on(data_dir) == []
    assert not (data_dir / f"{DB_FILENAME}.settings").exists()
    assert not Path(socket_file).parent.exists()


def test_everything_written_is_back_after_close_and_reopen(tmp_path, embedder):
    data_dir = (tmp_path / "gm").resolve()
    turns = [{"role": "user", "content": "I live in Lisbon and I have a cat named Miso."}]
    with Memory(data_dir=data_dir, embedder=embedder) as mem:
        first_pid = mem.store.server_pid
        mem.write("u1", turns, "2024-03-10", session_id="s1")
        for i in range(10):
            mem.add_fact("u1", "me", "visited", f"city{i}", single_valued=False)
        before = sorted((f.subject, f.predicate, f.object) for f in mem.facts("u1"))
    assert not alive(first_pid)
    with Memory(data_dir=data_dir, embedder=embedder) as mem:
        assert mem.store.server_pid != first_pid
        after = sorted((f.subject, f.predicate, f.object) for f in mem.facts("u1"))
        again = mem.write("u1", turns, "2024-03-10", session_id="s1")
    assert after == before
    assert {f"city{i}" for i in range(10)} <= {o for _, _, o in after}
    assert again.episodes == 0, "the session's turns were lost, so they were written again"


def test_process_writing_from_two_threads_leaves_no_server_behind(tmp_path):
    data_dir = (tmp_path / "gm").resolve()
    proc = child(TWO_THREADS_NO_CLOSE, data_dir)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0
    pid, connections = (int(x) for x in out.split())
    assert connections >= 2, "the child should have used two connections"
    assert not alive(pid)
    assert servers_on(data_dir) == []


def test_first_process_closing_does_not_stop_a_server_the_second_still_uses(tmp_path):
    data_dir = (tmp_path / "gm").resolve()
    first = Store.open(data_dir=data_dir)
    first.run("u", Query("CREATE (:W {i: -1})", {}))
    second = child(WRITER, data_dir, stdin=subprocess.PIPE)
    try:
        ready, server = second.stdout.readline().split()
        assert ready == "READY" and int(server) == first.server_pid
        first.close()
        assert alive(int(server)), "closing the first client stopped a server still in use"
        second.stdin.write("25\n")
        second.stdin.flush()
        assert second.stdout.readline().split() == ["WROTE", "26", "27"]
        second.stdin.write("close\n")
        second.stdin.flush()
        assert second.stdout.readline().strip() == "CLOSED"
        assert second.wait(timeout=60) == 0
    finally:
        second.kill()
        second.wait(timeout=10)
    assert not alive(int(server)), "the last client to close must stop the server"
    assert servers_on(data_dir) == []


def test_a_foreign_connection_keeps_the_server_up(tmp_path):
    data_dir = (tmp_path / "gm").resolve()
    store = Store.open(data_dir=data_dir)
    pid = store.server_pid
    other = redis.Redis.from_url(store.url)
    other.ping()
    store.close()
    try:
        assert alive(pid) and other.ping()
    finally:
        other.close()
    Store.open(data_dir=data_dir).close()
    assert not alive(pid)


def test_server_orphaned_by_a_killed_client_is_stopped_by_the_next_closer(tmp_path):
    data_dir = (tmp_path / "gm").resolve()
    writer = child(WRITER, data_dir, stdin=subprocess.PIPE)
    _, server = writer.stdout.readline().split()
    writer.send_signal(signal.SIGKILL)
    writer.wait(timeout=10)
    assert alive(int(server)), "the server should outlive its killed client"
    store = Store.open(data_dir=data_dir)
    assert store.server_pid == int(server)
    assert count(store, "W") == 1
    store.close()
    assert not alive(int(server))
    assert servers_on(data_dir) == []


def test_two_clients_in_one_process_share_the_server_until_the_last_closes(tmp_path):
    data_dir = (tmp_path / "gm").resolve()
    first, second = Store.open(data_dir=data_dir), Store.open(data_dir=data_dir)
    pid = first.server_pid
    assert second.server_pid == pid
    first.close()
    assert alive(pid)
    second.run("u", Query("CREATE (:W {i: 1})", {}))
    assert count(second, "W") == 1
    second.close()
    assert not alive(pid)
