"""Keys over HTTP: 401 without a valid key; a key for A can neither read B nor
learn whether B exists (403, byte-identical for an existing and a missing B)."""

from __future__ import annotations

import pytest

ROUTES = [
    ("POST", "/v1/users/{u}/sessions", {"turns": [{"role": "user", "content": "I live in Oslo."}],
                                         "session_time": "2024-01-01"}),
    ("POST", "/v1/users/{u}/search", {"query": "Where do I live?"}),
    ("GET", "/v1/users/{u}/facts", None),
    ("GET", "/v1/users/{u}/history?entity=user", None),
    ("GET", "/v1/users/{u}/timeline?entity=user", None),
    ("GET", "/v1/users/{u}/versions", None),
    ("GET", "/v1/users/{u}/turns", None),
    ("POST", "/v1/users/{u}/forget", {"selector": {"text": "Oslo"}, "dry_run": False}),
    ("POST", "/v1/users/{u}/purge", {}),
    ("POST", "/v1/users/{u}/restore", {"fact_uuid": "x"}),
    ("DELETE", "/v1/users/{u}?confirm=true", None),
]
IDS = [f"{method} {path.split('{u}')[1] or '/'}" for method, path, _ in ROUTES]


@pytest.fixture(scope="module")
def victim(live):
    """User `bob` with a memory, written by an admin key."""
    with live.client(live.key()) as admin:
        r = admin.post("/v1/users/bob/sessions", json={"turns": [{"role": "user", "content": "I live in Oslo."}],
                                                        "session_time": "2024-01-01"})
        assert r.status_code == 200
    return "bob"


def call(client, method: str, path: str, body, user: str):
    return client.request(method, path.format(u=user), json=body)


@pytest.mark.parametrize(("method", "path", "body"), ROUTES, ids=IDS)
def test_a_key_for_alice_gets_the_same_403_for_bob_and_for_a_user_that_does_not_exist(live, victim, method, path,
                                                                                         body):
    with live.client(live.key("alice")) as c:
        existing = call(c, method, path, body, victim)
        missing = call(c, method, path, body, "nobody")
        malformed = call(c, method, path, body, "not%20an%20id")
    assert existing.status_code == missing.status_code == malformed.status_code == 403
    assert existing.content == missing.content == malformed.content
    assert existing.headers["content-length"] == missing.headers["content-length"]
    # bob's memory is untouched by any of it
    assert [f.object for f in live.memory.facts(victim)] == ["Oslo"]


@pytest.mark.parametrize(("method", "path", "body"), ROUTES, ids=IDS)
def test_no_key_or_an_unknown_key_gets_401(live, victim, method, path, body):
    for headers in ({}, {"Authorization": "Bearer gm_not-a-key"}, {"Authorization": "Basic Ym9iOmJvYg=="}):
        with live.client() as c:
            r = c.request(method, path.format(u=victim), json=body, headers=headers)
        assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
        assert r.json()["error"] == "Unauthorized"
    with live.client() as c:
        assert c.get("/v1/users").status_code == 401


def test_a_key_for_alice_lists_only_alice(live, victim):
    with live.client(live.key("alice")) as c:
        assert c.get("/v1/users").json() == ["alice"]
    with live.client(live.key()) as admin:
        assert victim in admin.get("/v1/users").json()


def test_a_revoked_key_stops_working_at_the_next_request(live, victim):
    key, token = live.keys.create([victim])
    with live.client(token) as c:
        assert c.get(f"/v1/users/{victim}/facts").status_code == 200
        live.keys.revoke(key.id)
        assert c.get(f"/v1/users/{victim}/facts").status_code == 401


def test_a_key_made_by_another_key_store_on_the_same_dir_works_at_once(live, victim):
    """What `graphmem keys create` in another process (or another worker) does."""
    from graphmem.service.keys import KeyStore

    _, token = KeyStore(live.keys.path.parent).create([victim])
    with live.client(token) as c:
        assert c.get(f"/v1/users/{victim}/facts").json()[0]["object"] == "Oslo"
