"""Scopes: episodes and facts belong to `user`, `project:<id>` or `agent:<id>`; a
search never returns a line from a scope it was not given (property-tested)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from graphmem.schema.errors import InvalidInput
from graphmem.schema.models import check_scope

NOW = "2024-09-01"
SCOPES = ("user", "project:apollo", "agent:scout")
TAG = {"user": "ux", "project:apollo": "pa", "agent:scout": "ab"}


def test_scope_names_are_validated():
    for good in ("user", "project:apollo-2", "agent:a.b_c"):
        assert check_scope(good) == good
    for bad in ("", "USER", "project:", "project:a b", "team:x", "agent:" + "x" * 65, None, 3):
        with pytest.raises(InvalidInput, match="scope"):
            check_scope(bad)


def test_bad_scopes_are_refused_before_anything_is_written(memory):
    with pytest.raises(InvalidInput, match="scope"):
        memory.write("u", [{"role": "user", "content": "I live in Paris."}], NOW, scope="project:")
    with pytest.raises(InvalidInput, match="scope"):
        memory.add_fact("u", "u", "likes", "tea", scope="everyone")
    assert memory.users() == []
    memory.add_fact("u", "u", "likes", "tea")
    for bad in ("user", [], ["user", "nope"]):
        with pytest.raises(InvalidInput, match="scope"):
            memory.search("u", "What do I like?", scopes=bad)
    with pytest.raises(InvalidInput, match="scope"):
        memory.facts("u", scopes="user")


def test_facts_of_one_scope_never_close_another_scopes_and_search_reads_only_its_scopes(memory):
    memory.write("u", [{"role": "user", "content": "I live in Beijing."}], "2024-03-01")
    memory.write("u", [{"role": "user", "content": "I live in Shanghai."}], "2024-06-01", scope="project:apollo")
    homes = {f.object: f.scope for f in memory.facts("u") if f.predicate == "LIVES_IN"}
    assert homes == {"Beijing": "user", "Shanghai": "project:apollo"}  # both still current
    assert [f.object for f in memory.facts("u", scopes=["project:apollo"]) if f.predicate == "LIVES_IN"] == ["Shanghai"]
    mine = memory.search("u", "Where do I live?", now=NOW)
    assert {f.object for f in mine.facts if f.predicate == "LIVES_IN"} == {"Beijing"}
    assert "Shanghai" not in mine.to_prompt()
    both = memory.search("u", "Where do I live?", now=NOW, scopes=["user", "project:apollo"])
    assert {(f.object, f.scope) for f in both.facts if f.predicate == "LIVES_IN"} == {("Beijing", "user"),
                                                                                      ("Shanghai", "project:apollo")}
    assert "| scope project:apollo |" in both.to_prompt()
    only = memory.search("u", "Where do I live?", now=NOW, scopes=["project:apollo"])
    assert {e.scope for e in only.episodes} == {"project:apollo"} and "Beijing" not in only.to_prompt()


def test_the_same_turn_in_two_scopes_is_two_episodes(memory):
    turn = [{"role": "user", "content": "I adopted a cat named Luna."}]
    memory.write("u", turn, NOW, session_id="s1")
    memory.write("u", turn, NOW, session_id="s1", scope="agent:scout")
    assert sorted(e.content for e in memory.inspect().episodes("u")) == [turn[0]["content"]] * 2


_users = itertools.count()
write_st = st.tuples(st.sampled_from(SCOPES), st.sampled_from(["fact", "turn"]), st.integers(0, 3),
                     st.sampled_from(["likes", "visited", "lives_in"]))
query_st = st.tuples(st.sampled_from(["Where does alice live?", "What did I visit?", "What does alice like?",
                                      "Tell me about {tag}city{n}.", "What is {tag}town{n} like?"]),
                     st.sampled_from(SCOPES), st.integers(0, 3),
                     st.lists(st.sampled_from(SCOPES), min_size=1, max_size=3, unique=True))


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(writes=st.lists(write_st, min_size=2, max_size=6), queries=st.lists(query_st, min_size=1, max_size=3))
def test_no_search_ever_returns_a_line_outside_its_scopes(memory, writes, queries):
    """Every name and turn carries its scope's tag, so a tag of a scope the search was
    not given anywhere in the rendered packet is a leak, whichever line it is on."""
    user = f"p{next(_users)}"
    for i, (scope, kind, n, predicate) in enumerate(writes):
        tag = TAG[scope]
        if kind == "fact":
            memory.add_fact(user, "alice", predicate, f"{tag}city{n}", scope=scope)
        else:
            text = f"Alice visited {tag}town{n} and liked {tag}town{n} a lot."
            memory.write(user, [{"role": "user", "content": text}], f"2024-0{1 + i % 8}-01", scope=scope)
    for template, named_scope, n, scopes in queries:
        query = template.format(tag=TAG[named_scope], n=n)
        packet = memory.search(user, query, now=NOW, scopes=scopes)
        assert all(f.scope in scopes for f in packet.facts)
        assert all(s.scope in scopes for c in packet.chains for s in c.steps)
        assert all(e.scope in scopes for e in packet.episodes)
        prompt = packet.to_prompt(budget_tokens=100_000)
        for other in set(SCOPES) - set(scopes):
            assert f"{TAG[other]}city" not in prompt and f"{TAG[other]}town" not in prompt, (other, scopes, prompt)
