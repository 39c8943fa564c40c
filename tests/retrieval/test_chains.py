"""Lookups followed to the end: the pure walk (`retrieval.chains`) on plain
records, then through `Memory.search` on the real store."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from graphmem.retrieval.chains import follow_chains
from graphmem.schema.models import normalize_name
from graphmem.schema.records import FactRecord

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)


def rec(subject: str, obj: str, predicate: str = "MAPS_TO", status: str = "current", uuid: str | None = None) -> FactRecord:
    return FactRecord(uuid=uuid or f"{subject}->{obj}", subject=subject, predicate=predicate, object=obj,
                      fact=f"{subject} {predicate} {obj}", valid_at=None, invalid_at=None, created_at=T0,
                      expired_at=None, status=status)


def lookup_over(records: list[FactRecord], calls: list | None = None):
    def lookup(pairs):
        if calls is not None:
            calls.append(list(pairs))
        wanted = set(pairs)
        return [r for r in records if (normalize_name(r.subject), r.predicate) in wanted]
    return lookup


def current(r: FactRecord) -> bool:
    return r.status == "current"


def test_a_chain_is_followed_to_a_verified_terminal_with_one_lookup_per_hop():
    facts = [rec("k0", "k1"), rec("k1", "k2"), rec("k2", "k3"), rec("k3", "value")]
    calls: list = []
    [chain] = follow_chains([facts[0]], lookup_over(facts, calls), current)
    assert [s.object for s in chain.steps] == ["k1", "k2", "k3", "value"]
    assert chain.terminal == "value" and chain.verified_terminal and chain.stop == "terminal"
    assert len(calls) == 4  # three hops found a next fact, the fourth proved there is none


def test_chains_of_several_starts_share_each_hop_lookup():
    facts = [rec("a", "b"), rec("b", "c"), rec("x", "y")]
    calls: list = []
    chains = follow_chains([facts[0], facts[2]], lookup_over(facts, calls), current)
    assert [c.terminal for c in chains] == ["c", "y"] and all(c.verified_terminal for c in chains)
    assert calls[0] == [("b", "MAPS_TO"), ("y", "MAPS_TO")] and len(calls) == 2


def test_another_relation_is_no_next_step():
    facts = [rec("k0", "k1"), rec("k1", "k2", predicate="LIKES")]
    [chain] = follow_chains([facts[0]], lookup_over(facts), current)
    assert chain.terminal == "k1" and chain.verified_terminal and len(chain.steps) == 1


def test_a_cycle_stops_and_is_not_verified():
    facts = [rec("a", "b"), rec("b", "c"), rec("c", "a")]
    [chain] = follow_chains([facts[0]], lookup_over(facts), current)
    assert chain.stop == "cycle" and not chain.verified_terminal
    assert [s.object for s in chain.steps] == ["b", "c", "a"]
    [self_loop] = follow_chains([rec("z", "z")], lookup_over([rec("z", "z")]), current)
    assert self_loop.stop == "cycle" and len(self_loop.steps) == 1


def test_a_branch_stops_unverified_and_the_hop_limit_too():
    branching = [rec("a", "b"), rec("b", "c"), rec("b", "d")]
    [chain] = follow_chains([branching[0]], lookup_over(branching), current)
    assert chain.stop == "branch" and chain.terminal == "b" and not chain.verified_terminal
    long = [rec(f"k{i}", f"k{i + 1}") for i in range(20)]
    [cut] = follow_chains([long[0]], lookup_over(long), current, max_depth=5)
    assert cut.stop == "depth" and len(cut.steps) == 6 and not cut.verified_terminal


def test_a_fact_not_admitted_is_neither_followed_nor_blocks_the_terminal():
    facts = [rec("a", "b"), rec("b", "old", status="superseded"), rec("b", "c"), rec("c", "gone", status="ended")]
    [chain] = follow_chains([facts[0]], lookup_over(facts), current)
    assert [s.object for s in chain.steps] == ["b", "c"] and chain.verified_terminal


# -- through search ---------------------------------------------------------------------


def _pairs(memory, user, pairs):
    for key, value in pairs:
        memory.add_fact(user, key, "maps_to", value, fact=f"Key {key} maps to value {value}.")


def test_search_shows_the_whole_chain_and_marks_the_terminal(memory):
    _pairs(memory, "kv", [("alpha", "bravo"), ("bravo", "charlie"), ("charlie", "delta"), ("echo", "foxtrot")])
    packet = memory.search("kv", "What does key alpha finally map to?")
    chain = next(c for c in packet.chains if c.steps[0].subject == "alpha")
    assert [s.object for s in chain.steps] == ["bravo", "charlie", "delta"]
    assert chain.terminal == "delta" and chain.verified_terminal
    prompt = packet.to_prompt()
    assert "CHAINS" in prompt and "=> delta (3 steps; verified terminal: no MAPS_TO fact about delta)" in prompt


def test_a_superseded_step_is_not_followed_in_current_mode(memory):
    _pairs(memory, "kv", [("alpha", "bravo"), ("bravo", "charlie")])
    memory.add_fact("kv", "bravo", "maps_to", "golf", fact="Key bravo maps to value golf.")  # closes bravo -> charlie
    packet = memory.search("kv", "What does key alpha finally map to?")
    chain = next(c for c in packet.chains if c.steps[0].subject == "alpha")
    assert chain.terminal == "golf" and chain.verified_terminal


def test_facts_that_lead_nowhere_make_no_chain(memory):
    memory.add_fact("alice", "alice", "lives_in", "Beijing", valid_at="2024-03-01")
    memory.add_fact("alice", "Beijing", "located_in", "China")
    packet = memory.search("alice", "Where do I live?", now="2024-09-01")
    assert packet.facts and packet.chains == ()
    assert "CHAINS" not in packet.to_prompt()


def test_a_step_written_after_a_search_is_followed_by_the_next(memory):
    """Search sends only the (key, relation) lookups some fact has, from a set kept
    per graph version: a step written after a search must not be missed."""
    _pairs(memory, "kv", [("alpha", "bravo")])
    before = memory.search("kv", "What does key alpha finally map to?")
    assert not any(c.steps[0].subject == "alpha" for c in before.chains)
    _pairs(memory, "kv", [("bravo", "charlie")])
    packet = memory.search("kv", "What does key alpha finally map to?")
    chain = next(c for c in packet.chains if c.steps[0].subject == "alpha")
    assert [s.object for s in chain.steps] == ["bravo", "charlie"] and chain.verified_terminal
