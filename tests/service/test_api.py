"""Every /v1 endpoint over real HTTP on loopback, with the real store and MiniLM.

Each test uses its own user ids on the module's server (`conftest.live`).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from graphmem.forgetting import capacity

HOME = [{"role": "user", "content": "I live in Beijing."}]
MOVED = [{"role": "user", "content": "I moved to Shanghai."}]


def write(client, user: str, turns: list[dict], when: str, session_id: str | None = None):
    return client.post(f"/v1/users/{user}/sessions",
                       json={"turns": turns, "session_time": when, "session_id": session_id})


@pytest.fixture(scope="module")
def moved(live):
    """User `mover`: Beijing from March, Shanghai from July (two sessions over HTTP)."""
    with live.client(live.key("mover")) as c:
        assert write(c, "mover", HOME, "2024-03-10", "s1").status_code == 200
        assert write(c, "mover", MOVED, "2024-07-10", "s2").status_code == 200
    return "mover"


def test_healthz_needs_no_key_and_docs_and_openapi_are_served(live):
    with live.client() as c:
        assert c.get("/healthz").json() == {"status": "ok"}
        spec = c.get("/openapi.json").json()
        assert "/v1/users/{user_id}/search" in spec["paths"]
        assert "HTTPBearer" in spec["components"]["securitySchemes"]
        assert "swagger" in c.get("/docs").text.lower()


def test_write_returns_the_write_result_and_a_repeat_changes_nothing(live):
    with live.client(live.key("w1")) as c:
        first = write(c, "w1", HOME, "2024-03-10", "s1")
        again = write(c, "w1", HOME, "2024-03-10", "s1")
    assert first.status_code == 200 and first.json()["facts_added"] == 1 and first.json()["episodes"] == 1
    assert again.json()["episodes"] == 0 and again.json()["episodes_skipped"] == 1
    assert [f.object for f in live.memory.facts("w1")] == ["Beijing"]


def test_search_returns_the_packet_with_its_prompt_text(live, moved):
    with live.client(live.key(moved)) as c:
        packet = c.post(f"/v1/users/{moved}/search", json={"query": "Where do I live?", "now": "2024-09-01"}).json()
        never = c.post(f"/v1/users/{moved}/search", json={"query": "What is my daughter's name?"}).json()
    assert packet["facts"][0]["object"] == "Shanghai" and not packet["abstain"]
    assert "Shanghai" in packet["prompt"] and "s2#0" in packet["prompt"]
    assert packet["prompt"] == live.memory.search(moved, "Where do I live?", now="2024-09-01").to_prompt()
    assert never["abstain"] and never["prompt"].startswith("MEMORY: nothing relevant")


def test_facts_answer_at_a_valid_time_and_as_known_at_a_time(live, moved):
    with live.client(live.key(moved)) as c:
        now = c.get(f"/v1/users/{moved}/facts").json()
        april = c.get(f"/v1/users/{moved}/facts", params={"valid_at": "2024-04-15"}).json()
        before_any = c.get(f"/v1/users/{moved}/facts", params={"known_at": "2000-01-01"}).json()
    home = [f for f in now if f["predicate"] == "LIVES_IN"]
    assert [(f["object"], f["status"]) for f in home] == [("Shanghai", "current")]
    assert [(f["object"], f["status"]) for f in april] == [("Beijing", "superseded")]
    assert april[0]["superseded_by"] == home[0]["uuid"]
    assert before_any == []


def test_history_timeline_versions_and_turns(live, moved):
    with live.client(live.key(moved)) as c:
        history = c.get(f"/v1/users/{moved}/history", params={"entity": "user"}).json()
        timeline = c.get(f"/v1/users/{moved}/timeline", params={"entity": "user"}).json()
        versions = c.get(f"/v1/users/{moved}/versions").json()
        turns = c.get(f"/v1/users/{moved}/turns", params={"turn_id": ["s1#0"]}).json()
        missing = c.get(f"/v1/users/{moved}/history", params={"entity": "Atlantis"})
    homes = [v["object"] for v in history["versions"] if v["predicate"] == "LIVES_IN"]
    assert homes == ["Beijing", "Shanghai"]
    assert [(e["object"], e["status"]) for e in timeline["entries"] if e["predicate"] == "LIVES_IN"] == [
        ("Beijing", "superseded"), ("Shanghai", "current")]
    assert {(v["object"], v["status"]) for v in versions if v["predicate"] == "LIVES_IN"} == {
        ("Beijing", "superseded"), ("Shanghai", "current")}
    assert [(t["turn_id"], t["content"], t["speaker"]) for t in turns] == [("s1#0", "I live in Beijing.", "user")]
    assert missing.status_code == 404 and missing.json()["error"] == "NotFound"


def test_forget_previews_by_default_then_deletes_when_asked(live):
    with live.client(live.key("f1")) as c:
        write(c, "f1", HOME, "2024-03-10", "s1")
        preview = c.post("/v1/users/f1/forget", json={"selector": {"text": "Beijing"}}).json()
        assert [f.object for f in live.memory.facts("f1")] == ["Beijing"]
        done = c.post("/v1/users/f1/forget", json={"selector": {"text": "Beijing"}, "dry_run": False}).json()
        unconfirmed = c.post("/v1/users/f1/forget", json={"selector": {"all": True}, "dry_run": False})
    assert preview["dry_run"] and preview["facts_deleted"] == 1 and preview["turn_ids"] == ["s1#0"]
    assert not done["dry_run"] and done["facts_deleted"] == 1 and done["compacted"]
    assert live.memory.facts("f1") == []
    assert unconfirmed.status_code == 422 and "confirm" in unconfirmed.json()["detail"]


def test_purge_deletes_expired_facts(live):
    past = datetime.now(UTC) - timedelta(days=1)
    live.memory.add_fact("p1", "user", "likes", "tea", valid_at="2024-01-01", expires_at=past)
    with live.client(live.key("p1")) as c:
        assert c.post("/v1/users/p1/purge", json={}).json() == {"facts_purged": 1}
        assert c.post("/v1/users/p1/purge", json={}).json() == {"facts_purged": 0}


def test_restore_brings_an_archived_fact_back(live):
    added = live.memory.add_fact("r1", "user", "likes", "tea", valid_at="2024-01-01")
    live.memory.add_fact("r1", "user", "likes", "coffee", valid_at="2024-02-01", single_valued=False)
    with live.memory.store.user_lock("r1"):
        capacity.enforce(live.memory.store, "r1", 1)
    archived = [f.uuid for f in live.memory.inspect().facts("r1") if f.archived_at]
    assert len(archived) == 1
    with live.client(live.key("r1")) as c:
        assert c.post("/v1/users/r1/restore", json={"fact_uuid": archived[0]}).json() == {"restored": True}
        assert c.post("/v1/users/r1/restore", json={"fact_uuid": "no-such-fact"}).json() == {"restored": False}
    assert not [f for f in live.memory.inspect().facts("r1") if f.archived_at]
    assert added.fact_uuid in {f.uuid for f in live.memory.facts("r1")}


def test_drop_user_needs_confirm_then_erases_the_memory(live):
    token = live.key("d1")
    with live.client(token) as c:
        write(c, "d1", HOME, "2024-03-10")
        refused = c.delete("/v1/users/d1")
        assert refused.status_code == 422 and "d1" in live.memory.users()
        assert c.delete("/v1/users/d1", params={"confirm": True}).json() == {"dropped": True}
        assert c.delete("/v1/users/d1", params={"confirm": True}).json() == {"dropped": False}
    assert "d1" not in live.memory.users()


def test_users_lists_what_the_key_covers(live, moved):
    live.memory.add_fact("other", "user", "likes", "tea")
    with live.client(live.key(moved, "nobody_yet")) as c:
        assert c.get("/v1/users").json() == ["mover", "nobody_yet"]
    with live.client(live.key()) as admin:
        listed = admin.get("/v1/users").json()
    assert {"mover", "other"} <= set(listed) and "nobody_yet" not in listed
