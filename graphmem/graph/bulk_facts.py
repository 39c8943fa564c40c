"""Bulk fact import (`Memory.add_facts`): the timeline `add_fact` one at a time would
leave, in a few queries instead of several per fact.

Named steps, the caller holding the user's lock throughout:
1. resolve every subject and object name to an entity in one read (new ones get
   their uuid here);
2. read the stored facts of every slot the import touches in one read, and the
   session times of the episodes they cite;
3. write the new entities, in UNWIND batches, while
4. each slot's incoming facts are replayed in order with the pure placement
   rules (`schema.slot_replay`), which gives each fact's final state;
5. write the new facts, then the split copies and changes of stored facts, in
   UNWIND batches; then bump the graph version once.

Only what is created is embedded (new entity names, the texts of facts not
merged into a stored one), each distinct text once, batch by batch just before
its write; the writes run behind a thread (`graph.writer`), so the server
inserts batch n (its vector-index inserts are most of its time) while Python
embeds and formats batch n+1, and replays while the entities are written.

Failure: a bad row raises before anything is read or written. The writes come
in two phases: first the new entities and new facts, pipelined with their
embedding; then, with every vector in hand, the changes to stored facts (split
copies, closures) and the version bump. A failure in the first phase (an
embedder error in batch n while batch n-1 was being written) deletes what that
phase wrote, so the stored timeline is as it was. A store failure in the second
leaves every new fact written but only the changes before it applied: a new value
can stand open beside the stored one it should have closed (the import is not one
transaction; the version is still bumped, so searches see what is there).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from graphmem.graph import cypher as q
from graphmem.graph.cypher.forgetting import delete_entities, delete_facts
from graphmem.graph.store import Store
from graphmem.graph.writer import QueryWriter
from graphmem.schema import time as t
from graphmem.schema.models import EntityNode, FactEdge, new_uuid, normalize_name
from graphmem.schema.records import AddFactResult
from graphmem.schema.slot_replay import Incoming, SlotReplay, replay_slot

log = logging.getLogger(__name__)

BATCH = 1_000

Embed = Callable[[Sequence[str]], np.ndarray]
Slot = tuple[str, str]


@dataclass(frozen=True)
class NewFact:
    """One validated fact to import; `edge`'s endpoint uuids are filled in by the import.

    `edge.created_at` is the fact's own write time (rows of one import get
    increasing times, as a loop of `add_fact` would)."""

    edge: FactEdge
    subject: str
    object: str
    single_valued: bool
    embedding: list[float] | None = None


@dataclass(frozen=True)
class _Entities:
    uuid: dict[str, str]  # normalised name -> uuid
    new: dict[str, str]  # normalised name -> name, for entities to create


def _chunks(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]


def changed_props(before: FactEdge, after: FactEdge, changed_at: datetime | None = None) -> dict[str, Any]:
    """The stored properties `after` holds differently from `before`: what an update
    (or a split copy, cloned from `before`) must set. With `changed_at` (an update of a
    stored fact), a change of its interval is recorded in its `interval_log` too."""
    if changed_at is not None:
        after = after.model_copy(update={"interval_log": t.logged(before, after, changed_at)})
    old, new = before.to_props(), after.to_props()
    return {k: v for k, v in new.items() if old.get(k) != v}


def resolve_entities(store: Store, user_id: str, facts: Sequence[NewFact], batch: int = BATCH) -> _Entities:
    """Names -> entity uuids, matched like `merge_entity` (normalised name); a new
    entity keeps the first spelling the import gives it."""
    names: dict[str, str] = {}
    for fact in facts:
        names.setdefault(normalize_name(fact.subject), fact.subject)
        names.setdefault(normalize_name(fact.object), fact.object)
    found: dict[str, str] = {}
    for chunk in _chunks(list(names), batch):
        for row in store.run(user_id, q.entities_by_key(chunk), read_only=True):
            found.setdefault(row["key"], row["uuid"])
    new = {key: name for key, name in names.items() if key not in found}
    return _Entities(uuid=found | {key: new_uuid() for key in new}, new=new)


def read_slots(store: Store, user_id: str, slots: Sequence[Slot], batch: int = BATCH) -> dict[Slot, list[FactEdge]]:
    """The stored facts of each slot (subject uuid, slot name), any status."""
    out: dict[Slot, list[FactEdge]] = {slot: [] for slot in slots}
    for chunk in _chunks(list(slots), batch):
        for row in store.run(user_id, q.facts_of_slots(chunk), read_only=True):
            edge = FactEdge.from_props({k: v for k, v in row.items() if k in FactEdge.model_fields and v is not None})
            out[(row["slot_source"], edge.slot)].append(edge)
    return out


def read_stated_at(store: Store, user_id: str, edges: Sequence[FactEdge], batch: int = BATCH) -> dict[str, datetime]:
    """Episode uuid -> session time for every episode the edges cite."""
    uuids = sorted({ep for e in edges for ep in e.episodes})
    out: dict[str, datetime] = {}
    for chunk in _chunks(uuids, batch):
        for row in store.run(user_id, q.episode_times(chunk), read_only=True):
            if row["valid_at"]:
                out[row["uuid"]] = t.decode(row["valid_at"])
    return out


class _Vectors:
    """Each distinct text embedded once, as the batches that need it come: text -> vector."""

    def __init__(self, embed: Embed) -> None:
        self._embed = embed
        self._known: dict[str, np.ndarray] = {}

    def of(self, texts: Sequence[str]) -> list[np.ndarray]:
        missing = list(dict.fromkeys(text for text in texts if text not in self._known))
        if missing:
            self._known.update(zip(missing, np.asarray(self._embed(missing), dtype=np.float32), strict=True))
        return [self._known[text] for text in texts]


def _props(edge: FactEdge) -> dict[str, Any]:
    return {k: v for k, v in edge.to_props().items() if v is not None}


@dataclass(frozen=True)
class _Create:
    """A fact edge to create: `embedding` the vector its row brought, else `text` is embedded."""

    source: str
    target: str
    props: dict[str, Any]
    text: str
    embedding: list[float] | None


@dataclass
class _Writes:
    creates: list[_Create]
    clones: list[dict[str, Any]]
    updates: list[dict[str, Any]]


def plan_writes(facts: Sequence[NewFact], edges: Sequence[FactEdge], groups: dict[Slot, list[int]],
                stored: dict[Slot, list[FactEdge]], replays: dict[Slot, SlotReplay]) -> _Writes:
    """Compare each replayed slot with what was read: rows to create, clone and update."""
    writes = _Writes([], [], [])
    for slot, replay in replays.items():
        for uuid, origin in replay.origin.items():
            final = replay.facts[uuid]
            if isinstance(origin, str):
                writes.clones.append({"from": origin, "props": final.to_props()})
                continue
            row = groups[slot][origin]
            writes.creates.append(_Create(final.source_node_uuid, final.target_node_uuid, _props(final),
                                          edges[row].fact, facts[row].embedding))
        for before in stored.get(slot, ()):
            changed = changed_props(before, replay.facts[before.uuid])  # the replay logged each change
            if changed:
                writes.updates.append({"uuid": before.uuid, "props": changed})
    return writes


@dataclass(frozen=True)
class _Reads:
    groups: dict[Slot, list[int]]  # slot -> indexes of the incoming rows, in order
    stored: dict[Slot, list[FactEdge]]
    stated_at: dict[str, datetime]


def read_slots_of(store: Store, user_id: str, edges: Sequence[FactEdge], existing_sources: set[str]) -> _Reads:
    """Group the rows by slot; read the stored facts of those slots and the times of the episodes cited."""
    groups: dict[Slot, list[int]] = {}
    for i, edge in enumerate(edges):
        groups.setdefault((edge.source_node_uuid, edge.slot), []).append(i)
    stored = read_slots(store, user_id, [slot for slot in groups if slot[0] in existing_sources])
    stated_at = read_stated_at(store, user_id, [e for slot in stored.values() for e in slot] + list(edges))
    return _Reads(groups, stored, stated_at)


def replay_all(reads: _Reads, edges: Sequence[FactEdge], facts: Sequence[NewFact]) -> dict[Slot, SlotReplay]:
    return {
        slot: replay_slot(reads.stored.get(slot, []), [Incoming(edges[i], facts[i].single_valued, edges[i].created_at)
                                                       for i in rows], reads.stated_at, new_uuid)
        for slot, rows in reads.groups.items()
    }


def entity_queries(user_id: str, entities: _Entities, created: datetime, vectors: _Vectors,
                   batch: int) -> Iterator[q.Query]:
    """The new entities, each batch's names embedded as it is reached."""
    for chunk in _chunks(list(entities.new.items()), batch):
        names = vectors.of([name for _, name in chunk])
        yield q.create_entities([
            {"key": key, "embedding": vector,
             "props": EntityNode(uuid=entities.uuid[key], group_id=user_id, name=name, created_at=created).to_props()}
            for (key, name), vector in zip(chunk, names, strict=True)])


