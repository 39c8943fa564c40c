"""The pure supersession planner."""

from __future__ import annotations

from datetime import datetime, timezone

from graphmem.schema.models import FactEdge
from graphmem.schema.supersession import plan_closures, stated_start

NOW = datetime(2025, 1, 1, tzinfo=timezone.utc)


def fact(obj: str, month: int | None, **kw) -> FactEdge:
    valid = datetime(2024, month, 1, tzinfo=timezone.utc) if month else None
    return FactEdge(group_id="u", name="LIVES_IN", fact=obj, valid_at=valid,
                    source_node_uuid="me", target_node_uuid=obj, uuid=obj, **kw)


def test_newer_fact_closes_the_older_one_at_its_start():
    [closure] = plan_closures([fact("beijing", 3)], fact("shanghai", 6), NOW)
    assert (closure.uuid, closure.invalid_at.month, closure.invalidated_by) == ("beijing", 6, "shanghai")
    assert closure.expired_at == NOW


def test_older_incoming_fact_is_the_one_closed():
    [closure] = plan_closures([fact("shanghai", 6)], fact("beijing", 3), NOW)
    assert (closure.uuid, closure.invalid_at.month, closure.invalidated_by) == ("beijing", 6, "shanghai")


def test_already_ended_fact_is_left_alone():
    ended = fact("beijing", 3, invalid_at=datetime(2024, 5, 1, tzinfo=timezone.utc))
    assert plan_closures([ended], fact("shanghai", 6), NOW) == []


def test_retracted_facts_take_no_part():
    retracted = fact("beijing", 3, expired_at=NOW)
    assert plan_closures([retracted], fact("shanghai", 6), NOW) == []


def test_closed_fact_keeps_its_first_expiry_when_cut_shorter():
    first_expiry = datetime(2024, 9, 1, tzinfo=timezone.utc)
    beijing = fact("beijing", 3, invalid_at=datetime(2024, 8, 1, tzinfo=timezone.utc),
                   expired_at=first_expiry, invalidated_by="shanghai")
    closures = plan_closures([beijing, fact("shanghai", 8)], fact("tokyo", 6), NOW)
    by_uuid = {c.uuid: c for c in closures}
    assert by_uuid["beijing"].invalid_at.month == 6 and by_uuid["beijing"].expired_at == first_expiry
    assert by_uuid["tokyo"].invalid_at.month == 8 and by_uuid["tokyo"].invalidated_by == "shanghai"


# -- placement of restatements (issue 8) ---------------------------------------------

from datetime import timedelta  # noqa: E402
from itertools import combinations  # noqa: E402

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from graphmem.schema.supersession import Placement, plan_placement  # noqa: E402

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)


def said(obj: str, hour: int, n: int) -> FactEdge:
    """Statement number n: 'I live in <obj>' in a session at T0 + hour."""
    return FactEdge(group_id="u", name="LIVES_IN", fact=f"lives in {obj}", valid_at=T0 + timedelta(hours=hour),
                    source_node_uuid="me", target_node_uuid=obj, uuid=f"f{n}", episodes=[f"ep{n}"])


def apply(slot: dict[str, FactEdge], edge: FactEdge, placement: Placement) -> None:
    """What `fact_repository.apply_placement` writes, applied to a dict (the planner's model)."""
    if placement.merge_into:
        kept = slot[placement.merge_into]
        kept.episodes = kept.episodes + edge.episodes
        if edge.valid_at < kept.valid_at:
            kept.valid_at = edge.valid_at
    else:
        slot[edge.uuid] = edge.model_copy(deep=True)
    if placement.split:
        host = slot[placement.split.uuid]
        moved = set(placement.split.episodes)
        slot[placement.split.copy_uuid] = host.model_copy(
            update={"uuid": placement.split.copy_uuid, "valid_at": placement.split.at,
                    "episodes": [e for e in host.episodes if e in moved]}, deep=True)
        host.episodes = [e for e in host.episodes if e not in moved]
    for c in placement.closures:
        slot[c.uuid] = slot[c.uuid].model_copy(update={
            "invalid_at": c.invalid_at, "invalidated_by": c.invalidated_by, "expired_at": c.expired_at})


