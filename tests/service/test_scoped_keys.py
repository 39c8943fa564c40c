"""Keys limited to memory scopes, over real HTTP: a scoped key reads only its scopes
(search, facts, history, timeline, versions, turns), writes only its scopes, is
refused the verbs that act on every scope, and never sees another scope's line
(table- and Hypothesis-driven)."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from graphmem.service.keys import KeyStore, parse_env_keys

SCOPES = ("user", "project:apollo", "agent:scout")
TAG = {"user": "Qux", "project:apollo": "Zap", "agent:scout": "Vex"}
USER = "sk"
SESSION = "2024-05-01"


def say(text: str, when: str = SESSION) -> dict:
    return {"turns": [{"role": "user", "content": text}], "session_time": when}


@pytest.fixture(scope="module")
def tagged(live):
    """User `sk` with one turn and facts in each scope; every name carries its scope's tag."""
    with live.client(live.key()) as admin:
        for i, scope in enumerate(SCOPES):
            tag = TAG[scope]
            body = say(f"I live in {tag}city. I visited {tag}town last week.", f"2024-0{i + 3}-01") | {"scope": scope}
            r = admin.post(f"/v1/users/{USER}/sessions", json=body)
            assert r.status_code == 200, r.text
    assert {f.scope for f in live.memory.facts(USER)} == set(SCOPES)
    return USER


def leaked(text: str, held) -> list[str]:
    """The tags of scopes outside `held` that occur in `text` (any case)."""
    low = text.lower()
    return [TAG[s] for s in SCOPES if s not in held and TAG[s].lower() in low]


def test_a_scoped_key_reads_only_its_scopes_on_every_read_route(live, tagged):
    held = ("project:apollo",)
    with live.client(live.keys.create([tagged], list(held))[1]) as c:
        search = c.post(f"/v1/users/{tagged}/search", json={"query": "Where do I live?", "now": "2024-09-01"})
        assert search.status_code == 200
        packet = search.json()
        assert packet["facts"] and {f["scope"] for f in packet["facts"]} == {"project:apollo"}
        assert {e["scope"] for e in packet["episodes"]} <= {"project:apollo"}
        facts = c.get(f"/v1/users/{tagged}/facts").json()
        assert {f["scope"] for f in facts} == {"project:apollo"}
        history = c.get(f"/v1/users/{tagged}/history", params={"entity": "user"}).json()
        assert {v["scope"] for v in history["versions"]} == {"project:apollo"}
        timeline = c.get(f"/v1/users/{tagged}/timeline", params={"entity": "user"}).json()
        assert {e["object"] for e in timeline["entries"]} == {f["object"] for f in history["versions"]}
        versions = c.get(f"/v1/users/{tagged}/versions").json()
        turns = c.get(f"/v1/users/{tagged}/turns").json()
        assert {v["scope"] for v in versions} == {"project:apollo"} and {t["scope"] for t in turns} == {"project:apollo"}
        for body in (search.text, json.dumps(facts), json.dumps(history), json.dumps(timeline), json.dumps(versions),
                     json.dumps(turns)):
            assert leaked(body, held) == []
    # the same routes with a key of every scope see all three (old keys keep working)
    with live.client(live.key(tagged)) as c:
        assert {f["scope"] for f in c.get(f"/v1/users/{tagged}/facts").json()} == set(SCOPES)
        assert {t["scope"] for t in c.get(f"/v1/users/{tagged}/turns").json()} == set(SCOPES)
        default = c.post(f"/v1/users/{tagged}/search", json={"query": "Where do I live?", "now": "2024-09-01"}).json()
        assert {f["scope"] for f in default["facts"]} == {"user"}  # search's own default, unchanged


def test_asking_for_a_scope_outside_the_key_is_403_and_names_the_keys_scopes(live, tagged):
    with live.client(live.keys.create([tagged], ["project:apollo"])[1]) as c:
        for r in (c.post(f"/v1/users/{tagged}/search", json={"query": "Where do I live?", "scopes": ["user"]}),
                  c.post(f"/v1/users/{tagged}/search",
                         json={"query": "Where do I live?", "scopes": ["project:apollo", "agent:scout"]}),
                  c.get(f"/v1/users/{tagged}/facts", params={"scopes": ["user"]})):
            assert r.status_code == 403, r.text
            assert r.json()["error"] == "Forbidden"
            assert "may read only the scopes project:apollo" in r.json()["detail"]
        narrowed = c.get(f"/v1/users/{tagged}/facts", params={"scopes": ["project:apollo"]})
        assert narrowed.status_code == 200 and {f["scope"] for f in narrowed.json()} == {"project:apollo"}
        assert c.post(f"/v1/users/{tagged}/search", json={"query": "x", "scopes": ["bad scope"]}).status_code == 422


