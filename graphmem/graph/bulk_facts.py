"""Bulk fact import (`Memory.add_facts`): the timeline `add_fact` one at a time would
leave, in a few queries instead of several per fact.

Named steps, the caller holding the user's lock throughout:
1. resolve every subject and object name to an entity in one read (new ones get
   their uuid here);
2. read the stored facts of every slot the import touches in one read, and the
   session times of the episodes they cite;
3. replay each slot's incoming facts in order with the pure placement rules
   (`schema.slot_replay`), which gives each fact's final state;
4. embed only what will be created (new entity names, the texts of facts that
   are not merged into a stored one), in batches;
5. write with UNWIND in batches: entities, new facts, split copies of stored
   facts, changed stored facts; then bump the graph version once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from graphmem.graph import cypher as q
from graphmem.graph.store import Store
from graphmem.schema import time as t
from graphmem.schema.models import EntityNode, FactEdge, new_uuid, normalize_name
from graphmem.schema.records import AddFactResult
from graphmem.schema.slot_replay import Incoming, SlotReplay, replay_slot

BATCH = 1_000
EMBED_BATCH = 512

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


def embed_all(embed: Embed, texts: Sequence[str], batch: int = EMBED_BATCH) -> dict[str, list[float]]:
    """Each distinct text embedded once, in batches; text -> vector."""
    distinct = list(dict.fromkeys(texts))
    out: dict[str, list[float]] = {}
    for chunk in _chunks(distinct, batch):
        out.update(zip(chunk, np.asarray(embed(list(chunk)), dtype=np.float32).tolist(), strict=True))
    return out


def _props(edge: FactEdge) -> dict[str, Any]:
    return {k: v for k, v in edge.to_props().items() if v is not None}


def _changes(before: FactEdge, after: FactEdge) -> dict[str, Any]:
    old, new = before.to_props(), after.to_props()
    return {k: v for k, v in new.items() if old.get(k) != v}


@dataclass
class _Writes:
    creates: list[dict[str, Any]]
    clones: list[dict[str, Any]]
    updates: list[dict[str, Any]]


def plan_writes(facts: Sequence[NewFact], edges: Sequence[FactEdge], groups: dict[Slot, list[int]],
                stored: dict[Slot, list[FactEdge]], replays: dict[Slot, SlotReplay], embed: Embed) -> _Writes:
    """Compare each replayed slot with what was read: rows to create, clone and update.
    Embeds the texts of the facts that will be created and brought no vector."""
    to_embed = [edges[groups[slot][origin]].fact for slot, replay in replays.items()
                for origin in replay.origin.values() if isinstance(origin, int)
                and facts[groups[slot][origin]].embedding is None]
    vectors = embed_all(embed, to_embed)
    writes = _Writes([], [], [])
    for slot, replay in replays.items():
        for uuid, origin in replay.origin.items():
            final = replay.facts[uuid]
            if isinstance(origin, str):
                writes.clones.append({"from": origin, "props": final.to_props()})
                continue
            row = groups[slot][origin]
            vector = facts[row].embedding or vectors[edges[row].fact]
            writes.creates.append({"source": final.source_node_uuid, "target": final.target_node_uuid,
                                   "props": _props(final), "embedding": vector})
        for before in stored.get(slot, ()):
            changed = _changes(before, replay.facts[before.uuid])
            if changed:
                writes.updates.append({"uuid": before.uuid, "props": changed})
    return writes


def _replay_all(store: Store, user_id: str, edges: Sequence[FactEdge], facts: Sequence[NewFact],
                existing_sources: set[str]) -> tuple[dict[Slot, list[int]], dict[Slot, list[FactEdge]], dict[Slot, SlotReplay]]:
    groups: dict[Slot, list[int]] = {}
    for i, edge in enumerate(edges):
        groups.setdefault((edge.source_node_uuid, edge.slot), []).append(i)
    stored = read_slots(store, user_id, [slot for slot in groups if slot[0] in existing_sources])
    stated_at = read_stated_at(store, user_id, [e for slot in stored.values() for e in slot] + list(edges))
    replays = {
        slot: replay_slot(stored.get(slot, []), [Incoming(edges[i], facts[i].single_valued, edges[i].created_at)
                                                 for i in rows], stated_at, new_uuid)
        for slot, rows in groups.items()
    }
    return groups, stored, replays


def _write(store: Store, user_id: str, entity_rows: list[dict], writes: _Writes, batch: int) -> None:
    for chunk in _chunks(entity_rows, batch):
        store.run(user_id, q.create_entities(chunk))
    for chunk in _chunks(writes.creates, batch):
        store.run(user_id, q.create_facts(chunk))
    for chunk in _chunks(writes.clones, batch):
        store.run(user_id, q.clone_facts(chunk))
    for chunk in _chunks(writes.updates, batch):
        store.run(user_id, q.update_facts(chunk))
    store.run(user_id, q.bump_version())


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
    groups, stored, replays = _replay_all(store, user_id, edges, facts, existing)
    results: list[AddFactResult | None] = [None] * len(facts)
    for slot, rows in groups.items():
        for row, result in zip(rows, replays[slot].results, strict=True):
            results[row] = result
    names = embed_all(embed, list(entities.new.values()))
    created = min(e.created_at for e in edges)
    entity_rows = [{"key": key, "embedding": names[name],
                    "props": EntityNode(uuid=entities.uuid[key], group_id=user_id, name=name,
                                        created_at=created).to_props()}
                   for key, name in entities.new.items()]
    _write(store, user_id, entity_rows, plan_writes(facts, edges, groups, stored, replays, embed), batch)
    return [r for r in results if r is not None]