def fact_queries(creates: Sequence[_Create], vectors: _Vectors, batch: int) -> Iterator[q.Query]:
    """The new facts, each batch's texts embedded (once each) as it is reached."""
    for chunk in _chunks(creates, batch):
        embedded = iter(vectors.of([c.text for c in chunk if c.embedding is None]))
        yield q.create_facts([{"source": c.source, "target": c.target, "props": c.props,
                               "embedding": c.embedding if c.embedding is not None else next(embedded)}
                              for c in chunk])


def change_queries(writes: _Writes, batch: int) -> Iterator[q.Query]:
    """Split copies and changes of stored facts, then the version bump: nothing to embed."""
    for chunk in _chunks(writes.clones, batch):
        yield q.clone_facts(chunk)
    for chunk in _chunks(writes.updates, batch):
        yield q.update_facts(chunk)
    yield q.bump_version()


def _undo_creation(store: Store, user_id: str, entities: _Entities, writes: _Writes, batch: int) -> None:
    """Delete what the first phase may have written: the new facts and the new entities
    (only this import's facts touch those). Best effort: the caller raises its own error."""
    try:
        for chunk in _chunks([c.props["uuid"] for c in writes.creates], batch):
            store.run(user_id, delete_facts(chunk))
        for chunk in _chunks([entities.uuid[key] for key in entities.new], batch):
            store.run(user_id, delete_entities(chunk))
        store.run(user_id, q.bump_version())
    except Exception as exc:  # noqa: BLE001 - the failure that got us here is the one to report
        log.warning("undoing a failed import into %r: %s", user_id, exc)