def test_a_history_of_another_scopes_fact_is_the_404_of_an_unknown_one(live, tagged):
    other = next(f for f in live.memory.facts(tagged) if f.scope == "user")
    with live.client(live.keys.create([tagged], ["agent:scout"])[1]) as c:
        hidden = c.get(f"/v1/users/{tagged}/history", params={"entity": other.uuid})
        unknown = c.get(f"/v1/users/{tagged}/history", params={"entity": other.uuid[:-4] + "0000"})
        entity = c.get(f"/v1/users/{tagged}/timeline", params={"entity": "Quxcity"})
    assert hidden.status_code == unknown.status_code == entity.status_code == 404
    assert hidden.json()["error"] == unknown.json()["error"] == entity.json()["error"] == "NotFound"
    assert hidden.json()["detail"].replace(other.uuid, "?") == unknown.json()["detail"].replace(
        other.uuid[:-4] + "0000", "?")


def test_a_scoped_key_writes_only_the_scopes_it_holds(live):
    user = "skw"
    with live.client(live.keys.create([user], ["project:apollo"])[1]) as c:
        unnamed = c.post(f"/v1/users/{user}/sessions", json=say("I live in Lisbon."))
        outside = c.post(f"/v1/users/{user}/sessions", json=say("I live in Lisbon.") | {"scope": "agent:scout"})
        assert unnamed.status_code == outside.status_code == 403
        assert "may write only the scopes project:apollo" in unnamed.json()["detail"]
        assert live.memory.users().count(user) == 0  # nothing was written, not even the graph
        ok = c.post(f"/v1/users/{user}/sessions", json=say("I live in Lisbon.") | {"scope": "project:apollo"})
        assert ok.status_code == 200 and ok.json()["facts_added"] >= 1
    assert {f.scope for f in live.memory.facts(user)} == {"project:apollo"}
    assert {e.scope for e in live.memory.inspect().episodes(user)} == {"project:apollo"}


WHOLE_MEMORY = [
    ("POST", "/forget", {"selector": {"text": "Quxcity"}, "dry_run": True}),
    ("POST", "/purge", {"now": "2030-01-01"}),
    ("POST", "/restore", {"fact_uuid": "x"}),
    ("POST", "/rebuild", None),
    ("POST", "/reembed", None),
    ("DELETE", "?confirm=true", None),
]


@pytest.mark.parametrize(("method", "suffix", "body"), WHOLE_MEMORY, ids=[s for _, s, _ in WHOLE_MEMORY])
def test_verbs_acting_on_every_scope_refuse_a_scoped_key(live, tagged, method, suffix, body):
    before = [(f.uuid, f.scope) for f in live.memory.inspect().fact_versions(tagged)]
    with live.client(live.keys.create([tagged], list(SCOPES[:2]))[1]) as c:
        r = c.request(method, f"/v1/users/{tagged}{suffix}", json=body)
    assert r.status_code == 403 and r.json()["error"] == "Forbidden"
    assert "acts on every scope" in r.json()["detail"] and "quxcity" not in r.text.lower()
    assert [(f.uuid, f.scope) for f in live.memory.inspect().fact_versions(tagged)] == before


def test_rebuild_over_http_rederives_the_facts_and_404s_an_unknown_user(live):
    user = "skr"
    with live.client(live.key(user)) as c:
        assert c.post(f"/v1/users/{user}/sessions", json=say("I live in Porto. I work at Acme.")).status_code == 200
        before = sorted((f.predicate, f.object) for f in live.memory.facts(user))
        r = c.post(f"/v1/users/{user}/rebuild")
        assert r.status_code == 200, r.text
        done = r.json()
        assert done["episodes"] == 1 and done["sessions"] == 1
        assert done["facts_dropped"] == len(before) >= 1 and done["facts_added"] >= 1
        assert sorted((f.predicate, f.object) for f in live.memory.facts(user)) == before
        missing = c.post("/v1/users/skr_nobody/rebuild")
    assert missing.status_code == 403  # not covered by this key
    with live.client(live.key()) as admin:
        assert admin.post("/v1/users/skr_nobody/rebuild").status_code == 404


