"""`Memory.diff`: what started, ended, was superseded and appeared between two dates."""

from __future__ import annotations

import pytest

from graphmem import InvalidInput


def test_a_moved_home_is_superseded_old_to_new(moved):
    d = moved.diff("u", "2024-05-01", "2024-09-01")
    [move] = [c for c in d.of_kind("superseded") if c.predicate == "LIVES_IN"]
    assert (move.subject, move.object, move.new_object) == ("user", "Beijing", "Shanghai")
    assert move.at.date().isoformat() == "2024-06-01", "the move happened 'last month' before the July session"
    assert "Shanghai" in move.new_fact and move.source_turn_ids == ("july#0",)
    started = {(c.predicate, c.object) for c in d.of_kind("started")}
    assert ("LIVES_IN", "Shanghai") not in started, "the new home is listed once, as the superseding fact"
    assert "Shanghai" in {c.subject for c in d.of_kind("appeared")}
    assert not {"Beijing", "Anna"} & {c.subject for c in d.of_kind("appeared")}, "they date from March"


def test_a_window_before_the_move_shows_what_started_then(moved):
    d = moved.diff("u", "2024-01-01", "2024-04-01")
    assert not d.of_kind("superseded") and not d.of_kind("ended")
    assert {(c.predicate, c.object) for c in d.of_kind("started")} >= {("LIVES_IN", "Beijing"), ("WORKS_AT", "Google")}
    assert {"Beijing", "Anna", "Google"} <= {c.subject for c in d.of_kind("appeared")}
    assert [c.at for c in d.changes] == sorted(c.at for c in d.changes)


def test_as_known_before_the_move_nothing_was_superseded(moved):
    then = moved.diff("u", "2024-05-01", "2024-09-01", known_at=moved.known_before_move)
    assert then.changes == (), "before the July write graphmem knew of no change after May"
    assert then.known_at == moved.known_before_move


def test_records_are_flat_dicts_for_a_table(moved):
    records = moved.diff("u", "2024-05-01", "2024-09-01").to_records()
    assert records and all(isinstance(r, dict) and {"kind", "at", "subject", "new_object"} <= set(r) for r in records)


def test_bad_windows_and_users_are_refused_and_unknown_users_have_no_changes(moved):
    with pytest.raises(InvalidInput):
        moved.diff("u", "2024-09-01", "2024-05-01")
    with pytest.raises(InvalidInput):
        moved.diff("u", "2024-05-01", "2024-05-01")
    with pytest.raises(InvalidInput):
        moved.diff("u", "not a date", "2024-05-01")
    with pytest.raises(InvalidInput):
        moved.diff("u}) DETACH DELETE n //", "2024-01-01", "2024-05-01")
    assert moved.diff("nobody", "2024-01-01", "2024-12-01").changes == ()
    assert "nobody" not in moved.users()
