"""`Memory.timeline`: every fact version about an entity, flat and in order."""

from __future__ import annotations

import pytest

from graphmem import InvalidInput, NotFound


def test_versions_in_order_of_validity_with_supersession(moved):
    line = moved.timeline("u", "user")
    lives = [e for e in line.entries if e.predicate == "LIVES_IN"]
    assert [(e.object, e.status) for e in lives] == [("Beijing", "superseded"), ("Shanghai", "current")]
    old, new = lives
    assert old.end == new.start and old.superseded_by == new.uuid and new.end is None
    assert old.known_until is not None and new.known_until is None
    starts = [e.start for e in line.entries]
    assert starts == sorted(starts)
    assert {e.role for e in line.entries} == {"subject"}


def test_an_object_entity_has_its_facts_too(moved):
    line = moved.timeline("u", "google")
    assert line.entity == "Google"
    assert [(e.subject, e.predicate, e.role) for e in line.entries] == [("Anna", "WORKS_AT", "object")]
    [record] = line.to_records()
    assert record["fact"] and record["start"].date().isoformat() == "2024-03-10"


def test_unknown_entities_and_bad_names(moved):
    with pytest.raises(NotFound):
        moved.timeline("u", "Atlantis")
    with pytest.raises(NotFound):
        moved.timeline("nobody", "user")
    with pytest.raises(InvalidInput):
        moved.timeline("u", "bad\x00name")
