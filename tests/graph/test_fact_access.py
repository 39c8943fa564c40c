"""Access statistics live in a `FactAccess` record per fact, not on the indexed fact
edge (a SET there re-indexes the edge: the slowest step of a search). Everything
that read them from the edge still sees them; erasing a fact erases its record."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from graphmem import Memory, Settings
from graphmem.graph import cypher as q
from graphmem.graph.cypher import Query
from graphmem.schema import time as t

NOW = "2030-01-01"


def _records(mem: Memory, user: str) -> dict[str, int]:
    rows = mem.store.run(user, Query("MATCH (a:FactAccess) RETURN a.uuid AS uuid, a.access_count AS n", {}))
    return {r["uuid"]: r["n"] for r in rows}


def _edge_counts(mem: Memory, user: str) -> list:
    return [r["n"] for r in mem.store.run(user, Query("MATCH ()-[r:RELATES_TO]->() RETURN r.access_count AS n", {}))]


def test_search_counts_accesses_in_records_not_on_the_edge(memory):
    jazz = memory.add_fact("u", "user", "likes", "jazz", single_valued=False).fact_uuid
    memory.add_fact("u", "user", "likes", "hiking", single_valued=False)
    for _ in range(2):
        assert [f.uuid for f in memory.search("u", "Do I like jazz?", now=NOW, limit=1).facts] == [jazz]
    assert _records(memory, "u") == {jazz: 2}
    assert _edge_counts(memory, "u") == [0, 0], "the edge keeps the count it was created with"
    facts = {f.uuid: f for f in memory.facts("u")}
    assert facts[jazz].access_count == 2 and facts[jazz].last_accessed_at is not None
    assert [f.access_count for u, f in facts.items() if u != jazz] == [0]
    assert {v.uuid: v.access_count for v in memory.history("u", jazz).versions} == {u: f.access_count for u, f in facts.items()}


def test_capacity_keeps_the_accessed_fact(tmp_path, embedder):
    with Memory(settings=Settings(data_dir=tmp_path / "gm", capacity_per_user=2), embedder=embedder) as mem:
        jazz = mem.add_fact("u", "user", "likes", "jazz", importance=0.4, single_valued=False).fact_uuid
        hiking = mem.add_fact("u", "user", "likes", "hiking", importance=0.5, single_valued=False).fact_uuid
        assert [f.uuid for f in mem.search("u", "Do I like jazz?", now=NOW, limit=1).facts] == [jazz]
        mem.add_fact("u", "user", "allergic_to", "peanuts", importance=0.9, single_valued=False)
        archived = {f.uuid for f in mem.facts("u") if f.archived_at is not None}
        assert archived == {hiking}, "without its access, jazz (importance 0.4) would be the one archived"


def test_forget_and_purge_erase_the_records(memory):
    jazz = memory.add_fact("u", "user", "likes", "jazz", single_valued=False).fact_uuid
    soon = memory.add_fact("u", "user", "visits", "Rome", single_valued=False,
                           expires_at="2029-06-01").fact_uuid
    tea = memory.add_fact("u", "user", "drinks", "green tea", single_valued=False).fact_uuid
    memory.search("u", "What do I like, drink and visit?", now="2029-01-01")
    assert set(_records(memory, "u")) == {jazz, soon, tea}
    memory.forget("u", {"fact": jazz})
    assert set(_records(memory, "u")) == {soon, tea}
    assert memory.purge("u", now="2029-07-01") == 1
    assert set(_records(memory, "u")) == {tea}


def test_touch_of_a_fact_deleted_meanwhile_leaves_no_record(memory):
    jazz = memory.add_fact("u", "user", "likes", "jazz", single_valued=False).fact_uuid
    memory.store.run("u", q.touch_facts([jazz, "no-such-fact"], t.now_utc()))
    memory.forget("u", {"fact": jazz})
    memory.store.run("u", q.touch_facts([jazz], t.now_utc()))
    assert _records(memory, "u") == {}


@pytest.mark.parametrize("bulk", [False, True])
def test_a_split_copy_keeps_the_originals_accesses(memory, bulk):
    """Oslo said in January and again in May, Lima said in March: Oslo is cut in two
    (`split_fact`, or `clone_facts` in bulk), and both parts keep Oslo's accesses."""
    days = ("2024-01-01", "2024-03-01", "2024-05-01")
    for i, day in enumerate(days):
        memory.write("u", [{"role": "user", "content": f"Good morning number {i}."}], day, session_id=f"s{i}")
    eps = {e.turn_id: e.uuid for e in memory.inspect().episodes("u")}
    row = lambda obj, i: {"subject": "me", "predicate": "lives_in", "object": obj, "valid_at": days[i],  # noqa: E731
                          "episodes": [eps[f"s{i}#0"]]}
    oslo = [memory.add_fact("u", **row("Oslo", i)).fact_uuid for i in (0, 2)][0]
    memory.store.run("u", q.touch_facts([oslo], t.now_utc()))
    memory.store.run("u", q.touch_facts([oslo], t.now_utc()))
    if bulk:
        memory.add_facts("u", [row("Lima", 1)])
    else:
        memory.add_fact("u", **row("Lima", 1))
    parts = [f for f in memory.history("u", oslo).versions if f.object == "Oslo"]
    assert len(parts) == 2, "Lima splits Oslo's interval"
    assert [f.access_count for f in parts] == [2, 2]
    assert set(_records(memory, "u")) == {f.uuid for f in parts}


def test_rebuild_erases_the_records_of_dropped_facts(memory):
    memory.write("u", [{"role": "user", "content": "I adopted a cat named Luna."}], session_time="2024-01-01")
    assert memory.search("u", "What is my cat called?", now=NOW).facts
    assert _records(memory, "u")
    memory.rebuild("u")
    stored = {r["uuid"] for r in memory.store.run("u", Query("MATCH ()-[r:RELATES_TO]->() RETURN r.uuid AS uuid", {}))}
    assert set(_records(memory, "u")) <= stored
    assert not set(_records(memory, "u")), "the extracted facts were re-derived with new uuids"


def test_a_graph_stored_before_access_records_keeps_its_counts(tmp_path, embedder):
    """Older graphs kept the counts on the edge and have no FactAccess index."""
    with Memory(data_dir=tmp_path / "gm", embedder=embedder) as mem:
        jazz = mem.add_fact("u", "user", "likes", "jazz", single_valued=False).fact_uuid
        mem.store.run("u", Query("DROP INDEX ON :FactAccess(uuid)", {}))
        mem.store.run("u", Query("MATCH ()-[r:RELATES_TO]->() SET r.access_count = 3, r.last_accessed_at = $at",
                                 {"at": t.encode(datetime(2024, 1, 1, tzinfo=timezone.utc))}))
    with Memory(data_dir=tmp_path / "gm", embedder=embedder) as mem:
        assert mem.facts("u")[0].access_count == 3
        mem.search("u", "Do I like jazz?", now=NOW)
        fact = mem.facts("u")[0]
        assert fact.uuid == jazz and fact.access_count == 4
        assert fact.last_accessed_at > datetime(2025, 1, 1, tzinfo=timezone.utc)
        labels = [r["label"] for r in mem.store.run("u", Query("CALL db.indexes() YIELD label RETURN label", {}))]
        assert "FactAccess" in labels
