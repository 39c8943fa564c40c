"""Temporal operations on one user's graph: add a fact (merging its endpoints by
name, then merging or superseding on its slot), read the facts true at T as known at K, and the version history of an entity
or a fact slot. The decisions are pure (`schema.supersession`, `schema.time`);
this module fetches, decides, writes."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

from graphmem.graph import cypher as q
from graphmem.schema.errors import NotFound
from graphmem.schema import time as t
from graphmem.schema.models import EntityNode, FactEdge, new_uuid, normalize_name
from graphmem.schema.records import AddFactResult, FactRecord, Timeline
from graphmem.schema.slot_replay import Incoming, place_one
from graphmem.schema.supersession import Placement
from graphmem.graph.store import Store


_EDGE_FIELDS = frozenset(FactEdge.model_fields)  # read once: pydantic builds the mapping on every class access


def edge_from_row(row: dict[str, Any]) -> FactEdge:
    return FactEdge.from_props({k: v for k, v in row.items() if k in _EDGE_FIELDS and v is not None})


def _stated_at(store: Store, user_id: str, slot: Sequence[FactEdge]) -> dict[str, datetime]:
    """Episode uuid -> session time, for every episode that stated a slot fact."""
    uuids = sorted({ep for e in slot for ep in e.episodes})
    if not uuids:
        return {}
    rows = store.run(user_id, q.episode_times(uuids), read_only=True)
    return {row["uuid"]: t.decode(row["valid_at"]) for row in rows if row["valid_at"]}


def place(
    store: Store, user_id: str, edge: FactEdge, *, single_valued: bool, now: datetime
) -> Placement:
    """Read the slot and decide where `edge` goes (no writes)."""
    slot = [edge_from_row(row) for row in store.run(user_id, q.slot_facts(edge.source_node_uuid, edge.slot))]
    stated_at = _stated_at(store, user_id, slot) if single_valued else {}
    return place_one(slot, Incoming(edge, single_valued, now), stated_at, new_uuid() if single_valued else "")


def apply_placement(
    store: Store, user_id: str, edge: FactEdge, embedding: Sequence[float] | None, placement: Placement, now: datetime
) -> AddFactResult:
    """Write what `place` decided: merge or create, then split, then close, then extend."""
    if placement.merge_into:
        store.run(user_id, q.merge_restatement(placement.merge_into, edge.episodes, edge.valid_at, now))
    else:
        store.run(user_id, q.create_fact(edge, embedding))
    if placement.split is not None:
        store.run(user_id, q.split_fact(placement.split, now))
    for closure in placement.closures:
        store.run(user_id, q.close_fact(closure, now))
    for extension in placement.extensions:
        store.run(user_id, q.extend_fact(extension, now))
    closed = tuple(c.uuid for c in placement.closures)
    if placement.merge_into:
        return AddFactResult(action="merged", fact_uuid=placement.merge_into, closed=closed)
    return AddFactResult(action="superseded" if closed else "added", fact_uuid=edge.uuid, closed=closed)


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

    For a single-valued predicate the fact is placed on the slot's timeline by
    `plan_placement` (a restatement that lands before another value's interval
    is a new interval, not a stretched one); multi-valued predicates merge a
    restatement of an open fact and otherwise just add. The caller holds the
    user's lock, so the slot cannot change between the read and the writes.
    """
    now = now or t.now_utc()
    placement = place(store, user_id, edge, single_valued=single_valued, now=now)
    return apply_placement(store, user_id, edge, embedding, placement, now)


def merge_entity(store: Store, user_id: str, name: str, embedding: Sequence[float]) -> str:
    """The uuid of the entity named `name` (normalised), created with `embedding` if new."""
    rows = store.run(user_id, q.merge_entity(EntityNode(group_id=user_id, name=name), list(embedding)))
    return rows[0]["uuid"]


