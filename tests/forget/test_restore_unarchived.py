"""`restore` says True only when it brought an archived fact back."""

from __future__ import annotations


def test_restore_is_false_for_a_fact_never_archived_and_true_once_for_an_archived_one(memory):
    from graphmem.graph import cypher as q
    from graphmem.schema import time as t

    memory.add_fact("u", "user", "lives_in", "Oslo", valid_at="2024-01-01")
    [fact] = memory.facts("u")
    version = memory.store.run("u", q.graph_version())
    assert memory.restore("u", fact.uuid) is False
    assert memory.restore("u", "no-such-fact") is False and memory.restore("nobody", fact.uuid) is False
    assert memory.store.run("u", q.graph_version()) == version  # nothing changed, warm indexes stay
    memory.store.run("u", q.set_archived([fact.uuid], t.now_utc()))
    assert memory.facts("u")[0].archived_at is not None
    assert memory.restore("u", fact.uuid) is True
    assert memory.facts("u")[0].archived_at is None
    assert memory.restore("u", fact.uuid) is False
