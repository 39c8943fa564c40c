"""Fact resolution: ADD / MERGE / SUPERSEDE / IGNORE for each extracted fact.

Offline, the decision is structural (`graphmem.graph.fact_repository.insert_fact`): a
restatement of an open fact merges, a single-valued slot supersedes, anything
else is added. With an LLM, facts that have candidates in the graph (open facts
of the same slot, or the most similar facts) are decided in ONE batched call;
facts without candidates never cost a call. Sessions out of order are handled
by the same timeline planner either way.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple

import numpy as np

from graphmem.graph import cypher as q
from graphmem.graph import fact_repository
from graphmem.schema.models import FactEdge
from graphmem.schema.supersession import plan_closures
from graphmem.graph.store import Store

SIMILAR_FACT = 0.75
SIMILAR_K = 3


@dataclass
class PlannedFact:
    """One extracted fact, its endpoints resolved, ready to be decided on."""

    edge: FactEdge
    embedding: np.ndarray
    single_valued: bool
    derived_from: list[int] = field(default_factory=list)
    ignore: bool = False
    ends: bool = False  # "I don't live in Paris anymore": closes the open fact


class Decided(NamedTuple):
    """What happened to one planned fact: the action, the fact it landed in, and
    how many facts (older ones, or itself when a later value exists) it closed."""

    action: str
    fact_uuid: str | None
    closed: int = 0


@dataclass
class FactOutcome:
    """Counts per action ("added", "merged", "superseded", "ignored") plus
    "closed" (facts whose validity the write ended), and each plan's fact uuid."""

    counts: Counter
    fact_uuids: list[str | None]


def candidates_for(store: Store, user_id: str, plan: PlannedFact) -> list[tuple[str, str]]:
    """(uuid, fact) of open facts in the same slot and the most similar open facts."""
    seen: dict[str, str] = {}
    for row in store.run(user_id, q.slot_facts(plan.edge.source_node_uuid, plan.edge.slot), read_only=True):
        if row["expired_at"] is None:
            seen[row["uuid"]] = row["fact"]
    for row in store.run(user_id, q.nearest_facts(plan.embedding.tolist(), SIMILAR_K), read_only=True):
        if row["similarity"] >= SIMILAR_FACT and row["scope"] == plan.edge.scope:  # never merge across scopes
            seen.setdefault(row["uuid"], row["fact"])
    return list(seen.items())


def apply_ending(store: Store, user_id: str, plan: PlannedFact) -> Decided | None:
    """Close the open fact with this value at the stated end; None if there is none.

    The fact stays believed (no expiry, no successor): its validity is over,
    so it reads as 'ended'.
    """
    rows = store.run(user_id, q.slot_facts(plan.edge.source_node_uuid, plan.edge.slot))
    for row in rows:
        edge = fact_repository.edge_from_row(row)
        open_ = edge.expired_at is None and edge.invalid_at is None
        if open_ and edge.target_node_uuid == plan.edge.target_node_uuid and edge.order_key() < plan.edge.invalid_at:
            store.run(user_id, q.end_fact(edge.uuid, plan.edge.invalid_at, plan.edge.episodes))
            return Decided("merged", edge.uuid)
    return None


def apply_structural(store: Store, user_id: str, plan: PlannedFact, now: datetime) -> Decided:
    if plan.ends:
        ended = apply_ending(store, user_id, plan)
        if ended is not None:
            return ended
    result = fact_repository.insert_fact(
        store, user_id, plan.edge, plan.embedding.tolist(), single_valued=plan.single_valued, now=now
    )
    return Decided(result.action, result.fact_uuid, len(result.closed))


def apply_decision(
    store: Store, user_id: str, plan: PlannedFact, action: str, target: str | None, now: datetime
) -> Decided:
    """Carry out an LLM decision; falls back to the structural rule for ADD."""
    if action == "IGNORE":
        return Decided("ignored", None)
    if action == "MERGE" and target:
        store.run(user_id, q.merge_restatement(target, plan.edge.episodes, plan.edge.valid_at))
        return Decided("merged", target)
    if action == "SUPERSEDE" and target:
        rows = store.run(user_id, q.facts_by_uuid([target]))
        existing = [fact_repository.edge_from_row(row) for row in rows]
        store.run(user_id, q.create_fact(plan.edge, plan.embedding.tolist()))
        closures = plan_closures(existing, plan.edge, now)
        for closure in closures:
            store.run(user_id, q.close_fact(closure))
        return Decided("superseded" if closures else "added", plan.edge.uuid, len(closures))
    return apply_structural(store, user_id, plan, now)


def resolve_facts(
    store: Store, user_id: str, plans: Sequence[PlannedFact], *, now: datetime, llm=None
) -> FactOutcome:
    """Decide and write every planned fact, in order; derived facts point at their sources."""
    counts: Counter = Counter()
    decisions: dict[int, tuple[str, str | None]] = {}
    if llm is not None:
        decisions = _ask_llm(store, user_id, plans, llm)
    uuids: list[str | None] = []
    for i, plan in enumerate(plans):
        if plan.ignore:
            counts["ignored"] += 1
            uuids.append(None)
            continue
        sources = [uuids[j] for j in plan.derived_from if 0 <= j < len(uuids) and uuids[j]]
        if sources:
            plan.edge.derived_from = sources
        if i in decisions:
            decided = apply_decision(store, user_id, plan, *decisions[i], now)
        else:
            decided = apply_structural(store, user_id, plan, now)
        counts[decided.action] += 1
        counts["closed"] += decided.closed
        uuids.append(decided.fact_uuid)
    return FactOutcome(counts=counts, fact_uuids=uuids)


def _ask_llm(store: Store, user_id: str, plans: Sequence[PlannedFact], llm) -> dict[int, tuple[str, str | None]]:
    from graphmem.ingest.prompts.resolve import ExistingFact, ResolveCandidate

    asked: list[int] = []
    candidates = []
    for i, plan in enumerate(plans):
        if plan.ignore:
            continue
        found = candidates_for(store, user_id, plan)
        if found:
            asked.append(i)
            existing = tuple(ExistingFact(id=uuid, fact=fact) for uuid, fact in found)
            candidates.append(ResolveCandidate(fact=plan.edge.fact, existing=existing))
    if not candidates:
        return {}
    decisions = llm.resolve(candidates)
    return {i: (d.action.value, d.target_id) for i, d in zip(asked, decisions)}
