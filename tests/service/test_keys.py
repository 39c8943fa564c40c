"""`KeyStore` and `graphmem keys`: keys stored hashed, scoped, revocable, from env too."""

from __future__ import annotations

import json
import stat

import pytest
from typer.testing import CliRunner

from graphmem.cli import app
from graphmem.schema.errors import ConfigError, InvalidInput, NotFound
from graphmem.service.keys import KeyStore, digest_of, parse_env_keys


def test_a_key_is_stored_only_as_its_digest_in_a_private_file(tmp_path):
    keys = KeyStore(tmp_path)
    key, token = keys.create(["alice"])
    text = keys.path.read_text()
    assert token not in text and digest_of(token) in text
    assert stat.S_IMODE(keys.path.stat().st_mode) == 0o600
    assert token.startswith("gm_") and len(token) > 40
    assert keys.authenticate(token) == key and key.covers("alice") and not key.covers("bob")


def test_unknown_empty_and_near_miss_tokens_do_not_authenticate(tmp_path):
    keys = KeyStore(tmp_path)
    _, token = keys.create(None)
    assert keys.authenticate(None) is None and keys.authenticate("") is None
    assert keys.authenticate(token[:-1]) is None and keys.authenticate(token + "x") is None
    assert keys.authenticate(digest_of(token)) is None  # the digest is not a key
    assert keys.authenticate(token).admin


def test_revoke_removes_one_key_and_an_unknown_id_is_not_found(tmp_path):
    keys = KeyStore(tmp_path)
    a, token_a = keys.create(["alice"])
    _, token_b = keys.create(["bob"])
    keys.revoke(a.id)
    assert keys.authenticate(token_a) is None and keys.authenticate(token_b) is not None
    assert [k.users for k in keys.list()] == [("bob",)]
    with pytest.raises(NotFound):
        keys.revoke(a.id)


def test_a_second_store_on_the_same_dir_sees_new_and_revoked_keys(tmp_path):
    """Two workers (or the CLI and a worker) each hold their own KeyStore."""
    worker, cli = KeyStore(tmp_path), KeyStore(tmp_path)
    assert worker.list() == []
    key, token = cli.create(["alice"])
    assert worker.authenticate(token) == key
    cli.revoke(key.id)
    assert worker.authenticate(token) is None


@pytest.mark.parametrize("users", [[], "alice", ["bad id"], ["a" * 129]])
def test_bad_scopes_are_refused(tmp_path, users):
    with pytest.raises(InvalidInput):
        KeyStore(tmp_path).create(users)
    assert not (tmp_path / "api_keys.json").exists()


def test_env_keys_take_the_token_or_its_digest(tmp_path):
    raw = "r" * 40
    hashed = "h" * 40
    keys = KeyStore(tmp_path, env_keys=f"{raw}=alice,bob; {digest_of(hashed)}=*")
    assert keys.authenticate(raw).users == ("alice", "bob")
    assert keys.authenticate(hashed).admin
    assert [k.source for k in keys.list()] == ["env", "env"]


@pytest.mark.parametrize("value", ["short=alice", "x" * 40, "=alice", "x" * 40 + "=", "x" * 40 + "=bad id"])
def test_malformed_env_keys_are_a_config_error(value):
    with pytest.raises(ConfigError):
        parse_env_keys(value)


def test_a_corrupt_key_file_is_a_config_error_not_an_open_door(tmp_path):
    (tmp_path / "api_keys.json").write_text("{not json")
    with pytest.raises(ConfigError):
        KeyStore(tmp_path).authenticate("gm_anything")


def test_the_cli_creates_lists_and_revokes_keys(tmp_path):
    runner = CliRunner()
    made = runner.invoke(app, ["keys", "create", "--users", "alice,bob", "--data-dir", str(tmp_path)])
    assert made.exit_code == 0, made.output
    token = made.output.strip().splitlines()[-1]
    key = KeyStore(tmp_path).authenticate(token)
    assert key.users == ("alice", "bob")
    listed = json.loads(runner.invoke(app, ["keys", "list", "--json", "--data-dir", str(tmp_path)]).output)
    assert [(k["id"], k["users"]) for k in listed] == [(key.id, ["alice", "bob"])]
    assert token not in runner.invoke(app, ["keys", "list", "--data-dir", str(tmp_path)]).output
    assert runner.invoke(app, ["keys", "revoke", key.id, "--data-dir", str(tmp_path)]).exit_code == 0
    assert KeyStore(tmp_path).authenticate(token) is None
    assert runner.invoke(app, ["keys", "revoke", key.id, "--data-dir", str(tmp_path)]).exit_code == 2


def test_the_cli_wants_exactly_one_of_users_and_admin(tmp_path):
    runner = CliRunner()
    for args in ([], ["--admin", "--users", "alice"], ["--users", " , "]):
        result = runner.invoke(app, ["keys", "create", *args, "--data-dir", str(tmp_path)])
        assert result.exit_code == 2
    admin = runner.invoke(app, ["keys", "create", "--admin", "--data-dir", str(tmp_path)])
    assert KeyStore(tmp_path).authenticate(admin.output.strip().splitlines()[-1]).admin