def replay(statements: list[tuple[str, int]]) -> dict[str, FactEdge]:
    """Feed (object, hour) statements in the given order through the planner."""
    slot: dict[str, FactEdge] = {}
    stated_at: dict[str, datetime] = {}
    for n, (obj, hour) in enumerate(statements):
        edge = said(obj, hour, n)
        stated_at[f"ep{n}"] = edge.valid_at
        apply(slot, edge, plan_placement(list(slot.values()), edge, NOW, stated_at, f"copy{n}"))
    return slot


def value_at(slot: dict[str, FactEdge], moment: datetime) -> list[str]:
    return [e.target_node_uuid for e in slot.values()
            if e.valid_at <= moment and (e.invalid_at is None or moment < e.invalid_at)]


def test_restatement_before_another_value_is_a_new_interval_not_a_stretched_one():
    """Issue 8: Porto at 01, Lisbon at 02, Lisbon again at 00 -> Lisbon, Porto, Lisbon."""
    slot = replay([("porto", 1), ("lisbon", 2), ("lisbon", 0)])
    assert value_at(slot, T0 + timedelta(minutes=30)) == ["lisbon"]
    assert value_at(slot, T0 + timedelta(minutes=90)) == ["porto"]
    assert value_at(slot, T0 + timedelta(hours=3)) == ["lisbon"]


def test_earlier_restatement_with_nothing_in_between_moves_the_start_back():
    slot = replay([("lisbon", 2), ("lisbon", 0)])
    assert len(slot) == 1 and slot["f0"].valid_at == T0 and slot["f0"].episodes == ["ep0", "ep1"]


def test_other_value_inside_a_restated_interval_splits_it():
    """Porto said at 01 and 03, then Lisbon at 02: Porto 01-02, Lisbon 02-03, Porto from 03."""
    slot = replay([("porto", 1), ("porto", 3), ("lisbon", 2)])
    assert [value_at(slot, T0 + timedelta(hours=h, minutes=30)) for h in (1, 2, 3)] == [["porto"], ["lisbon"], ["porto"]]
    later = next(e for e in slot.values() if e.target_node_uuid == "porto" and e.valid_at.hour == 3)
    assert later.episodes == ["ep1"] and later.invalid_at is None


statements = st.lists(
    st.tuples(st.sampled_from(["porto", "lisbon", "madrid"]), st.integers(0, 30)),
    min_size=1, max_size=12, unique_by=lambda s: s[1],
)


@settings(max_examples=200, deadline=None)
@given(statements, st.randoms(use_true_random=False))
def test_any_arrival_order_gives_one_value_per_instant_and_ends_at_the_latest(told, rng):
    """Each statement holds at its own hour; no instant holds two values."""
    arrival = list(told)
    rng.shuffle(arrival)
    slot = replay(arrival)
    spans = [(e.valid_at, e.invalid_at or T0 + timedelta(days=9)) for e in slot.values()]
    spans = [s for s in spans if s[0] < s[1]]
    assert not [(a, b) for a, b in combinations(spans, 2) if a[0] < b[1] and b[0] < a[1]]
    for obj, hour in told:
        assert value_at(slot, T0 + timedelta(hours=hour)) == [obj]
    latest = max(told, key=lambda s: s[1])
    assert value_at(slot, T0 + timedelta(days=5)) == [latest[0]]


def test_an_undated_fact_starts_when_it_was_said():
    june, july = datetime(2024, 6, 1, tzinfo=timezone.utc), datetime(2024, 7, 1, tzinfo=timezone.utc)
    assert stated_start(None, None, june, None) == june
    assert stated_start(None, july, june, None) == july
    assert stated_start(june, july, july, None) == june
    assert stated_start(None, None, july, june) is None  # said after its end: when it began is unknown