def add_fact(
    store: Store,
    user_id: str,
    edge: FactEdge,
    vectors: Sequence[Sequence[float]],
    *,
    subject: str,
    object: str,
    single_valued: bool,
) -> AddFactResult:
    """`Memory.add_fact` under the lock: merge the subject and object entities by
    name, point `edge` at them and place it on its slot's timeline (`insert_fact`),
    then bump the graph version. `vectors` are (subject, object, fact) embeddings;
    `edge`'s own endpoint uuids are replaced."""
    source = merge_entity(store, user_id, subject, vectors[0])
    target = merge_entity(store, user_id, object, vectors[1])
    placed = edge.model_copy(update={"source_node_uuid": source, "target_node_uuid": target})
    result = insert_fact(store, user_id, placed, list(vectors[2]), single_valued=single_valued)
    store.run(user_id, q.bump_version())
    return result


def _at_or_before(moment: datetime | None, k: datetime) -> bool:
    return moment is not None and moment <= k


def access_stats(store: Store, user_id: str, uuids: Sequence[str] | None = None
                 ) -> dict[str, tuple[int, datetime | None]]:
    """Fact uuid -> (access count, last access) from the facts' access records
    (`cypher.facts.ACCESS`), for these facts or (None) every fact."""
    if uuids is not None and not uuids:
        return {}
    rows = store.run(user_id, q.access_of(uuids), read_only=True)
    return {row["uuid"]: (int(row["access_count"] or 0), t.decode(row["last_accessed_at"])) for row in rows}


def merged_access(count: int, last: datetime | None, record: tuple[int, datetime | None] | None
                  ) -> tuple[int, datetime | None]:
    """Counts kept on the fact edge by graphs stored before access records, plus the record's."""
    if record is None:
        return count, last
    return count + record[0], max((x for x in (last, record[1]) if x is not None), default=None)


def to_records(
    store: Store, user_id: str, rows: list[dict[str, Any]], *, now: datetime, known_at: datetime | None = None,
    access: bool = True,
) -> list[FactRecord]:
    """Rows of `FACT_VIEW` -> FactRecords with status, successor text and turn ids;
    `access=False` leaves out the access records (search ranks without them, and
    saves the round trip), so the counts are then only those an older graph kept on the edge."""
    edges = [(edge_from_row(row), row["subject"], row["object"]) for row in rows]
    accessed = access_stats(store, user_id, [e.uuid for e, _, _ in edges]) if access else {}
    successor_text, turn_ids = _decorations(store, user_id, [e for e, _, _ in edges], known_at)
    return [_record(edge, subject, obj, now=now, known_at=known_at, accessed=accessed,
                    successor_text=successor_text, turn_ids=turn_ids) for edge, subject, obj in edges]


def first_records(
    store: Store, user_id: str, rows: Iterable[dict[str, Any]], keep: Callable[[FactRecord], bool], limit: int,
    *, now: datetime, known_at: datetime | None = None,
) -> list[FactRecord]:
    """The first `limit` records `keep` accepts, in row order: what
    ``[r for r in to_records(rows, access=False) if keep(r)][:limit]`` gives. No
    row is read after the `limit`-th kept one (`rows` may fetch as it is read).

    Why: search fetches 40 candidate facts to fill 10 lines, and turning a row into
    a record (two pydantic models) was its largest Python cost; rows are turned
    only until `limit` are kept, and only the kept look up their successors'
    text and turn ids. `keep` must not read `superseded_by_fact` or
    `source_turn_ids`, which the records it sees do not have yet.
    """
    kept: list[tuple[FactEdge, str, str]] = []
    for row in rows:
        if len(kept) >= limit:
            break
        edge = edge_from_row(row)
        if keep(_record(edge, row["subject"], row["object"], now=now, known_at=known_at, accessed={},
                        successor_text={}, turn_ids={})):
            kept.append((edge, row["subject"], row["object"]))
    successor_text, turn_ids = _decorations(store, user_id, [e for e, _, _ in kept], known_at)
    return [_record(edge, subject, obj, now=now, known_at=known_at, accessed={},
                    successor_text=successor_text, turn_ids=turn_ids) for edge, subject, obj in kept]


