"""What changed in a user's memory between two dates, as table rows.

The window is (t1, t2]: a fact *started* when its validity began after t1 and
by t2 (it is false at t1 and true at t2, unless it also ended), and *ended* when
its validity ended in the window. An ended fact that a newer one replaced is
*superseded*, one row old -> new, and the new fact is not listed again as
started. An entity *appeared* when the first fact or turn about it dates from
the window. Everything is as graphmem knew it at `known_at` (default now), so
the same question can be asked of what it believed last year.

Example:
    >>> [(c.kind, c.object, c.new_object) for c in diff(store, "alice", t1, t2, known_at=None).changes]
    [('superseded', 'Beijing', 'Shanghai'), ('appeared', None, None)]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

from graphmem.analysis.records import Change, Diff
from graphmem.graph.inspect import EntityRow, Inspector
from graphmem.schema import time as t
from graphmem.schema.records import FactRecord
from graphmem.graph.store import Store

KIND_ORDER = {"superseded": 0, "ended": 1, "started": 2, "appeared": 3}


def _inside(moment: datetime | None, t1: datetime, t2: datetime) -> bool:
    return moment is not None and t1 < moment <= t2


def fact_changes(versions: Sequence[FactRecord], t1: datetime, t2: datetime) -> list[Change]:
    """Pure: started, ended and superseded rows for the fact versions in (t1, t2]."""
    by_uuid = {f.uuid: f for f in versions}
    changes, successors = [], set()
    for old in versions:
        if not _inside(old.invalid_at, t1, t2):
            continue
        new = by_uuid.get(old.superseded_by) if old.superseded_by else None
        if new is not None:
            successors.add(new.uuid)
            changes.append(Change(
                kind="superseded", at=old.invalid_at, subject=old.subject, predicate=old.predicate,
                object=old.object, fact=old.fact, new_object=new.object, new_fact=new.fact, fact_uuid=old.uuid,
                new_fact_uuid=new.uuid, source_turn_ids=new.source_turn_ids,
            ))
        else:
            changes.append(Change(
                kind="ended", at=old.invalid_at, subject=old.subject, predicate=old.predicate, object=old.object,
                fact=old.fact, fact_uuid=old.uuid, source_turn_ids=old.source_turn_ids,
            ))
    changes += [
        Change(kind="started", at=f.valid_at, subject=f.subject, predicate=f.predicate, object=f.object, fact=f.fact,
               fact_uuid=f.uuid, source_turn_ids=f.source_turn_ids)
        for f in versions if _inside(f.valid_at, t1, t2) and f.uuid not in successors
    ]
    return changes


def first_seen(versions: Iterable[FactRecord], mentions: Mapping[str, Iterable[datetime]]) -> dict[str, datetime]:
    """Pure: entity name -> the earliest valid time of a fact about it or session time of a turn naming it."""
    seen: dict[str, datetime] = {}
    dated = [(name, f.valid_at) for f in versions if f.valid_at for name in (f.subject, f.object)]
    dated += [(name, moment) for name, moments in mentions.items() for moment in moments]
    for name, moment in dated:
        if name not in seen or moment < seen[name]:
            seen[name] = moment
    return seen


def appeared(first: Mapping[str, datetime], t1: datetime, t2: datetime) -> list[Change]:
    return [Change(kind="appeared", at=at, subject=name) for name, at in first.items() if _inside(at, t1, t2)]


def _order(change: Change) -> tuple:
    return (change.at, KIND_ORDER[change.kind], change.subject, change.predicate or "", change.object or "")


def _mention_times(inspector: Inspector, user_id: str, known: Sequence[EntityRow]) -> dict[str, list[datetime]]:
    """Entity name -> session times of the turns that mention it (entities known at K only)."""
    names = {e.name for e in known}
    when = {e.uuid: t.decode(e.valid_at) for e in inspector.episodes(user_id) if e.valid_at}
    times: dict[str, list[datetime]] = {}
    for m in inspector.mentions(user_id):
        if m.entity_name in names and m.episode in when:
            times.setdefault(m.entity_name, []).append(when[m.episode])
    return times


def diff(store: Store, user_id: str, t1: datetime, t2: datetime, *, known_at: datetime | None) -> Diff:
    """The changes in (t1, t2] as known at `known_at`; t1 < t2 is the caller's check."""
    inspector = Inspector(store)
    versions = inspector.fact_versions(user_id, known_at=known_at)
    known = [e for e in inspector.entities(user_id)
             if known_at is None or (e.created_at is not None and t.decode(e.created_at) <= known_at)]
    first = first_seen(versions, _mention_times(inspector, user_id, known))
    first = {name: at for name, at in first.items() if name in {e.name for e in known}}
    changes = fact_changes(versions, t1, t2) + appeared(first, t1, t2)
    return Diff(t1=t1, t2=t2, known_at=known_at, changes=tuple(sorted(changes, key=_order)))
