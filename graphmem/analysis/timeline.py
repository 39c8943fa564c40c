"""Every fact version about one entity as flat rows, ready for a plot or a DataFrame.

`Memory.history` returns the versions grouped by predicate; a timeline plot wants
them by start of validity, with the entity's role in each fact.
"""

from __future__ import annotations

from graphmem.graph import fact_repository
from graphmem.analysis.records import EntityTimeline, TimelineEntry
from graphmem.schema.models import normalize_name
from graphmem.schema.records import FactRecord, Timeline
from graphmem.graph.store import Store

def _start_key(entry: TimelineEntry) -> tuple:
    """Open starts first (they held from before anything recorded), then by start."""
    return (entry.start is not None, entry.start or entry.known_from, entry.known_from, entry.predicate, entry.uuid)


def entry_of(fact: FactRecord, entity: str) -> TimelineEntry:
    role = "subject" if normalize_name(fact.subject) == normalize_name(entity) else "object"
    return TimelineEntry(
        uuid=fact.uuid, role=role, subject=fact.subject, predicate=fact.predicate, object=fact.object,
        fact=fact.fact, start=fact.valid_at, end=fact.invalid_at, known_from=fact.created_at,
        known_until=fact.expired_at, status=fact.status, superseded_by=fact.superseded_by,
        superseded_by_fact=fact.superseded_by_fact, source_turn_ids=fact.source_turn_ids,
    )


def entries(history: Timeline) -> EntityTimeline:
    """Pure: a `Timeline` of versions -> rows ordered by start of validity."""
    rows = sorted((entry_of(f, history.subject) for f in history.versions), key=_start_key)
    return EntityTimeline(entity=history.subject, entries=tuple(rows))


def timeline(store: Store, user_id: str, entity: str) -> EntityTimeline:
    """Raises NotFound (from `fact_repository.history`) for an unknown user or entity."""
    return entries(fact_repository.history(store, user_id, entity))
