"""The pure supersession planner."""

from __future__ import annotations

from datetime import datetime, timezone

from graphmem.schema.models import FactEdge
from graphmem.schema.supersession import plan_closures

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
