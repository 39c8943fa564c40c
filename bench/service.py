"""Service benchmark: N concurrent clients over loopback against `graphmem serve
--workers 2` (a real subprocess, embedded store on a temporary data dir).

Each client, for a bounded time, alternates: write a session "I moved to <city>."
to its own user, write one to a user shared by every client, and search each.
Every session has a distinct session time and explicit turn ids, so afterwards:

- lost writes: every session the service acknowledged (200) must have its turn
  in `GET /turns`;
- overlapping single-valued intervals: no two LIVES_IN versions of a user's
  history may share an instant (the shared user is the one that tests the
  cross-worker write lock: two workers write its slot concurrently);
- same answers: the shared user's facts read 10 times (spread over both
  workers by the kernel) must be byte-identical.

Prints requests per second, p50/p95 per kind and the error count. Set
GRAPHMEM_BENCH_SERVICE_SECONDS (default 30) and GRAPHMEM_BENCH_SERVICE_CLIENTS
(default 4) to change the load.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import combinations
from pathlib import Path

import httpx

from bench.common import header, percentiles_ms

CITIES = ["Beijing", "Shanghai", "Paris", "Berlin", "Madrid", "Rome", "Lisbon", "Vienna", "Prague", "Dublin",
          "Oslo", "Stockholm", "Helsinki", "Warsaw", "Athens", "Cairo", "Tokyo", "Seoul", "Lima", "Toronto"]
SHARED = "shared"
START = datetime(2020, 1, 1, tzinfo=UTC)
STARTUP_S = 300


@dataclass
class Tally:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: list[str] = field(default_factory=list)
    acked: list[tuple[str, str]] = field(default_factory=list)  # (user, turn id)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, kind: str, seconds: float, response: httpx.Response | None, error: str | None = None) -> bool:
        with self.lock:
            self.latencies[kind].append(seconds)
            if error or response is None or response.status_code != 200:
                self.errors.append(error or f"{kind}: {response.status_code} {response.text[:200]}")
                return False
        return True


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(data_dir: Path, port: int, workers: int) -> subprocess.Popen:
    script = Path(sys.executable).parent / "graphmem"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "graphmem.cli"]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    proc = subprocess.Popen([*command, "serve", "--port", str(port), "--workers", str(workers),
                             "--data-dir", str(data_dir), "--log-level", "warning"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"graphmem serve exited {proc.returncode}: {proc.stderr.read().decode()[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    stop_server(proc)
    raise RuntimeError("graphmem serve did not become healthy")


def stop_server(proc: subprocess.Popen) -> None:
    """SIGTERM to uvicorn's parent; it stops its workers, whose Memory close stops the store."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)


def session(client_id: int, n: int) -> tuple[dict, str]:
    """A one-turn move, its time unique across clients (client i writes day n*100+i)."""
    city = CITIES[(client_id * 7 + n) % len(CITIES)]
    turn_id = f"c{client_id}-{n}"
    when = START + timedelta(days=n * 100 + client_id)
    body = {"turns": [{"role": "user", "content": f"I moved to {city}.", "id": turn_id}],
            "session_time": when.isoformat(), "session_id": f"s-{turn_id}"}
    return body, turn_id


def timed_call(tally: Tally, kind: str, send) -> httpx.Response | None:
    start = time.perf_counter()
    try:
        response = send()
    except httpx.HTTPError as exc:
        tally.record(kind, time.perf_counter() - start, None, f"{kind}: {type(exc).__name__} {exc}")
        return None
    return response if tally.record(kind, time.perf_counter() - start, response) else None


def client_loop(url: str, token: str, client_id: int, stop_at: float, tally: Tally) -> None:
    own = f"client{client_id}"
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=300) as http:
        n = 0
        while time.perf_counter() < stop_at:
            for user, salt in ((own, 0), (SHARED, 1)):
                body, turn_id = session(client_id, 2 * n + salt)
                if timed_call(tally, "write", lambda: http.post(f"/v1/users/{user}/sessions", json=body)):
                    with tally.lock:
                        tally.acked.append((user, turn_id))
                timed_call(tally, "search", lambda: http.post(f"/v1/users/{user}/search",
                                                              json={"query": "Where do I live?", "limit": 5}))
            n += 1


