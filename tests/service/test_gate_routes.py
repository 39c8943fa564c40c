"""The write gate's routes over real HTTP: list candidates, confirm, reject; the same
key check as every user route."""

from __future__ import annotations


def test_candidates_confirm_and_reject_over_http(live):
    turns = [{"role": "user", "content": "I'm avoiding coffee this week."},
             {"role": "user", "content": "I'm eating pizza tonight."}]
    with live.client(live.key("gated")) as c:
        wrote = c.post("/v1/users/gated/sessions", json={"turns": turns, "session_time": "2024-04-01"})
        assert wrote.status_code == 200 and wrote.json()["facts_candidate"] == 2
        listed = c.get("/v1/users/gated/candidates")
        assert listed.status_code == 200
        held = {row["object"]: row for row in listed.json()}
        assert set(held) == {"coffee", "pizza"} and all(r["status"] == "candidate" for r in held.values())
        assert c.get("/v1/users/gated/facts").json() == []

        confirmed = c.post(f"/v1/users/gated/facts/{held['coffee']['uuid']}/confirm")
        assert confirmed.status_code == 200 and confirmed.json()["action"] == "added"
        rejected = c.post(f"/v1/users/gated/facts/{held['pizza']['uuid']}/reject")
        assert rejected.status_code == 200 and rejected.json()["decision"] == "rejected"
        assert [f["object"] for f in c.get("/v1/users/gated/facts").json()] == ["coffee"]
        assert c.get("/v1/users/gated/candidates").json() == []
        missing = c.post(f"/v1/users/gated/facts/{held['pizza']['uuid']}/confirm")
        assert missing.status_code == 404

    with live.client(live.key("someone_else")) as other:
        assert other.get("/v1/users/gated/candidates").status_code == 403
        assert other.post(f"/v1/users/gated/facts/{held['coffee']['uuid']}/reject").status_code == 403
    with live.client() as anonymous:
        assert anonymous.get("/v1/users/gated/candidates").status_code == 401


def test_a_scoped_key_lists_and_decides_only_its_scopes_candidates(live):
    mood = {"role": "user", "content": "I'm avoiding sugar this week."}
    with live.client(live.key()) as admin:
        for scope in ("user", "project:gated"):
            body = {"turns": [mood], "session_time": "2024-04-01", "scope": scope}
            assert admin.post("/v1/users/gated2/sessions", json=body).json()["facts_candidate"] == 1
        every = {row["scope"]: row["uuid"] for row in admin.get("/v1/users/gated2/candidates").json()}
    assert set(every) == {"user", "project:gated"}

    with live.client(live.keys.create(["gated2"], ["project:gated"])[1]) as scoped:
        listed = scoped.get("/v1/users/gated2/candidates").json()
        assert [row["scope"] for row in listed] == ["project:gated"]
        other = scoped.post(f"/v1/users/gated2/facts/{every['user']}/confirm")
        missing = scoped.post("/v1/users/gated2/facts/no-such-candidate/confirm")
        assert other.status_code == missing.status_code == 404
        assert other.json()["detail"].replace(every["user"], "X") == missing.json()["detail"].replace("no-such-candidate", "X")
        assert scoped.post(f"/v1/users/gated2/facts/{every['project:gated']}/reject").status_code == 200
    assert [c.scope for c in live.memory.candidates("gated2")] == ["user"]
