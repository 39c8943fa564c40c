"""Replay a run of incoming facts on one slot in memory, as `add_fact` one at a time would.

Why: a bulk import (`Memory.add_facts`) must leave the same timeline as the
same facts added one by one, but without a read and a few writes per fact.
Each incoming fact is placed with the same pure rules `add_fact` uses
(`schema.supersession.plan_placement`; for a multi-valued predicate among the
facts of the same value only), and
the placement is applied to an in-memory copy of the slot, so the next fact
sees it. What comes out is the final state of every fact of the slot, which
the caller compares with what it read to know what to write.

Example:
    >>> replay = replay_slot([], [Incoming(beijing_march, True, now), Incoming(shanghai_june, True, now)],
    ...                      stated_at={}, new_uuid=new_uuid)
    >>> [r.action for r in replay.results]
    ['added', 'superseded']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from graphmem.schema import time as t
from graphmem.schema.models import FactEdge
from graphmem.schema.records import AddFactResult
from graphmem.schema.supersession import Placement, closed_by, moves_start_back, plan_placement


@dataclass(frozen=True)
class Incoming:
    """One fact to place: endpoints resolved, `edge.created_at` its own write time."""

    edge: FactEdge
    single_valued: bool
    now: datetime


@dataclass
class SlotReplay:
    """The slot after the replay.

    `facts`: every fact of the slot by uuid, in its final state (read ones and
    new ones); `origin`: for each new fact, the index (into the incoming list)
    of the fact whose text and embedding it carries, or the uuid of the stored
    fact a split copied (``str``); `results`: one `AddFactResult` per incoming
    fact, in order.
    """

    facts: dict[str, FactEdge]
    origin: dict[str, int | str] = field(default_factory=dict)
    results: list[AddFactResult] = field(default_factory=list)


def place_one(slot: Sequence[FactEdge], incoming: Incoming, stated_at: Mapping[str, datetime],
              copy_uuid: str) -> Placement:
    """Where `incoming` goes among `slot` (the decision `fact_repository.place` makes).

    A multi-valued fact is placed among the facts of its own value only: other
    values never close it, but a restatement merges only into an interval it
    falls in or reaches, as on a single-valued slot."""
    edge = incoming.edge
    if not incoming.single_valued:
        slot = [e for e in slot if e.name == edge.name and e.target_node_uuid == edge.target_node_uuid]
    return plan_placement(slot, edge, incoming.now, stated_at, copy_uuid)


def _merge(fact: FactEdge, edge: FactEdge) -> FactEdge:
    """`cypher.merge_restatement` in memory: new episodes appended, an earlier start moves it back."""
    episodes = list(fact.episodes) + [ep for ep in edge.episodes if ep not in fact.episodes]
    earlier = moves_start_back(fact, edge.valid_at)
    return fact.model_copy(update={"episodes": episodes, "valid_at": edge.valid_at if earlier else fact.valid_at})


def _apply(replay: SlotReplay, index: int, incoming: Incoming, placement: Placement) -> None:
    """`fact_repository.apply_placement` in memory: merge or create, then split, then close;
    each fact whose interval changed logs the one it had, at this fact's write time (as the
    store's queries do, `time.logged`)."""
    before = dict(replay.facts)
    _place(replay, index, incoming, placement)
    for uuid, old in before.items():
        fact = replay.facts[uuid]
        if fact is not old and (log := t.logged(old, fact, incoming.now)) is not fact.interval_log:
            replay.facts[uuid] = fact.model_copy(update={"interval_log": log})


def _place(replay: SlotReplay, index: int, incoming: Incoming, placement: Placement) -> None:
    facts, edge = replay.facts, incoming.edge
    if placement.merge_into:
        facts[placement.merge_into] = _merge(facts[placement.merge_into], edge)
    else:
        facts[edge.uuid] = edge
        replay.origin[edge.uuid] = index
    if placement.split is not None:
        split = placement.split
        host = facts[split.uuid]
        moved = set(split.episodes)
        facts[split.copy_uuid] = host.model_copy(update={
            "uuid": split.copy_uuid, "valid_at": split.at, "created_at": incoming.now,
            "episodes": [ep for ep in host.episodes if ep in moved],
        })
        facts[split.uuid] = host.model_copy(update={"episodes": [ep for ep in host.episodes if ep not in moved]})
        replay.origin[split.copy_uuid] = replay.origin.get(split.uuid, split.uuid)
    for closure in placement.closures:
        facts[closure.uuid] = closed_by(facts[closure.uuid], closure)
    for extension in placement.extensions:
        facts[extension.uuid] = facts[extension.uuid].model_copy(update={"invalid_at": extension.invalid_at})
    closed = tuple(c.uuid for c in placement.closures)
    if placement.merge_into:
        replay.results.append(AddFactResult(action="merged", fact_uuid=placement.merge_into, closed=closed))
    else:
        replay.results.append(AddFactResult(action="superseded" if closed else "added", fact_uuid=edge.uuid,
                                            closed=closed))


def replay_slot(
    existing: Sequence[FactEdge],
    incoming: Sequence[Incoming],
    stated_at: Mapping[str, datetime],
    new_uuid: Callable[[], str],
) -> SlotReplay:
    """Place every `incoming` fact in order on a slot that held `existing`.

    :param existing: the slot's stored facts (any status), as read.
    :param incoming: the facts to add, in the order `add_fact` would have seen them.
    :param stated_at: episode uuid -> session time, for every episode the slot's
        facts cite (restatements split intervals at these moments).
    :param new_uuid: names the later part of a split.
    """
    replay = SlotReplay(facts={e.uuid: e for e in existing})
    for index, item in enumerate(incoming):
        placement = place_one(list(replay.facts.values()), item, stated_at, new_uuid())
        _apply(replay, index, item, placement)
    return replay
