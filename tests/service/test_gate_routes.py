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
