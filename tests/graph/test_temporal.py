"""Bi-temporal behaviour through the store API, on embedded FalkorDB and a server."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

import pytest

from graphmem import NotFound
from graphmem.schema.time import now_utc

MARCH, APRIL, JUNE, AUG = "2024-03-01", "2024-04-15", "2024-06-01", "2024-08-01"


def objects(facts):
    return sorted(f.object for f in facts)


def by_object(facts):
    return {f.object: f for f in facts}


def test_supersede_closes_the_old_fact_and_keeps_it(any_memory):
    mem = any_memory
    first = mem.add_fact("u1", "me", "lives_in", "Beijing", valid_at=MARCH)
    second = mem.add_fact("u1", "me", "lives_in", "Shanghai", valid_at=JUNE)
    assert (first.action, second.action) == ("added", "superseded")
    assert second.closed == (first.fact_uuid,)

    assert objects(mem.facts("u1")) == ["Shanghai"]
    versions = by_object(mem.history("u1", "me").versions)
    beijing = versions["Beijing"]
    assert beijing.status == "superseded"
    assert beijing.valid_at == datetime(2024, 3, 1, tzinfo=timezone.utc)
    assert beijing.invalid_at == datetime(2024, 6, 1, tzinfo=timezone.utc)
    assert beijing.superseded_by == second.fact_uuid
    assert beijing.expired_at is not None
    assert versions["Shanghai"].status == "current" and versions["Shanghai"].invalid_at is None


def test_out_of_order_contradiction_closes_the_incoming_fact(any_memory):
    mem = any_memory
    shanghai = mem.add_fact("u1", "me", "lives_in", "Shanghai", valid_at=JUNE)
    beijing = mem.add_fact("u1", "me", "lives_in", "Beijing", valid_at=MARCH)
    assert beijing.closed == (beijing.fact_uuid,)
    assert objects(mem.facts("u1")) == ["Shanghai"]
    old = by_object(mem.history("u1", "me").versions)["Beijing"]
    assert (old.valid_at.month, old.invalid_at.month) == (3, 6)
    assert old.superseded_by == shanghai.fact_uuid
    assert objects(mem.facts("u1", valid_at=APRIL)) == ["Beijing"]


def test_out_of_order_fact_lands_between_two_versions(any_memory):
    mem = any_memory
    mem.add_fact("u1", "me", "lives_in", "Beijing", valid_at=MARCH)
    mem.add_fact("u1", "me", "lives_in", "Shanghai", valid_at=AUG)
    mem.add_fact("u1", "me", "lives_in", "Tokyo", valid_at=JUNE)
    ranges = {f.object: (f.valid_at.month, f.invalid_at.month if f.invalid_at else None)
              for f in mem.history("u1", "me").versions}
    assert ranges == {"Beijing": (3, 6), "Tokyo": (6, 8), "Shanghai": (8, None)}


def test_true_at_t(any_memory):
    mem = any_memory
    mem.add_fact("u1", "me", "lives_in", "Beijing", valid_at=MARCH)
    mem.add_fact("u1", "me", "lives_in", "Shanghai", valid_at=JUNE)
    assert objects(mem.facts("u1", valid_at="2024-02-01")) == []
    assert objects(mem.facts("u1", valid_at=MARCH)) == ["Beijing"]
    assert objects(mem.facts("u1", valid_at=APRIL)) == ["Beijing"]
    assert objects(mem.facts("u1", valid_at=JUNE)) == ["Shanghai"]  # invalid_at is exclusive
    assert objects(mem.facts("u1", valid_at="2030-01-01")) == ["Shanghai"]


def test_known_at_before_the_contradiction_sees_beijing_open_ended(any_memory):
    mem = any_memory
    mem.add_fact("u1", "me", "lives_in", "Beijing", valid_at=MARCH)
    time.sleep(0.01)
    k = now_utc()
    time.sleep(0.01)
    mem.add_fact("u1", "me", "lives_in", "Shanghai", valid_at=JUNE)

    then = mem.facts("u1", valid_at=AUG, known_at=k)
    assert objects(then) == ["Beijing"]
    assert then[0].invalid_at is None and then[0].status == "current"
    assert objects(mem.facts("u1", valid_at=AUG)) == ["Shanghai"]
    assert objects(mem.facts("u1", valid_at=APRIL, known_at=now_utc())) == ["Beijing"]
    before_anything = mem.facts("u1", valid_at=AUG, known_at=k - timedelta(days=1))
    assert before_anything == []


def test_fact_without_valid_at_starts_when_it_was_written(any_memory):
    """Decided 2026-12-05: an open start let an undated value hold at every past
    instant, beside the value it had closed (README "Time semantics")."""
    mem = any_memory
    before = now_utc()
    mem.add_fact("u1", "me", "likes", "tea", single_valued=False)
    assert objects(mem.facts("u1", valid_at="1990-01-01")) == []
    fact = mem.facts("u1")[0]
    assert fact.valid_at >= before and fact.status == "current"


def test_undated_fact_is_superseded_by_a_dated_one(any_memory):
    mem = any_memory
    mem.add_fact("u1", "me", "works_at", "Acme")
    mem.add_fact("u1", "me", "works_at", "Globex", valid_at="2999-01-01")
    assert objects(mem.facts("u1")) == ["Acme"]
    assert objects(mem.facts("u1", valid_at="2999-06-01")) == ["Globex"]


def test_restatement_merges_instead_of_duplicating(any_memory):
    mem = any_memory
    first = mem.add_fact("u1", "me", "lives_in", "Shanghai", valid_at=AUG, episodes=["e1"])
    again = mem.add_fact("u1", "me", "lives_in", "shanghai", valid_at=JUNE, episodes=["e2"])
    assert again.action == "merged" and again.fact_uuid == first.fact_uuid
    [fact] = mem.facts("u1")
    assert fact.episodes == ("e1", "e2")
    assert fact.valid_at.month == 6


def test_multi_valued_predicates_do_not_supersede(any_memory):
    mem = any_memory
    mem.add_fact("u1", "me", "likes", "tea", valid_at=MARCH, single_valued=False)
    mem.add_fact("u1", "me", "likes", "jazz", valid_at=JUNE, single_valued=False)
    assert objects(mem.facts("u1")) == ["jazz", "tea"]


def test_aware_and_naive_datetimes_are_normalised_to_utc(any_memory):
    mem = any_memory
    beijing_tz = timezone(timedelta(hours=8))
    mem.add_fact("u1", "me", "lives_in", "Beijing", valid_at=datetime(2024, 3, 1, 8, 0, tzinfo=beijing_tz))
    mem.add_fact("u1", "me", "lives_in", "Shanghai", valid_at=datetime(2024, 6, 1, 0, 0))  # naive = UTC
    history = by_object(mem.history("u1", "me").versions)
    assert history["Beijing"].valid_at == datetime(2024, 3, 1, 0, 0, tzinfo=timezone.utc)
    assert history["Beijing"].invalid_at == datetime(2024, 6, 1, 0, 0, tzinfo=timezone.utc)
    assert objects(mem.facts("u1", valid_at=datetime(2024, 6, 1, 7, 59, tzinfo=beijing_tz))) == ["Beijing"]
    assert objects(mem.facts("u1", valid_at=datetime(2024, 6, 1, 8, 0, tzinfo=beijing_tz))) == ["Shanghai"]


def test_history_of_a_fact_slot_by_uuid(any_memory):
    mem = any_memory
    mem.add_fact("u1", "me", "lives_in", "Beijing", valid_at=MARCH)
    current = mem.add_fact("u1", "me", "lives_in", "Shanghai", valid_at=JUNE)
    mem.add_fact("u1", "me", "works_at", "Acme", valid_at=MARCH)
    timeline = mem.history("u1", current.fact_uuid)
    assert [v.object for v in timeline.versions] == ["Beijing", "Shanghai"]
    assert timeline.versions[0].superseded_by_fact == "me lives in Shanghai"


def test_history_of_unknown_things_is_not_found(any_memory):
    mem = any_memory
    with pytest.raises(NotFound):
        mem.history("nobody", "me")
    mem.add_fact("u1", "me", "lives_in", "Beijing")
    with pytest.raises(NotFound):
        mem.history("u1", "Atlantis")


def test_unknown_user_has_no_facts_and_no_graph_is_created(any_memory):
    assert any_memory.facts("ghost") == []
    assert "ghost" not in any_memory.users()


def test_facts_about_one_subject(any_memory):
    mem = any_memory
    mem.add_fact("u1", "Alice", "lives_in", "Oslo")
    mem.add_fact("u1", "Bob", "lives_in", "Lima")
    assert objects(mem.facts("u1", subject="alice")) == ["Oslo"]
    assert mem.facts("u1", subject="Nobody") == []