def _decorations(store: Store, user_id: str, edges: Sequence[FactEdge],
                 known_at: datetime | None = None) -> tuple[dict[str, str], dict[str, str]]:
    """(successor uuid -> its fact text, episode uuid -> turn id) for `edges`, the successors
    as known at `known_at` (`time.superseded_by_as_known`)."""
    successors = {by for e in edges if (by := t.superseded_by_as_known(e, known_at))}
    successor_text = {
        row["uuid"]: row["fact"] for row in store.run(user_id, q.facts_by_uuid(sorted(successors)), read_only=True)
    } if successors else {}
    episode_uuids = sorted({uuid for e in edges for uuid in e.episodes})
    turn_ids = {
        row["uuid"]: row["name"] for row in store.run(user_id, q.episode_names(episode_uuids), read_only=True)
    } if episode_uuids else {}
    return successor_text, turn_ids


def _record(edge: FactEdge, subject: str, obj: str, *, now: datetime, known_at: datetime | None,
            accessed: dict[str, tuple[int, datetime | None]], successor_text: dict[str, str],
            turn_ids: dict[str, str]) -> FactRecord:
    start, end, closer = t.as_known(edge, known_at)
    count, last = merged_access(edge.access_count, edge.last_accessed_at, accessed.get(edge.uuid))
    superseded = closer if end is not None else None
    return FactRecord(
        uuid=edge.uuid,
        subject=subject,
        predicate=edge.name,
        object=obj,
        fact=edge.fact,
        valid_at=start,
        invalid_at=end,
        created_at=edge.created_at,
        expired_at=edge.expired_at if known_at is None or _at_or_before(edge.expired_at, known_at) else None,
        status=t.status(end, closer, now),
        superseded_by=superseded,
        superseded_by_fact=successor_text.get(superseded) if superseded else None,
        episodes=tuple(edge.episodes),
        source_turn_ids=tuple(turn_ids[u] for u in edge.episodes if u in turn_ids),
        derived_from=tuple(edge.derived_from),
        expires_at=edge.expires_at,
        importance=edge.importance,
        access_count=count,
        last_accessed_at=last,
        archived_at=edge.archived_at,
        confidence=edge.confidence,
        scope=edge.scope,
    )


def facts_at(
    store: Store,
    user_id: str,
    *,
    valid_at: datetime | None,
    known_at: datetime | None,
    subject: str | None = None,
    now: datetime | None = None,
    scopes: Sequence[str] | None = None,
) -> list[FactRecord]:
    """Facts true at `valid_at` (default now) as known at `known_at` (default now),
    of every scope or only of `scopes`. A fact whose `expires_at` is at or before
    `valid_at` is not true then ("I live in Berlin until Friday" is not an answer
    for the Monday after), as search drops it once its expiry passed."""
    now = now or t.now_utc()
    if not store.has_graph(user_id):
        return []
    moment = valid_at or now
    key = normalize_name(subject) if subject is not None else None
    rows = store.run(user_id, q.facts_at(moment, known_at, key), read_only=True)
    if scopes is not None:
        rows = [row for row in rows if (row.get("scope") or "user") in scopes]
    records = to_records(store, user_id, rows, now=now, known_at=known_at)
    return [r for r in records if r.expires_at is None or r.expires_at > moment]


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


def facts_from(
    store: Store, user_id: str, pairs: Sequence[tuple[str, str]], *, now: datetime, known_at: datetime | None = None
) -> list[FactRecord]:
    """Every fact whose subject's normalised name and predicate match one of the
    (subject_key, predicate) `pairs`, whatever its status: the caller decides
    which count for the question's time (`retrieval.chains`)."""
    if not pairs or not store.has_graph(user_id):
        return []
    rows = store.run(user_id, q.facts_from_subjects(pairs), read_only=True)
    return to_records(store, user_id, rows, now=now, known_at=known_at)
