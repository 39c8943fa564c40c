"""Bad requests get a 4xx JSON body with a message, never a 500 or a trace,
and store nothing."""

from __future__ import annotations

import pytest

GOOD_TURNS = [{"role": "user", "content": "I live in Lima."}]


@pytest.fixture(scope="module")
def admin(live):
    with live.client(live.key()) as c:
        yield c


@pytest.mark.parametrize(("path", "body", "needle"), [
    ("sessions", {"session_time": "2024-01-01"}, "turns"),
    ("sessions", {"turns": "I live in Lima.", "session_time": "2024-01-01"}, "turns"),
    ("sessions", {"turns": [], "session_time": "2024-01-01"}, "turns"),
    ("sessions", {"turns": GOOD_TURNS, "session_time": "yesterday-ish"}, "session_time"),
    ("sessions", {"turns": GOOD_TURNS, "session_time": "0001-01-01"}, "year"),
    ("sessions", {"turns": [{"role": "wizard", "content": "hi"}], "session_time": "2024-01-01"}, "role"),
    ("sessions", {"turns": [{"content": "hi"}], "session_time": "2024-01-01"}, "speaker"),
    ("sessions", {"turns": GOOD_TURNS, "session_time": "2024-01-01", "extra": 1}, "extra"),
    ("search", {"query": ""}, "query"),
    ("search", {"query": "where?", "limit": 0}, "limit"),
    ("search", {"query": "where?", "now": "soon"}, "now"),
    ("search", {"query": "where?", "recipe": "no-such-recipe"}, "recipe"),
    ("forget", {"selector": {}}, "selector"),
    ("forget", {"selector": {"colour": "red"}}, "colour"),
    ("forget", {"selector": {"between": ["2024-02-01", "2024-01-01"]}}, "between"),
    ("purge", {"now": "later"}, "now"),
    ("restore", {}, "fact_uuid"),
])
def test_a_bad_body_gets_422_with_a_message_and_writes_nothing(live, admin, path, body, needle):
    r = admin.post(f"/v1/users/bad1/{path}", json=body)
    assert r.status_code == 422, r.text
    assert r.json()["error"] == "InvalidInput" and needle in r.text
    assert "Traceback" not in r.text
    assert "bad1" not in live.memory.users()


def test_a_lone_surrogate_in_a_turn_gets_422(live, admin):
    body = b'{"turns": [{"role": "user", "content": "a\\ud800"}], "session_time": "2024-01-01"}'
    r = admin.post("/v1/users/bad6/sessions", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 422 and "surrogate" in r.json()["detail"]
    assert "bad6" not in live.memory.users()


def test_a_body_that_is_not_json_gets_422(admin):
    r = admin.post("/v1/users/bad2/search", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 422 and r.json()["error"] == "InvalidInput"


def test_a_bad_user_id_gets_422_for_a_key_that_covers_every_user(admin):
    r = admin.get("/v1/users/not an id/facts")
    assert r.status_code == 422 and "user_id" in r.text


def test_bad_query_parameters_get_422(admin):
    assert admin.get("/v1/users/bad3/facts", params={"valid_at": "someday"}).status_code == 422
    assert admin.get("/v1/users/bad3/history").status_code == 422  # entity is required
    assert admin.delete("/v1/users/bad3", params={"confirm": "perhaps"}).status_code == 422
    assert admin.delete("/v1/users/bad3").status_code == 422


def test_a_body_over_the_limit_gets_413_before_it_is_read(live, admin):
    limit = live.memory.settings.max_request_bytes
    big = {"turns": [{"role": "user", "content": "x" * limit}], "session_time": "2024-01-01"}
    r = admin.post("/v1/users/bad4/sessions", json=big)
    assert r.status_code == 413 and r.json()["error"] == "RequestEntityTooLarge"
    chunks = (b"x" * 65536 for _ in range(limit // 65536 + 2))  # no Content-Length: chunked
    r = admin.post("/v1/users/bad4/sessions", content=chunks, headers={"content-type": "application/json"})
    assert r.status_code == 413
    assert "bad4" not in live.memory.users()


def test_unknown_routes_and_methods_answer_in_json(admin):
    assert admin.get("/v1/nothing").json()["error"] == "NotFound"
    r = admin.put("/v1/users/bad5/search", json={})
    assert r.status_code == 405 and r.json()["error"] == "MethodNotAllowed"
