"""The read-only inspection API: raw rows (closed and expired facts too) and where a text occurs."""

from __future__ import annotations

import pytest

from graphmem import InvalidInput
from graphmem.graph.inspect import Inspector


@pytest.fixture
def moved(memory):
    memory.write("u", [{"role": "user", "content": "I live in Beijing."}], "2024-03-10T09:00:00Z", "march")
    memory.write("u", [{"role": "user", "content": "I moved to Shanghai last month."}], "2024-07-10T09:00:00Z", "july")
    memory.add_fact("u", "user", "stays_at", "Hotel Aurora", valid_at="2024-09-01", expires_at="2024-09-10",
                    single_valued=False)
    return memory


def test_rows_include_closed_and_expired_facts(moved):
    ins = moved.inspect()
    every = ins.facts("u")
    homes = {f.object: f for f in every if f.predicate == "LIVES_IN"}
    assert homes["Beijing"].expired_at is not None and homes["Shanghai"].expired_at is None
    assert any(f.object == "Hotel Aurora" and f.expires_at for f in every)
    open_now = {f.object for f in ins.facts("u", include_expired=False)}
    assert "Shanghai" in open_now and not {"Beijing", "Hotel Aurora"} & open_now
    assert all(f.episodes for f in every if f.predicate == "LIVES_IN")


def test_episodes_entities_mentions_and_counts_agree(moved):
    ins = moved.inspect()
    episodes, entities, mentions = ins.episodes("u"), ins.entities("u"), ins.mentions("u")
    assert [(e.turn_id, e.session_id) for e in episodes] == [("march#0", "march"), ("july#0", "july")]
    assert "I live in Beijing." in [e.content for e in episodes]
    assert {"user", "Beijing", "Shanghai", "Hotel Aurora"} <= {e.name for e in entities}
    assert {m.turn_id for m in mentions} == {"march#0", "july#0"}
    assert {m.entity_name for m in mentions if m.turn_id == "march#0"} >= {"Beijing"}
    counts = ins.counts("u")
    assert (counts.episodes, counts.entities, counts.facts, counts.mentions) == (
        len(episodes), len(entities), len(ins.facts("u")), len(mentions))


def test_contains_text_names_every_property_holding_it(moved):
    hits = moved.inspect().contains_text("u", "shanghai")
    where = {(h.element, h.label, h.field) for h in hits}
    assert ("node", "Entity", "name") in where
    assert ("node", "Entity", "summary") in where, "the user's summary quotes the current home"
    assert ("node", "Episodic", "content") in where
    assert ("edge", "RELATES_TO", "fact") in where
    assert all(h.uuid for h in hits)
    assert moved.inspect().contains_text("u", "Zanzibar") == []


def test_a_needle_is_data_not_cypher(moved):
    ins = Inspector(moved.store)
    assert ins.contains_text("u", "') RETURN 1 //") == []
    assert ins.counts("u").facts >= 3, "nothing was changed"
    with pytest.raises(InvalidInput):
        ins.contains_text("u", "")


def test_an_unknown_user_reads_empty_and_creates_nothing(memory):
    ins = memory.inspect()
    assert ins.facts("nobody") == [] and ins.entities("nobody") == [] and ins.contains_text("nobody", "x") == []
    assert ins.counts("nobody").facts == 0
    assert "nobody" not in memory.users()
    with pytest.raises(InvalidInput):
        ins.facts("bad user id\n")
