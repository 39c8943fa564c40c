"""What forgetting gives back to the facts the forgotten ones closed (the pure rule).

Only the closure is undone: a fact gets back its own end, or ends where the next
remaining fact of its slot starts; no instant holds two values afterwards.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from itertools import combinations, count

from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.schema.models import FactEdge
from graphmem.schema.slot_replay import Incoming, replay_slot
from graphmem.schema.supersession import Closure, closed_by, plan_reopenings

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
NOW = datetime(2030, 1, 1, tzinfo=timezone.utc)


def month(n: int) -> datetime:
    return T0 + timedelta(days=30 * n)


def fact(uuid: str, obj: str, start: int, end: int | None = None, written: int = 0) -> FactEdge:
    return FactEdge(uuid=uuid, group_id="u", name="LIVES_IN", fact=f"lives in {obj}", source_node_uuid="me",
                    target_node_uuid=obj, valid_at=month(start), invalid_at=month(end) if end is not None else None,
                    created_at=NOW + timedelta(days=written), episodes=[f"ep-{uuid}"])


def test_a_closure_keeps_the_end_the_fact_had_and_a_second_one_does_not_overwrite_it():
    acme = fact("acme", "acme", 0, 24)
    once = closed_by(acme, Closure("acme", month(12), "initech", NOW))
    twice = closed_by(once, Closure("acme", month(6), "globex", NOW))
    assert once.own_invalid_at == month(24) and twice.own_invalid_at == month(24)
    assert twice.invalid_at == month(6) and twice.invalidated_by == "globex"


def test_the_fact_before_a_forgotten_one_ends_where_the_next_remaining_one_starts():
    beijing = closed_by(fact("beijing", "beijing", 0, written=0), Closure("beijing", month(12), "shanghai", NOW))
    shanghai = closed_by(fact("shanghai", "shanghai", 12, written=1), Closure("shanghai", month(24), "tokyo", NOW))
    tokyo = fact("tokyo", "tokyo", 24, written=2)
    [back] = plan_reopenings([beijing, shanghai, tokyo], {"shanghai"})
    assert (back.uuid, back.invalid_at, back.invalidated_by) == ("beijing", month(24), "tokyo")
    assert back.expired_at == tokyo.created_at and back.own_invalid_at is None


def test_another_value_beside_a_multi_valued_fact_an_llm_closed_does_not_cut_it():
    """LIKES jazz since month 0, LIKES tea from 4, closed at 8 by an LLM decision for
    "likes coffee". Forgetting coffee gives tea its open end back: jazz held beside tea,
    so the slot is multi-valued, and jazz (starting before or after tea) ends nothing."""
    for jazz_start in (0, 6):
        jazz = fact("jazz", "jazz", jazz_start)
        tea = closed_by(fact("tea", "tea", 4, written=1), Closure("tea", month(8), "coffee", NOW))
        coffee = fact("coffee", "coffee", 8, written=2)
        [back] = plan_reopenings([jazz, tea, coffee], {"coffee"})
        assert (back.uuid, back.invalid_at, back.invalidated_by) == ("tea", None, None), jazz_start


def test_a_fact_gets_back_its_own_end_when_nothing_starts_before_it():
    acme = closed_by(fact("acme", "acme", 0, 24), Closure("acme", month(12), "initech", NOW))
    [back] = plan_reopenings([acme, fact("initech", "initech", 12)], {"initech"})
    assert (back.invalid_at, back.invalidated_by, back.expired_at) == (month(24), None, None)


def test_facts_closed_by_remaining_facts_are_left_alone():
    beijing = closed_by(fact("beijing", "beijing", 0), Closure("beijing", month(12), "shanghai", NOW))
    assert plan_reopenings([beijing, fact("shanghai", "shanghai", 12), fact("x", "x", 30)], {"x"}) == []


statement = st.tuples(st.sampled_from(["oslo", "lima", "kyoto"]), st.integers(0, 12),
                      st.one_of(st.none(), st.integers(1, 8)))


def spans_overlap(a: FactEdge, b: FactEdge) -> bool:
    a_end, b_end = a.invalid_at or NOW, b.invalid_at or NOW
    return a.valid_at < a_end and b.valid_at < b_end and a.valid_at < b_end and b.valid_at < a_end


@settings(max_examples=300, deadline=None)
@given(st.lists(statement, min_size=1, max_size=10), st.data())
def test_after_any_adds_and_any_forget_no_instant_holds_two_values(raw, data):
    items = [Incoming(fact(f"f{n}", obj, start, None if length is None else start + length, written=n), True,
                      NOW + timedelta(days=n)) for n, (obj, start, length) in enumerate(raw)]
    stated_at = {f"ep-f{n}": month(start) for n, (_, start, _) in enumerate(raw)}
    copies = count()
    facts = replay_slot([], items, stated_at, lambda: f"c{next(copies)}").facts
    gone = set(data.draw(st.lists(st.sampled_from(sorted(facts)), max_size=len(facts), unique=True)))
    for r in plan_reopenings(list(facts.values()), gone):
        facts[r.uuid] = facts[r.uuid].model_copy(update={
            "invalid_at": r.invalid_at, "invalidated_by": r.invalidated_by, "expired_at": r.expired_at,
            "own_invalid_at": r.own_invalid_at})
    kept = [e for uuid, e in facts.items() if uuid not in gone]
    assert not [(a.uuid, b.uuid) for a, b in combinations(kept, 2) if spans_overlap(a, b)]
    assert not [e.uuid for e in kept if e.invalidated_by in gone]
    assert plan_reopenings(kept, gone) == []
