"""Restatements and bounded statements on a slot's timeline (the pure rules).

A restatement merges only into the interval of its value that it falls in or
reaches; a bounded one that runs past that interval's end stretches it; no
instant holds two values of a single-valued slot, nor one value twice.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from itertools import combinations, count

from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.schema.models import FactEdge
from graphmem.schema.slot_replay import Incoming, replay_slot
from graphmem.schema.supersession import Extension, moves_start_back, plan_placement

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
NOW = datetime(2030, 1, 1, tzinfo=timezone.utc)


def month(n: int) -> datetime:
    return T0 + timedelta(days=30 * n)


def fact(uuid: str, obj: str, start: int, end: int | None = None, **kw) -> FactEdge:
    return FactEdge(uuid=uuid, group_id="u", name="LIVES_IN", fact=f"lives in {obj}", source_node_uuid="me",
                    target_node_uuid=obj, valid_at=month(start), invalid_at=month(end) if end is not None else None,
                    created_at=T0 + timedelta(seconds=int(uuid.strip("abcdefghijklmnopqrstuvwxyz") or 0)), **kw)


def replay(statements, single_valued=True):
    """(object, start month, end month or None) statements in arrival order -> the slot's facts."""
    items = [Incoming(fact(f"f{n}", obj, start, end, episodes=[f"ep{n}"]), single_valued, NOW)
             for n, (obj, start, end) in enumerate(statements)]
    stated_at = {f"ep{n}": month(start) for n, (_, start, _) in enumerate(statements)}
    copies = count()
    return replay_slot([], items, stated_at, lambda: f"c{next(copies)}")


def values_at(facts, moment):
    return sorted(e.target_node_uuid for e in facts.values()
                  if e.valid_at <= moment and (e.invalid_at is None or moment < e.invalid_at))


def test_a_restatement_after_an_ended_interval_is_created_not_merged():
    placement = plan_placement([fact("a", "tea", 0, 2)], fact("b", "tea", 5), NOW, {}, "c")
    assert placement.merge_into is None


def test_a_restatement_inside_an_interval_merges_and_an_open_one_stretches_nothing():
    placement = plan_placement([fact("a", "acme", 0, 4)], fact("b", "acme", 2), NOW, {}, "c")
    assert placement.merge_into == "a" and placement.extensions == ()


def test_a_bounded_restatement_past_the_end_stretches_the_interval():
    placement = plan_placement([fact("a", "acme", 0, 4)], fact("b", "acme", 2, 9), NOW, {}, "c")
    assert placement.merge_into == "a" and placement.extensions == (Extension("a", month(9)),)


def test_the_stretch_stops_at_the_next_other_value():
    slot = [fact("a", "acme", 0, 4), fact("x", "initech", 6)]
    placement = plan_placement(slot, fact("b", "acme", 2, 9), NOW, {}, "c")
    assert placement.extensions == (Extension("a", month(6)),)


def test_a_bounded_earlier_statement_that_reaches_a_later_interval_moves_its_start_back():
    placement = plan_placement([fact("a", "oslo", 3, 4)], fact("b", "oslo", 0, 6), NOW, {}, "c")
    assert placement.merge_into == "a" and placement.extensions == (Extension("a", month(6)),)


def test_a_bounded_earlier_statement_that_stops_short_is_its_own_interval():
    placement = plan_placement([fact("a", "tea", 10)], fact("b", "tea", 0, 1), NOW, {}, "c")
    assert placement.merge_into is None and placement.closures == ()


def test_gaps_between_intervals_of_the_value_are_filled_without_overlap():
    facts = replay([("tea", 0, 2), ("tea", 4, 6), ("tea", 1, 9)], single_valued=False)
    spans = sorted((e.valid_at, e.invalid_at) for e in facts.facts.values())
    assert spans == [(month(0), month(4)), (month(4), month(9))]


statement = st.tuples(st.sampled_from(["oslo", "lima", "kyoto"]), st.integers(0, 12),
                      st.one_of(st.none(), st.integers(1, 8)))


def as_spans(raw):
    return [(obj, start, None if length is None else start + length) for obj, start, length in raw]


@settings(max_examples=300, deadline=None)
@given(st.lists(statement, min_size=1, max_size=10), st.booleans())
def test_no_instant_holds_two_values_or_one_value_twice(raw, single_valued):
    facts = replay(as_spans(raw), single_valued).facts
    for a, b in combinations(facts.values(), 2):
        if single_valued or a.target_node_uuid == b.target_node_uuid:
            a_end, b_end = a.invalid_at or NOW, b.invalid_at or NOW
            assert not (a.valid_at < b_end and b.valid_at < a_end and a.valid_at < a_end and b.valid_at < b_end), (a, b)


@settings(max_examples=300, deadline=None)
@given(st.lists(statement, min_size=1, max_size=10))
def test_no_span_of_a_multi_valued_statement_is_lost(raw):
    """A bounded statement holds over its whole span; an open one at least when it
    was said (merged into an interval someone ended, it does not undo that end)."""
    spans = as_spans(raw)
    facts = replay(spans, single_valued=False).facts
    for obj, start, end in spans:
        for m in range(start, (end if end is not None else start + 1)):
            assert obj in values_at(facts, month(m) + timedelta(days=1)), (obj, start, end, m)


@settings(max_examples=300, deadline=None)
@given(st.lists(statement, min_size=1, max_size=10, unique_by=lambda s: s[1]))
def test_each_single_valued_statement_holds_when_it_was_said(raw):
    """With one statement per moment, the value said at a moment is the one held then."""
    spans = as_spans(raw)
    facts = replay(spans).facts
    for obj, start, _ in spans:
        assert values_at(facts, month(start)) == [obj], (obj, start)


def test_a_restatement_moves_a_start_back_never_forward_even_from_a_stored_open_start():
    """A fact stored without a start (undated before 2026-12-05) sits where it was said; an
    undated restatement today once set its start to today, so it no longer held last year."""
    old = fact("berlin", "berlin", 6).model_copy(update={"valid_at": None, "created_at": month(6)})
    assert not moves_start_back(old, month(30)) and moves_start_back(old, month(2))
    dated = fact("paris", "paris", 6)
    assert moves_start_back(dated, month(5)) and not moves_start_back(dated, month(6))
    assert not moves_start_back(dated, None)