def overlaps(intervals: list[tuple[str | None, str | None]]) -> int:
    """Pairs of non-empty [start, end) intervals sharing an instant (None = open end)."""
    far = "9999"
    spans = [(s or "", e or far) for s, e in intervals if (s or "") < (e or far)]
    return sum(1 for a, b in combinations(spans, 2) if a[0] < b[1] and b[0] < a[1])


def check(http: httpx.Client, tally: Tally) -> dict[str, int]:
    by_user: dict[str, set[str]] = defaultdict(set)
    for user, turn_id in tally.acked:
        by_user[user].add(turn_id)
    lost = overlapping = shared_versions = 0
    for user, wanted in by_user.items():
        stored = {t["turn_id"] for t in http.get(f"/v1/users/{user}/turns").json()}
        lost += len(wanted - stored)
        versions = http.get(f"/v1/users/{user}/history", params={"entity": "user"}).json()["versions"]
        # ISO strings with one zone (UTC, as the service returns them) order as times do
        homes = [(v["valid_at"], v["invalid_at"]) for v in versions if v["predicate"] == "LIVES_IN"]
        overlapping += overlaps(homes)
        shared_versions = len(homes) if user == SHARED else shared_versions
    answers = {http.get(f"/v1/users/{SHARED}/facts").content for _ in range(10)}
    return {"lost": lost, "overlaps": overlapping, "shared_versions": shared_versions, "distinct_answers": len(answers)}


def run(seconds: float | None = None, clients: int | None = None, workers: int = 2) -> dict[str, float]:
    seconds = seconds or float(os.environ.get("GRAPHMEM_BENCH_SERVICE_SECONDS", 30))
    clients = clients or int(os.environ.get("GRAPHMEM_BENCH_SERVICE_CLIENTS", 4))
    header(f"service: {clients} clients for {seconds:.0f} s against graphmem serve --workers {workers} (loopback)")
    from graphmem.service.keys import KeyStore

    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp) / "gm"
        _, token = KeyStore(data_dir).create(None)
        port = free_port()
        started = time.perf_counter()
        proc = start_server(data_dir, port, workers)
        print(f"  server healthy after {time.perf_counter() - started:.1f} s (workers load MiniLM)")
        url = f"http://127.0.0.1:{port}"
        try:
            tally = Tally()
            stop_at = time.perf_counter() + seconds
            threads = [threading.Thread(target=client_loop, args=(url, token, i, stop_at, tally))
                       for i in range(clients)]
            begin = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            elapsed = time.perf_counter() - begin
            with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=300) as http:
                verdict = check(http, tally)
        finally:
            stop_server(proc)
    total = sum(len(v) for v in tally.latencies.values())
    out = {"requests": total, "rps": total / elapsed, "errors": len(tally.errors), **verdict}
    print(f"  {total} requests in {elapsed:.1f} s: {out['rps']:.1f} req/s, {len(tally.errors)} errors")
    for kind, samples in sorted(tally.latencies.items()):
        p50, p95 = percentiles_ms(samples)
        out[f"{kind}_p50_ms"], out[f"{kind}_p95_ms"] = p50, p95
        print(f"  {kind:7} n={len(samples):5}  p50 {p50:8.1f} ms  p95 {p95:8.1f} ms")
    print(f"  acknowledged sessions {len(tally.acked)}; lost {verdict['lost']}; overlapping LIVES_IN intervals "
          f"{verdict['overlaps']} (shared user: {verdict['shared_versions']} LIVES_IN versions); "
          f"distinct answers to 10 identical facts reads {verdict['distinct_answers']}")
    for error in tally.errors[:5]:
        print(f"  error: {error}")
    return out
