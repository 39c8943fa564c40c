"""Small service bugs, each pinned: /restore of a fact that was never archived says
false; a key file that cannot be read is a 503 with a fixed message at request
time and a clear startup failure for `create_app` and `graphmem serve`."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from graphmem.config import Settings
from graphmem.schema.errors import ConfigError
from graphmem.service.app import create_app
from graphmem.service.deps import KEYS_UNREADABLE
from graphmem.service.keys import KeyStore


def test_restore_says_false_for_a_fact_that_was_never_archived(live):
    user = "fx_restore"
    live.memory.add_fact(user, "user", "lives_in", "Oslo", valid_at="2024-01-01")
    [fact] = live.memory.facts(user)
    with live.client(live.key(user)) as c:
        never = c.post(f"/v1/users/{user}/restore", json={"fact_uuid": fact.uuid})
        unknown = c.post(f"/v1/users/{user}/restore", json={"fact_uuid": "no-such-fact"})
    assert never.status_code == unknown.status_code == 200
    assert never.json() == unknown.json() == {"restored": False}
    # an archived one still comes back, once
    from graphmem.graph import cypher as q
    from graphmem.schema import time as t

    live.memory.store.run(user, q.set_archived([fact.uuid], t.now_utc()))
    with live.client(live.key(user)) as c:
        assert c.post(f"/v1/users/{user}/restore", json={"fact_uuid": fact.uuid}).json() == {"restored": True}
        assert c.post(f"/v1/users/{user}/restore", json={"fact_uuid": fact.uuid}).json() == {"restored": False}


def test_a_spoilt_key_file_is_a_503_without_the_reason_then_recovers(live):
    token = live.key("fx_keys")
    good = live.keys.path.read_bytes()
    try:
        live.keys.path.write_text('{"keys": [{"id": ')  # a half-written edit by hand
        with live.client(token) as c:
            r = c.get("/v1/users/fx_keys/facts")
        assert r.status_code == 503
        assert r.json() == {"error": "ServiceUnavailable", "detail": KEYS_UNREADABLE}
        assert str(live.keys.path) not in r.text
    finally:
        live.keys.path.write_bytes(good)
    with live.client(token) as c:
        assert c.get("/v1/users/fx_keys/facts").status_code == 200


@pytest.fixture
def spoilt_dir(tmp_path):
    d = tmp_path / "gm"
    d.mkdir()
    (d / "api_keys.json").write_text("not json")
    return d


def test_create_app_stops_on_a_key_file_it_cannot_read(spoilt_dir):
    with pytest.raises(ConfigError, match="api_keys.json cannot be read"):
        create_app(memory=object(), keys=KeyStore(spoilt_dir), settings=Settings(data_dir=spoilt_dir))


def test_serve_exits_2_with_the_reason_on_a_key_file_it_cannot_read(spoilt_dir, monkeypatch):
    from graphmem.cli import app

    monkeypatch.setenv("GRAPHMEM_DATA_DIR", str(spoilt_dir))  # serve sets it for its workers; undone after

    result = CliRunner().invoke(app, ["serve", "--data-dir", str(spoilt_dir)])
    assert result.exit_code == 2, result.output
    assert "api_keys.json cannot be read" in result.output and "Traceback" not in result.output


WARMED = """
import sys
from graphmem.config import Settings
from graphmem.ingest.rules.grammar import MADE
from graphmem.service.app import _open_memory
memory = _open_memory(Settings(data_dir=sys.argv[1]))
compiled = len(MADE) > 200 and all(t._compiled is not None for t in MADE)
print(memory.embedder._onnx_model is not None, "torch" not in sys.modules, compiled)
memory.close()
"""


def test_the_service_loads_at_start_up_what_the_library_loads_lazily(tmp_path):
    """The embedder's model and the rule patterns load on first need in the library, so a
    short-lived process skips them; a server loads them before its first request instead (the
    fp32 ONNX twin, never PyTorch)."""
    import os
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", WARMED, str(tmp_path / "gm")], capture_output=True, text=True,
                         check=True, env={**os.environ, "HF_HUB_OFFLINE": "1"}).stdout.split()
    assert out == ["True", "True", "True"], out


@pytest.mark.parametrize("command", [["serve"], ["mcp", "--transport", "http"]])
@pytest.mark.parametrize("port", ["0", "65536", "99999"])
def test_a_port_outside_1_65535_is_refused_before_anything_loads(tmp_path, command, port):
    """Once it loaded the model and the store, then died in bind() with a traceback, exit 1."""
    from graphmem.cli import app

    result = CliRunner().invoke(app, [*command, "--port", port, "--data-dir", str(tmp_path / "gm")])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and "--port" in result.output
    assert not (tmp_path / "gm").exists()
