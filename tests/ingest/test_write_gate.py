"""The write gate (issue 14 part 2): passing states wait as candidates, out of search
and facts, close nothing until confirmed; decisions survive a rebuild and go with a
forgotten turn. Rules extractor, real FalkorDB, real MiniLM."""

from __future__ import annotations

import pytest

from graphmem import StoreError
from graphmem.graph import cypher as q
from graphmem.graph.cypher import Query
from graphmem.ingest import write_gate
from graphmem.schema.errors import NotFound
from store_faults import failing


def say(mem, sid: str, when: str, text: str):
    return mem.write("u", [{"role": "user", "content": text}], when, sid)


def current(mem) -> set[tuple[str, str]]:
    return {(f.predicate, f.object) for f in mem.facts("u")}


def decisions(mem) -> int:
    return mem.store.run("u", Query("MATCH (d:GateDecision) RETURN count(d) AS n", {}))[0]["n"]


@pytest.mark.parametrize(("turn", "predicate", "obj", "status"), [
    ("I'm so tired today.", "FEELS", "tired", "candidate"),
    ("I'm staying at a hotel in Rome tonight.", "STAYS_AT", "a hotel in Rome", "candidate"),
    ("I think I might be allergic to cats.", "ALLERGIC_TO", "cats", "candidate"),
    ("I adopted a puppy today!", "HAS_PET", "puppy", "active"),
    ("I live in Lyon.", "LIVES_IN", "Lyon", "active"),
    ("I'm going to a conference this month.", "PLANS", "a conference", "active"),
    ("Remember that I'm exhausted today.", "FEELS", "exhausted", "active"),
    ("I'm tired today, but I work at Airbus.", "WORKS_AT", "Airbus", "active"),
    # a bond named by a possessive holds whatever the time marker dates; the stay itself does not
    ("My husband Tariq and I are eating out tonight.", "MARRIED_TO", "Tariq", "active"),
    ("The tyre light came on in my Skoda Octavia today.", "OWNS", "Skoda Octavia", "active"),
    ("I'm staying at my sister's flat in Leeds tonight.", "LIVES_IN", "Leeds", "candidate"),
])
def test_the_gate_stops_passing_states_and_keeps_lasting_ones(turn, predicate, obj, status):
    found, why = write_gate.signals(turn, predicate, obj, confidence=0.8, importance=0.5)
    assert write_gate.decide(found, why).status == status


def test_a_restatement_of_an_active_fact_is_never_held_back():
    found, why = write_gate.signals("I'm in Lyon for now.", "LIVES_IN", "Lyon", confidence=0.8, importance=0.5,
                                    duplication=1.0)
    assert write_gate.decide(found, why).status == "restates"


def test_a_candidate_closes_nothing_until_confirmed(memory):
    assert say(memory, "s1", "2024-03-01", "I eat spicy food.").facts_added == 1
    held = say(memory, "s2", "2024-04-01", "I'm avoiding spicy food this week.")
    assert (held.facts_added, held.facts_candidate, held.facts_superseded) == (0, 1, 0)
    assert current(memory) == {("EATS", "spicy food")}
    [candidate] = memory.candidates("u")
    assert (candidate.predicate, candidate.object, candidate.status) == ("AVOIDS", "spicy food", "candidate")
    assert candidate.write_score < write_gate.THRESHOLD and "passing time marker" in candidate.reason
    assert candidate.source_turn_ids
    packet = memory.search("u", "Am I avoiding spicy food?", now="2024-04-02")
    assert all(f.predicate != "AVOIDS" for f in packet.facts)

    result = memory.confirm("u", candidate.uuid)
    assert (result.decision, result.action, result.fact_uuid) == ("confirmed", "superseded", candidate.uuid)
    assert current(memory) == {("AVOIDS", "spicy food")}
    statuses = {v.predicate: v.status for v in memory.history("u", candidate.uuid).versions}
    assert statuses == {"EATS": "superseded", "AVOIDS": "current"}
    assert memory.candidates("u") == []
    with pytest.raises(NotFound):
        memory.confirm("u", candidate.uuid)


def test_explicit_requests_are_active_at_once(memory):
    result = say(memory, "s1", "2024-04-01", "Remember that I'm avoiding coffee this week.")
    assert (result.facts_added, result.facts_candidate) == (1, 0)
    assert ("AVOIDS", "coffee") in current(memory)


def test_restating_an_active_fact_merges_instead_of_holding(memory):
    say(memory, "s1", "2024-03-01", "I eat spicy food.")
    again = say(memory, "s2", "2024-04-01", "I eat spicy food tonight.")
    assert (again.facts_merged, again.facts_candidate) == (1, 0)
    assert memory.candidates("u") == []


def test_confirm_and_reject_survive_a_rebuild(memory):
    say(memory, "s1", "2024-03-01", "I'm avoiding coffee this week.")
    say(memory, "s2", "2024-03-02", "I'm eating pizza tonight.")
    say(memory, "s3", "2024-03-03", "I'm staying with my friend Kate for a few days.")
    say(memory, "s4", "2024-03-04", "I live in Lyon.")
    held = {c.object: c.uuid for c in memory.candidates("u")}
    assert set(held) == {"coffee", "pizza", "Kate"}
    memory.confirm("u", held["coffee"])
    assert memory.reject("u", held["pizza"]).action == "dropped"
    with pytest.raises(NotFound):
        memory.reject("u", held["pizza"])
    before = current(memory)
    assert {("AVOIDS", "coffee"), ("LIVES_IN", "Lyon")} <= before and ("EATS", "pizza") not in before

    rebuilt = memory.rebuild("u")
    assert rebuilt.facts_candidate == 1  # Kate, undecided, is held again; pizza stays rejected
    assert current(memory) == before
    assert [c.object for c in memory.candidates("u")] == ["Kate"]
    assert decisions(memory) == 2


def test_forgetting_a_turn_takes_its_candidate_and_decision(memory):
    say(memory, "s1", "2024-03-01", "I'm avoiding coffee this week.")
    say(memory, "s2", "2024-03-02", "I'm eating pizza tonight.")
    memory.reject("u", next(c.uuid for c in memory.candidates("u") if c.object == "pizza"))
    memory.forget("u", {"session_id": "s2"})
    memory.forget("u", {"session_id": "s1"})
    assert memory.candidates("u") == [] and decisions(memory) == 0


def test_unknown_users_and_bad_ids(memory):
    assert memory.candidates("nobody") == []
    with pytest.raises(NotFound):
        memory.confirm("nobody", "x")
    say(memory, "s1", "2024-03-01", "I live in Lyon.")
    with pytest.raises(NotFound):
        memory.reject("u", "no-such-candidate")


def test_a_confirm_that_fails_half_way_keeps_the_candidate(memory):
    say(memory, "s1", "2024-03-01", "I eat spicy food.")
    say(memory, "s2", "2024-04-01", "I'm avoiding spicy food this week.")
    [candidate] = memory.candidates("u")
    with failing(memory.store, q.update_facts([{"uuid": "x", "props": {}}]).cypher):
        with pytest.raises(StoreError):
            memory.confirm("u", candidate.uuid)
    assert [c.uuid for c in memory.candidates("u")] == [candidate.uuid]
    assert current(memory) == {("EATS", "spicy food")}
    assert memory.confirm("u", candidate.uuid).action == "superseded"
    assert current(memory) == {("AVOIDS", "spicy food")}
