"""Bad input gets a typed error, loses nothing, and never reaches Cypher as text."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from graphmem import InvalidInput, Memory

HOSTILE = [
    "Beijing'}) MATCH (n) DETACH DELETE n //",
    'x"); CALL db.idx.fulltext.drop("Entity") //',
    "$t OR 1=1",
    "Robert'); DROP GRAPH u1;--",
    "名字 🐍 \\u0000 \n\t end",
]


@pytest.mark.parametrize("user_id", ["", "a b", "a/b", "x" * 129, "u1'}) //", None, 42, "é"])
def test_invalid_user_ids_are_rejected(memory, user_id):
    with pytest.raises(InvalidInput, match="user id"):
        memory.add_fact(user_id, "me", "lives_in", "Beijing")
    with pytest.raises(InvalidInput):
        memory.facts(user_id)


def test_wrong_embedding_dimension_is_rejected_and_nothing_is_written(memory):
    memory.add_fact("u1", "me", "lives_in", "Beijing", valid_at="2024-03-01")
    with pytest.raises(InvalidInput, match="384"):
        memory.add_fact("u1", "me", "lives_in", "Shanghai", embedding=[0.1] * 12)
    with pytest.raises(InvalidInput, match="NaN"):
        memory.add_fact("u1", "me", "lives_in", "Shanghai", embedding=[float("nan")] * 384)
    assert [f.object for f in memory.facts("u1")] == ["Beijing"]


def test_graph_built_with_another_dimension_is_refused(tmp_path, embedder):
    class Small:
        name, dimension = "small", 8

        def embed(self, texts):
            return np.ones((len(texts), 8), dtype=np.float32)

    with Memory(data_dir=tmp_path / "gm", embedder=embedder) as mem:
        mem.add_fact("u1", "me", "lives_in", "Beijing")
    with Memory(data_dir=tmp_path / "gm", embedder=Small()) as mem:
        with pytest.raises(InvalidInput, match="384-dimensional"):
            mem.add_fact("u1", "me", "lives_in", "Paris")


@pytest.mark.parametrize(
    "when",
    ["not a date", "2024-02-30", object(), 1700000000, datetime(9999, 12, 31, 22, tzinfo=timezone(timedelta(hours=-5)))],
)
def test_unnormalisable_datetimes_are_rejected(memory, when):
    with pytest.raises(InvalidInput):
        memory.add_fact("u1", "me", "lives_in", "Beijing", valid_at=when)
    with pytest.raises(InvalidInput):
        memory.facts("u1", valid_at=when)
    assert memory.facts("u1") == []


@pytest.mark.parametrize(("when", "said"), [("9999-12-20", "I will move to Paris next month."),
                                          ("1000-01-05", "I moved to Rome last year."),
                                          ("9999-06-01", "We are moving to Lisbon in 3 years.")])
def test_a_relative_date_past_the_storable_years_is_left_unresolved(memory, when, said):
    """"next month" said on 9999-12-20 names a month no date holds: the phrase is left
    unresolved (the turn and its fact are stored undated), not a ValueError after the turn
    was stored; and a search whose `now` is there answers."""
    result = memory.write("u1", [{"role": "user", "content": said}], when)
    assert result.episodes == 1 and [e.content for e in memory.inspect().episodes("u1")] == [said]
    packet = memory.search("u1", "Where will I live next year?", now="9999-12-31T23:59:59Z")
    assert packet.query == "Where will I live next year?"


def test_a_ttl_past_the_storable_years_is_refused_before_anything_is_written(memory):
    for when, ttl in [("9999-12-30", timedelta(days=30)), ("2024-01-01", timedelta(days=3_000_000))]:
        with pytest.raises(InvalidInput, match="ttl"):
            memory.write("u1", [{"role": "user", "content": "I live in Oslo."}], when, ttl=ttl)
    assert "u1" not in memory.users()


def test_invalid_ranges_and_empty_values_are_rejected(memory):
    with pytest.raises(InvalidInput, match="later"):
        memory.add_fact("u1", "me", "lives_in", "Beijing", valid_at="2024-06-01", invalid_at="2024-03-01")
    for field in ({"subject": " "}, {"object": ""}, {"predicate": "lives-in; DROP"}):
        args = {"subject": "me", "predicate": "lives_in", "object": "Beijing"} | field
        with pytest.raises(InvalidInput):
            memory.add_fact("u1", **args)


def test_cypher_looking_strings_are_stored_verbatim_and_harmless(memory):
    for i, text in enumerate(HOSTILE):
        memory.add_fact("u1", text, "likes", text + " too", fact=f"{text} {i}", single_valued=False)
    facts = memory.facts("u1")
    assert sorted(f.subject for f in facts) == sorted(HOSTILE)
    assert sorted(f.fact for f in facts) == sorted(f"{text} {i}" for i, text in enumerate(HOSTILE))
    assert memory.history("u1", HOSTILE[0]).versions[0].object == HOSTILE[0] + " too"
    assert memory.users() == ["u1"]


def test_two_users_never_see_each_others_facts(memory):
    memory.add_fact("alice", "me", "lives_in", "Beijing")
    memory.add_fact("bob", "me", "lives_in", "Lagos")
    assert [f.object for f in memory.facts("alice")] == ["Beijing"]
    assert [f.object for f in memory.facts("bob")] == ["Lagos"]
    assert [v.object for v in memory.history("alice", "me").versions] == ["Beijing"]
