"""Admission on every packet line: the pure rule and reasons (`retrieval.admission`),
then what search puts on each fact line."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from graphmem.retrieval.admission import (
    CHAIN_STEP, GRAPH_NEIGHBOUR, NAMED_ENTITY, SIMILAR_TEXT, TIME_MATCH, admit, reasons,
)
from graphmem.retrieval.query import analyze
from graphmem.retrieval.recipes import FactList, get_recipe
from graphmem.schema.records import FactRecord

NOW = datetime(2024, 9, 1, tzinfo=timezone.utc)
LINE = re.compile(r"^- \[\S+ -> \S+\] .+ \((current|ended|superseded[^)]*)\) \| source: turns .+ \| confidence \d\.\d\d"
                  r" \| scope \S+ \| expires \S+ \| reason: \S.*$")


def rec(**kw) -> FactRecord:
    base = dict(uuid="f1", subject="alice", predicate="LIVES_IN", object="Beijing", fact="alice lives in Beijing",
                valid_at=datetime(2024, 1, 1, tzinfo=timezone.utc), invalid_at=None,
                created_at=datetime(2024, 1, 1, tzinfo=timezone.utc), expired_at=None, status="current")
    return FactRecord(**(base | kw))


def test_superseded_expired_and_archived_facts_are_never_admitted_in_current_mode_even_without_the_time_filter():
    plan = analyze("Where does alice live?", NOW, entity_keys=["alice"])
    assert plan.mode == "current"
    assert admit(rec(), plan, NOW, time_filter=False)
    for bad in (rec(status="superseded", invalid_at=NOW - timedelta(days=9)), rec(expires_at=NOW - timedelta(days=1)),
                rec(archived_at=NOW - timedelta(days=1))):
        assert not admit(bad, plan, NOW, time_filter=False)
        assert not admit(bad, plan, NOW, time_filter=True)
    historical = analyze("Where did alice live before?", NOW, entity_keys=["alice"])
    assert admit(rec(status="superseded", invalid_at=NOW - timedelta(days=9)), historical, NOW)
    assert not admit(rec(expires_at=NOW - timedelta(days=1)), historical, NOW)


def test_reasons_name_the_signals_that_found_the_fact():
    named = analyze("Where does alice live?", NOW, entity_keys=["alice"])
    assert reasons(rec(), [FactList.BM25, FactList.BFS], named, {"f1": 1}) == (NAMED_ENTITY, SIMILAR_TEXT)
    anonymous = analyze("Where do I live?", NOW, entity_keys=["alice"])
    assert reasons(rec(), [FactList.BFS], anonymous, {"f1": 1}) == (GRAPH_NEIGHBOUR,)
    assert reasons(rec(), [FactList.VECTOR], anonymous, {}) == (SIMILAR_TEXT,)
    dated = analyze("Where did alice live in March 2024?", NOW, entity_keys=["alice"])
    assert dated.mode == "as_of" and TIME_MATCH in reasons(rec(), [FactList.BM25], dated, {})


def test_every_fact_line_carries_confidence_scope_expires_and_reason(memory):
    memory.add_fact("alice", "alice", "lives_in", "Beijing", valid_at="2024-03-01", confidence=0.6,
                    expires_at="2030-01-01")
    memory.write("alice", [{"role": "user", "content": "I adopted a cat named Luna."}], "2024-04-01")
    packet = memory.search("alice", "Where does alice live?", now=NOW)
    home = next(f for f in packet.facts if f.object == "Beijing")
    assert (home.confidence, home.scope, home.expires.date().isoformat()) == (0.6, "user", "2030-01-01")
    assert NAMED_ENTITY in home.reason
    extracted = next(f for f in memory.search("alice", "What pets do I have?", now=NOW).facts if "Luna" in f.fact)
    assert extracted.confidence == 0.8 and extracted.expires is None and extracted.reason
    prompt = packet.to_prompt()
    fact_lines = [f.line() for f in packet.facts]
    assert fact_lines and all(line in prompt.splitlines() and LINE.match(line) for line in fact_lines), fact_lines
    assert "| confidence 0.60 | scope user | expires 2030-01-01 | reason: named entity" in prompt


def test_a_superseded_fact_stays_out_of_current_mode_with_the_time_filter_off(memory):
    memory.add_fact("alice", "alice", "lives_in", "Beijing", valid_at="2024-03-01")
    memory.add_fact("alice", "alice", "lives_in", "Shanghai", valid_at="2024-06-01")
    no_time = get_recipe("hybrid_rrf").model_copy(update={"time_filter": False})
    packet = memory.search("alice", "Where does alice live?", now=NOW, recipe=no_time)
    assert [f.object for f in packet.facts if f.predicate == "LIVES_IN"] == ["Shanghai"]
    past = memory.search("alice", "Where did alice live before?", now=NOW, recipe=no_time)
    assert {f.object for f in past.facts if f.predicate == "LIVES_IN"} == {"Beijing", "Shanghai"}


def test_chain_steps_say_they_came_from_the_chain(memory):
    for key, value in [("alpha", "bravo"), ("bravo", "charlie")]:
        memory.add_fact("kv", key, "maps_to", value, valid_at=NOW - timedelta(days=1))
    packet = memory.search("kv", "What does alpha map to?", now=NOW)
    [chain] = [c for c in packet.chains if c.steps[0].subject == "alpha"]
    assert CHAIN_STEP not in chain.steps[0].reason and chain.steps[0].reason
    assert CHAIN_STEP in chain.steps[1].reason
