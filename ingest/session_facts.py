"""The stored facts one write decides on: read in a few queries, changed in memory
while the write's facts are decided in order, written back in a few more.

Why: deciding a session's facts against the store one at a time cost three to five
round trips each (read the slot, read when its statements were said, create,
close, ...), about a millisecond of client and server CPU apiece, which on short
chat turns was a tenth of what a write costs beyond embedding its turns.

The decisions stay those the one-at-a-time writes made: each fact sees its slot
(and, for an ending, its subject's facts of the ending's predicates) as the facts
before it left them, because every change is applied here first. Stored facts
keep the order read, then come the facts this write creates, in the order it
creates them, and they are written in that order. The placement rules do not
depend on the order a slot is read in (FalkorDB returns edges in id order and
reuses the ids of deleted edges): ties go by `schema.supersession.succession_key`,
checked by `tests/schema/test_slot_replay_order.py`.

What the store is asked, per write: the facts of every slot and ending the write
touches, and the facts an LLM decision names (one query each kind); when a
single-valued fact lands in a slot that holds facts, the session times of the
episodes they cite (once per episode); the object names of facts created here
when an ending of the same write weighs them; then the new facts (one query, or
one per run of split copies of stored facts) and the changed stored ones (one).
The caller holds the user's lock, so nothing else changes these facts meanwhile.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graphmem.graph import cypher as q
from graphmem.graph import fact_repository
from graphmem.graph.bulk_facts import changed_props
from graphmem.graph.cypher.forgetting import delete_facts
from graphmem.graph.store import Store
from graphmem.schema import time as t
from graphmem.schema.models import FactEdge, new_uuid
from graphmem.schema.records import AddFactResult
from graphmem.schema.slot_replay import Incoming, place_one
from graphmem.schema.supersession import Closure, Split, closed_by, moves_start_back

log = logging.getLogger(__name__)

Slot = tuple[str, str]  # (subject uuid, slot)
Kin = tuple[str, tuple[str, ...]]  # (subject uuid, predicates): an ending's reach


@dataclass
class _Created:
    """A fact this write creates: its vector, or the stored fact it is a split copy of
    (whose vector and access record the copy takes, as `cypher.split_fact` does)."""

    embedding: Any = None
    copy_of: str | None = None


class SessionFacts:
    """The facts of the slots and endings one write touches, as the write changes them.

    Example:
        >>> facts = SessionFacts.read(store, "alice", slots=[(me, "LIVES_IN")], kin=[])
        >>> facts.insert(edge, vector, single_valued=True, now=now)   # decided and applied in memory
        >>> facts.write(now)                                          # one query for the new fact
    """

    def __init__(self, store: Store, user_id: str, stored: Iterable[tuple[FactEdge, str]],
                 slots: dict[Slot, list[str]], kin: dict[Kin, list[str]]) -> None:
        self._store, self._user = store, user_id
        self._read: dict[str, FactEdge] = {}
        self._objects: dict[str, str] = {}
        self._remember(stored)
        self._facts = dict(self._read)
        self._slots = slots
        self._kin = kin
        self._stated_at: dict[str, datetime | None] = {}  # episode uuid -> session time, read as needed
        self._created: dict[str, _Created] = {}  # in creation order

    def _remember(self, stored: Iterable[tuple[FactEdge, str]]) -> None:
        for edge, obj in stored:
            self._read.setdefault(edge.uuid, edge)
            self._objects.setdefault(edge.uuid, obj)

    @classmethod
    def read(cls, store: Store, user_id: str, *, slots: Sequence[Slot], kin: Sequence[Kin]) -> "SessionFacts":
        """Read the facts of `slots` and `kin`."""
        stored: list[tuple[FactEdge, str]] = []
        slot_lists: dict[Slot, list[str]] = {slot: [] for slot in dict.fromkeys(slots)}
        kin_lists: dict[Kin, list[str]] = {key: [] for key in dict.fromkeys(kin)}
        if slot_lists:
            for row in store.run(user_id, q.facts_of_slots(list(slot_lists)), read_only=True):
                edge = fact_repository.edge_from_row(row)
                stored.append((edge, row["object"]))
                slot_lists[(row["slot_source"], edge.slot)].append(edge.uuid)
        if kin_lists:
            for row in store.run(user_id, q.facts_of_subjects(list(kin_lists)), read_only=True):
                edge = fact_repository.edge_from_row(row)
                stored.append((edge, row["object"]))
                kin_lists[(row["kin_source"], tuple(row["kin_names"]))].append(edge.uuid)
        return cls(store, user_id, stored, slot_lists, kin_lists)

    def include(self, uuids: Iterable[str]) -> None:
        """Read the facts `uuids` not read yet (those an LLM decision names), before any change."""
        missing = sorted(set(uuids) - set(self._facts))
        if missing:
            rows = self._store.run(self._user, q.facts_by_uuid(missing), read_only=True)
            self._remember((fact_repository.edge_from_row(row), row["object"]) for row in rows)
            self._facts |= {u: e for u, e in self._read.items() if u not in self._facts}

    # -- reads, as the store would answer them now ---------------------------------

    def get(self, uuid: str) -> FactEdge | None:
        return self._facts.get(uuid)

    def slot(self, key: Slot) -> list[FactEdge]:
        """The facts of one slot (subject uuid, slot), whatever their status (`cypher.slot_facts`)."""
        return [self._facts[u] for u in self._slots[key]]

    def kin_rows(self, key: Kin) -> list[dict[str, Any]]:
        """The facts of one subject and predicates, as `cypher.subject_facts` rows (fields
        and the object's name). The names of objects of facts created here are read
        from the store the first time a list holds one (an ending of a fact said
        earlier in the same session)."""
        uuids = self._kin[key]
        unnamed = sorted({self._facts[u].target_node_uuid for u in uuids if u not in self._objects})
        if unnamed:
            rows = self._store.run(self._user, q.entity_names(unnamed), read_only=True)
            names = {row["uuid"]: row["name"] for row in rows}
            for u in uuids:
                self._objects.setdefault(u, names.get(self._facts[u].target_node_uuid))
        return [self._facts[u].to_props() | {"object": self._objects[u]} for u in uuids]

    def stated_at(self, slot: Sequence[FactEdge]) -> dict[str, datetime]:
        """Episode uuid -> session time for every episode that stated a fact of `slot`
        (`fact_repository._stated_at`); episodes not seen before are read in one query."""
        cited = {ep for e in slot for ep in e.episodes}
        unknown = sorted(cited - self._stated_at.keys())
        if unknown:
            self._stated_at |= dict.fromkeys(unknown)
            rows = self._store.run(self._user, q.episode_times(unknown), read_only=True)
            self._stated_at |= {row["uuid"]: t.decode(row["valid_at"]) for row in rows if row["valid_at"]}
        return {ep: when for ep in cited if (when := self._stated_at[ep]) is not None}

    # -- changes, as the one-at-a-time queries made them ---------------------------

    def insert(self, edge: FactEdge, embedding: Any, *, single_valued: bool, now: datetime) -> AddFactResult:
        """`fact_repository.insert_fact` here: place `edge` on its slot (`slot_replay.place_one`,
        the rules `insert_fact` applies), then merge or create, split, close."""
        slot = self.slot((edge.source_node_uuid, edge.slot))
        stated_at = self.stated_at(slot) if single_valued else {}
        placement = place_one(slot, Incoming(edge, single_valued, now), stated_at, new_uuid() if single_valued else "")
        if placement.merge_into:
            self.merge(placement.merge_into, edge.episodes, edge.valid_at)
        else:
            self.create(edge, embedding)
        if placement.split is not None:
            self.split(placement.split, now)
        for closure in placement.closures:
            self.close(closure)
        for extension in placement.extensions:
            self._update(extension.uuid, invalid_at=extension.invalid_at)
        closed = tuple(c.uuid for c in placement.closures)
        if placement.merge_into:
            return AddFactResult(action="merged", fact_uuid=placement.merge_into, closed=closed)
        return AddFactResult(action="superseded" if closed else "added", fact_uuid=edge.uuid, closed=closed)

    def create(self, edge: FactEdge, embedding: Any) -> None:
        """`cypher.create_fact`: a new fact, last in every list it belongs to."""
        self._add(edge, _Created(embedding=embedding))

    def merge(self, uuid: str, episodes: Sequence[str], valid_at: datetime | None) -> None:
        """`cypher.merge_restatement`: new evidence appended, an earlier start moves the start back."""
        fact = self._facts.get(uuid)
        if fact is None:
            return
        earlier = moves_start_back(fact, valid_at)
        self._facts[uuid] = fact.model_copy(update={
            "episodes": _appended(fact.episodes, episodes), "valid_at": valid_at if earlier else fact.valid_at})

    def split(self, split: Split, created_at: datetime) -> None:
        """`cypher.split_fact`: a copy from `split.at` on takes the episodes said then."""
        host = self._facts[split.uuid]
        moved = set(split.episodes)
        copy = host.model_copy(update={"uuid": split.copy_uuid, "valid_at": split.at, "created_at": created_at,
                                       "episodes": [ep for ep in host.episodes if ep in moved]})
        self._facts[split.uuid] = host.model_copy(update={"episodes": [ep for ep in host.episodes if ep not in moved]})
        made = self._created.get(split.uuid)
        # a copy of a fact created here is created too; of a stored one, cloned from it
        self._add(copy, _Created(made.embedding, made.copy_of) if made else _Created(copy_of=split.uuid))

    def close(self, closure: Closure) -> None:
        """`cypher.close_fact`."""
        if closure.uuid in self._facts:
            self._facts[closure.uuid] = closed_by(self._facts[closure.uuid], closure)

    def end(self, uuid: str, invalid_at: datetime, episodes: Sequence[str]) -> None:
        """`cypher.end_fact`: the validity ends; the ending turn becomes evidence too."""
        fact = self._facts.get(uuid)
        if fact is not None:
            self._update(uuid, invalid_at=invalid_at, episodes=_appended(fact.episodes, episodes))

    def _update(self, uuid: str, **changes: Any) -> None:
        if uuid in self._facts:
            self._facts[uuid] = self._facts[uuid].model_copy(update=changes)

    def _add(self, edge: FactEdge, made: _Created) -> None:
        self._facts[edge.uuid] = edge
        self._created[edge.uuid] = made
        for (source, slot), uuids in self._slots.items():
            if edge.source_node_uuid == source and edge.slot == slot:
                uuids.append(edge.uuid)
        for (source, names), uuids in self._kin.items():
            if edge.source_node_uuid == source and edge.name in names:
                uuids.append(edge.uuid)

    # -- written back ---------------------------------------------------------------

    def write(self, now: datetime) -> None:
        """Store what changed: the new facts in creation order (split copies of stored
        facts cloned from them), then the changed properties of the stored ones (an
        interval changed at `now` recorded in their `interval_log`).

        All or nothing, as far as the store lets us: the changes to stored facts are
        one query and run last, and a failure before it ends (a store error, Ctrl-C)
        deletes the facts this write created. Without that, every new single-valued
        value of the session could stand open beside the stored one it closes."""
        try:
            for clone, rows in _runs(self._creation_rows()):
                self._store.run(self._user, q.clone_facts(rows) if clone else q.create_facts(rows))
            updates = [{"uuid": uuid, "props": changed} for uuid, before in self._read.items()
                       if (changed := changed_props(before, self._facts[uuid], now))]
            if updates:
                self._store.run(self._user, q.update_facts(updates))
        except BaseException:
            self._undo_creation()
            raise

    def _undo_creation(self) -> None:
        """Best effort: the error that got us here is the one to raise."""
        try:
            if self._created:
                self._store.run(self._user, delete_facts(list(self._created)))
        except Exception as exc:  # noqa: BLE001
            log.warning("undoing a failed fact write for %r: %s", self._user, exc)

    def _creation_rows(self) -> list[tuple[bool, dict[str, Any]]]:
        rows = []
        for uuid, made in self._created.items():
            final = self._facts[uuid]
            if made.copy_of is not None:
                # the copy holds what the stored fact held, then what changed (as the split's SET did)
                rows.append((True, {"from": made.copy_of, "props": changed_props(self._read[made.copy_of], final)}))
            else:
                props = {k: v for k, v in final.to_props().items() if v is not None}
                rows.append((False, {"source": final.source_node_uuid, "target": final.target_node_uuid,
                                     "props": props, "embedding": made.embedding}))
        return rows


def _appended(have: Sequence[str], more: Sequence[str]) -> list[str]:
    return list(have) + [x for x in more if x not in have]


def _runs(rows: list[tuple[bool, dict[str, Any]]]) -> list[tuple[bool, list[dict[str, Any]]]]:
    """Consecutive rows of one kind together, so creation order is kept."""
    out: list[tuple[bool, list[dict[str, Any]]]] = []
    for kind, row in rows:
        if out and out[-1][0] == kind:
            out[-1][1].append(row)
        else:
            out.append((kind, [row]))
    return out
