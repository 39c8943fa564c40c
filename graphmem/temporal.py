"""Temporal operations on one user's graph: add a fact (merging or superseding),
read the facts true at T as known at K, and the version history of an entity
or a fact slot. The decisions are pure (`schema.supersession`, `schema.time`);
this module fetches, decides, writes."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from graphmem import queries as q
from graphmem.errors import NotFound
from graphmem.schema import time as t
from graphmem.schema.models import FactEdge, normalize_name
from graphmem.schema.records import AddFactResult, FactRecord, Timeline
from graphmem.schema.supersession import plan_closures
from graphmem.store import Store


def edge_from_row(row: dict[str, Any]) -> FactEdge:
    return FactEdge.from_props({k: v for k, v in row.items() if k in FactEdge.model_fields and v is not None})


def _same_value(a: FactEdge, b: FactEdge) -> bool:
    return a.name == b.name and a.target_node_uuid == b.target_node_uuid


def _restates(old: FactEdge, new: FactEdge) -> bool:
    """Same value and still open: the new statement is more evidence for it."""
    return _same_value(old, new) and old.expired_at is None


def insert_fact(
    store: Store,
    user_id: str,
    edge: FactEdge,
    embedding: Sequence[float] | None,
    *,
    single_valued: bool,
    now: datetime | None = None,
) -> AddFactResult:
    """Write `edge` into its slot: merge a restatement, close what it contradicts.

    A restatement (same subject, predicate and object, still open) only gains the
    new episodes. For a single-valued predicate every other open value is placed
    on the timeline by `plan_closures`; multi-valued predicates just add.
    """
    now = now or t.now_utc()
    slot = [edge_from_row(row) for row in store.run(user_id, q.slot_facts(edge.source_node_uuid, edge.slot))]
    same = [e for e in slot if _restates(e, edge)]
    if same:
        kept = same[0]
        store.run(user_id, q.merge_restatement(kept.uuid, edge.episodes, edge.valid_at))
        return AddFactResult(action="merged", fact_uuid=kept.uuid)
    closures = []
    if single_valued:
        others = [e for e in slot if not _same_value(e, edge)]
        closures = plan_closures(others, edge, now)
    store.run(user_id, q.create_fact(edge, embedding))
    for closure in closures:
        store.run(user_id, q.close_fact(closure))
    closed = tuple(c.uuid for c in closures)
    return AddFactResult(action="superseded" if closed else "added", fact_uuid=edge.uuid, closed=closed)


def _at_or_before(moment: datetime | None, k: datetime) -> bool:
    return moment is not None and moment <= k


def to_records(
    store: Store, user_id: str, rows: list[dict[str, Any]], *, now: datetime, known_at: datetime | None = None
) -> list[FactRecord]:
    """Rows of `FACT_VIEW` -> FactRecords with status, successor text and turn ids."""
    edges = [(edge_from_row(row), row["subject"], row["object"]) for row in rows]
    successors = {e.invalidated_by for e, _, _ in edges if e.invalidated_by}
    successor_text = {
        row["uuid"]: row["fact"] for row in store.run(user_id, q.facts_by_uuid(sorted(successors)), read_only=True)
    } if successors else {}
    episode_uuids = sorted({uuid for e, _, _ in edges for uuid in e.episodes})
    turn_ids = {
        row["uuid"]: row["name"] for row in store.run(user_id, q.episode_names(episode_uuids), read_only=True)
    } if episode_uuids else {}
    records = []
    for edge, subject, obj in edges:
        end = t.invalid_at_as_known(edge, known_at)
        superseded = edge.invalidated_by if end is not None else None
        records.append(
            FactRecord(
                uuid=edge.uuid,
                subject=subject,
                predicate=edge.name,
                object=obj,
                fact=edge.fact,
                valid_at=edge.valid_at,
                invalid_at=end,
                created_at=edge.created_at,
                expired_at=edge.expired_at if known_at is None or _at_or_before(edge.expired_at, known_at) else None,
                status=t.status_of(edge, now, known_at),
                superseded_by=superseded,
                superseded_by_fact=successor_text.get(superseded) if superseded else None,
                episodes=tuple(edge.episodes),
                source_turn_ids=tuple(turn_ids[u] for u in edge.episodes if u in turn_ids),
                derived_from=tuple(edge.derived_from),
                expires_at=edge.expires_at,
                importance=edge.importance,
                access_count=edge.access_count,
                last_accessed_at=edge.last_accessed_at,
                archived_at=edge.archived_at,
            )
        )
    return records


def facts_at(
    store: Store,
    user_id: str,
    *,
    valid_at: datetime | None,
    known_at: datetime | None,
    subject: str | None = None,
    now: datetime | None = None,
) -> list[FactRecord]:
    """Facts true at `valid_at` (default now) as known at `known_at` (default now)."""
    now = now or t.now_utc()
    if not store.has_graph(user_id):
        return []
    key = normalize_name(subject) if subject is not None else None
    rows = store.run(user_id, q.facts_at(valid_at or now, known_at, key), read_only=True)
    return to_records(store, user_id, rows, now=now, known_at=known_at)


def history(store: Store, user_id: str, entity_or_fact: str, *, now: datetime | None = None) -> Timeline:
    """Versions of one fact slot (given a fact uuid) or of an entity's facts.

    Ordered by predicate, then by start of validity; each version carries its
    range, status and what superseded it.
    """
    now = now or t.now_utc()
    if not store.has_graph(user_id):
        raise NotFound(f"user {user_id!r} has no memory")
    rows = store.run(user_id, q.facts_by_uuid([entity_or_fact]), read_only=True)
    if rows:
        fact = edge_from_row(rows[0])
        rows = store.run(user_id, q.slot_facts(fact.source_node_uuid, fact.slot), read_only=True)
        subject = rows[0]["subject"]
    else:
        found = store.run(user_id, q.find_entity(entity_or_fact, normalize_name(entity_or_fact)), read_only=True)
        if not found:
            raise NotFound(f"no entity or fact {entity_or_fact!r} in {user_id!r}'s memory")
        subject = found[0]["name"]
        rows = store.run(user_id, q.facts_of_entity(found[0]["uuid"]), read_only=True)
    records = to_records(store, user_id, rows, now=now)
    records.sort(key=lambda r: (r.predicate, r.valid_at or r.created_at, r.created_at))
    return Timeline(subject=subject, versions=tuple(records))
