"""`graphmem serve --workers 2` as people run it: a real subprocess, keys made and
revoked with the real `graphmem keys` while it runs, two workers on one data dir.

Requests on fresh connections are spread over the workers by the kernel, so
twenty of them reach both with near certainty; each must see the same keys and
the same memory. Run on the embedded store and on a FalkorDB server.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

GRAPHMEM = [str(Path(sys.executable).parent / "graphmem")]
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
TRIES = 20


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cli(*args: str) -> str:
    done = subprocess.run([*GRAPHMEM, *args], capture_output=True, text=True, env=ENV, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module", params=["embedded", "falkordb-server"])
def served(request, tmp_path_factory):
    """Two workers on one embedded data dir, or on one FalkorDB server (GRAPHMEM_FALKORDB_URL;
    the key file stays under the data dir)."""
    data_dir = tmp_path_factory.mktemp("serve") / "gm"
    env = dict(ENV)
    if request.param == "falkordb-server":
        env["GRAPHMEM_FALKORDB_URL"] = request.getfixturevalue("falkordb_server")
    port = free_port()
    proc = subprocess.Popen([*GRAPHMEM, "serve", "--port", str(port), "--workers", "2", "--data-dir", str(data_dir),
                             "--log-level", "warning"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300
        while True:
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            assert time.monotonic() < deadline, "graphmem serve did not become healthy"
            try:
                if httpx.get(url + "/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        yield url, data_dir
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)


def statuses(url: str, token: str, path: str) -> set[int]:
    """The status of `path` over TRIES fresh connections (so both workers answer)."""
    return {httpx.get(url + path, headers={"Authorization": f"Bearer {token}"}).status_code for _ in range(TRIES)}


def test_keys_made_and_revoked_while_serving_hold_in_every_worker(served):
    url, data_dir = served
    token = cli("keys", "create", "--users", "alice", "--data-dir", str(data_dir)).strip().splitlines()[-1]
    assert statuses(url, token, "/v1/users/alice/facts") == {200}
    assert statuses(url, token, "/v1/users/bob/facts") == {403}
    key_id = next(line.split()[0] for line in cli("keys", "list", "--data-dir", str(data_dir)).splitlines())
    cli("keys", "revoke", key_id, "--data-dir", str(data_dir))
    assert statuses(url, token, "/v1/users/alice/facts") == {401}


def test_every_worker_answers_with_what_any_worker_wrote(served):
    url, data_dir = served
    user = f"carol_{data_dir.parent.name}"  # the FalkorDB server is shared by the whole test run
    token = cli("keys", "create", "--admin", "--data-dir", str(data_dir)).strip().splitlines()[-1]
    auth = {"Authorization": f"Bearer {token}"}
    for n, (city, when) in enumerate([("Beijing", "2024-03-10"), ("Shanghai", "2024-07-10")]):
        body = {"turns": [{"role": "user", "content": f"I moved to {city}."}], "session_time": when,
                "session_id": f"s{n}"}
        assert httpx.post(f"{url}/v1/users/{user}/sessions", json=body, headers=auth, timeout=120).status_code == 200
    answers = {httpx.get(f"{url}/v1/users/{user}/facts", headers=auth).content for _ in range(TRIES)}
    assert len(answers) == 1
    homes = [f["object"] for f in httpx.get(f"{url}/v1/users/{user}/facts", headers=auth).json()
             if f["predicate"] == "LIVES_IN"]
    assert homes == ["Shanghai"]
    assert httpx.delete(f"{url}/v1/users/{user}", params={"confirm": True}, headers=auth, timeout=120).json() == {
        "dropped": True}