def test_reembed_over_http_makes_the_vectors_again_and_404s_an_unknown_user(live):
    user = "sre"
    with live.client(live.key(user)) as c:
        assert c.post(f"/v1/users/{user}/sessions", json=say("I live in Porto. I work at Acme.")).status_code == 200
        before = sorted((f.predicate, f.object, str(f.valid_at)) for f in live.memory.facts(user))
        r = c.post(f"/v1/users/{user}/reembed")
        assert r.status_code == 200, r.text
        done = r.json()
        assert done["turns"] == 1 and done["facts"] == len(before) >= 1 and done["entities"] >= 2
        assert done["embedder"] == done["previous_embedder"] == live.memory.embedder.name
        assert sorted((f.predicate, f.object, str(f.valid_at)) for f in live.memory.facts(user)) == before
        found = c.post(f"/v1/users/{user}/search", json={"query": "Where do I live?"})
        assert found.status_code == 200 and "Porto" in found.text
    with live.client(live.key()) as admin:
        assert admin.post("/v1/users/sre_nobody/reembed").status_code == 404


def test_scopes_of_a_key_are_stored_and_old_key_files_mean_every_scope(tmp_path):
    keys = KeyStore(tmp_path)
    scoped, token = keys.create(["alice"], ["project:apollo", "user"])
    plain, plain_token = keys.create(["alice"])
    assert keys.authenticate(token).scopes == ("project:apollo", "user")
    assert keys.authenticate(plain_token).scopes is None
    stored = json.loads(keys.path.read_text())
    for k in stored["keys"]:
        k.pop("scopes")  # a file written before keys had scopes
    keys.path.write_text(json.dumps(stored))
    assert KeyStore(tmp_path).authenticate(token).scopes is None
    from graphmem.schema.errors import InvalidInput

    for bad in ([], ["team:x"], "user"):
        with pytest.raises(InvalidInput, match="scope"):
            keys.create(["alice"], bad)
    [env] = parse_env_keys("sha256:" + "0" * 64 + "=alice,bob@project:apollo,agent:scout")
    assert (env.users, env.scopes) == (("alice", "bob"), ("project:apollo", "agent:scout"))
    from graphmem.schema.errors import ConfigError

    for bad in ("sha256:" + "0" * 64 + "=alice@", "sha256:" + "0" * 64 + "=alice@team:x"):
        with pytest.raises(ConfigError):
            parse_env_keys(bad)


_keys = itertools.count()
subsets = st.lists(st.sampled_from(SCOPES), min_size=1, max_size=3, unique=True)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(held=subsets, asked=st.one_of(st.none(), subsets),
       query=st.sampled_from(["Where do I live?", "What did I visit?", "Tell me about {tag}city.",
                              "What is {tag}town like?"]),
       named=st.sampled_from(SCOPES))
def test_a_scoped_key_never_sees_another_scopes_line(live, tagged, held, asked, query, named):
    """Whatever scopes a key holds and a request asks for, no response carries a tag of
    a scope outside the key's; asking beyond the key is 403, never a narrowed answer."""
    with live.client(live.keys.create([tagged], held)[1]) as c:
        body = {"query": query.format(tag=TAG[named]), "now": "2024-09-01", "budget_tokens": 100_000}
        params = {}
        if asked is not None:
            body["scopes"] = asked
            params["scopes"] = asked
        responses = [c.post(f"/v1/users/{tagged}/search", json=body), c.get(f"/v1/users/{tagged}/facts", params=params)]
        for r in responses:
            if asked is not None and not set(asked) <= set(held):
                assert r.status_code == 403, r.text
                continue
            assert r.status_code == 200, r.text
            answer = r.text.replace(body["query"], "")  # the packet repeats the question
            assert leaked(answer, asked or held) == [], (held, asked, r.text)
        for path, params in (("history", {"entity": "user"}), ("versions", {}), ("turns", {})):
            r = c.get(f"/v1/users/{tagged}/{path}", params=params)
            assert r.status_code == 200 and leaked(r.text, held) == [], (held, path, r.text)