def _bump_after_failure(store: Store, user_id: str) -> None:
    """A failed second phase has written the new facts: bump the version so warm
    indexes in every process see what is stored. Best effort, like the undo."""
    try:
        store.run(user_id, q.bump_version())
    except Exception as exc:  # noqa: BLE001 - the failure that got us here is the one to report
        log.warning("bumping the version after a failed import into %r: %s", user_id, exc)


def add_facts(store: Store, user_id: str, facts: Sequence[NewFact], embed: Embed, *,
              batch: int = BATCH) -> list[AddFactResult]:
    """Import `facts` as `add_fact` would one at a time, in order; one result per fact.

    The caller holds the user's lock and has opened the graph.
    """
    if not facts:
        return []
    entities = resolve_entities(store, user_id, facts, batch)
    edges = [f.edge.model_copy(update={"source_node_uuid": entities.uuid[normalize_name(f.subject)],
                                       "target_node_uuid": entities.uuid[normalize_name(f.object)]}) for f in facts]
    existing = {uuid for key, uuid in entities.uuid.items() if key not in entities.new}
    reads = read_slots_of(store, user_id, edges, existing)
    vectors, writes = _Vectors(embed), _Writes([], [], [])
    try:
        with QueryWriter(store, user_id) as writer:
            for query in entity_queries(user_id, entities, min(e.created_at for e in edges), vectors, batch):
                writer.put(query)
            replays = replay_all(reads, edges, facts)  # while the server writes the entities
            writes = plan_writes(facts, edges, reads.groups, reads.stored, replays)
            for query in fact_queries(writes.creates, vectors, batch):
                writer.put(query)
    except BaseException:
        _undo_creation(store, user_id, entities, writes, batch)
        raise
    try:
        with QueryWriter(store, user_id) as writer:
            for query in change_queries(writes, batch):
                writer.put(query)
    except BaseException:
        _bump_after_failure(store, user_id)
        raise
    results = {row: result for slot, rows in reads.groups.items()
               for row, result in zip(rows, replays[slot].results, strict=True)}
    return [results[row] for row in range(len(facts))]
