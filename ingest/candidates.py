"""The user's side of the write gate: list the candidates, confirm one (it becomes an
active fact and only now supersedes or ends what it contradicts) or reject it.

Each decision is also stored as a ``GateDecision`` keyed by the turn and the fact's
subject, relation and object (`write_gate.decision_key`), so `rebuild`, which
re-derives every candidate from the turns, applies it again (`facts.gate_plans`).
The caller holds the user's lock.
"""

from __future__ import annotations

from datetime import datetime

import numpy as np

from graphmem.graph import cypher as q
from graphmem.graph import fact_repository
from graphmem.graph.cypher import candidates as cq
from graphmem.graph.store import Store
from graphmem.ingest.facts import PlannedFact, apply_structural, read_facts
from graphmem.schema import time as t
from graphmem.schema.errors import NotFound
from graphmem.schema.records import CandidateRecord, GateResult


def list_candidates(store: Store, user_id: str) -> list[CandidateRecord]:
    if not store.has_graph(user_id):
        return []
    rows = store.run(user_id, cq.candidates(), read_only=True)
    episodes = sorted({u for r in rows for u in r["episodes"] or ()})
    names = {r["uuid"]: r["name"] for r in store.run(user_id, q.episode_names(episodes), read_only=True)} if episodes else {}
    out = []
    for row in rows:
        edge = fact_repository.edge_from_row(row)
        out.append(CandidateRecord(
            uuid=edge.uuid, subject=row["subject"], predicate=edge.name, object=row["object"], fact=edge.fact,
            valid_at=edge.valid_at, invalid_at=edge.invalid_at, created_at=edge.created_at,
            episodes=tuple(edge.episodes), source_turn_ids=tuple(names[u] for u in edge.episodes if u in names),
            confidence=edge.confidence, importance=edge.importance, scope=edge.scope,
            write_score=row["write_score"] or 0.0, reason=row["gate_reason"] or "",
        ))
    return out


def _candidate(store: Store, user_id: str, uuid: str) -> dict:
    rows = store.run(user_id, cq.candidate(uuid)) if store.has_graph(user_id) else []
    if not rows:
        raise NotFound(f"no candidate {uuid!r} in {user_id!r}'s memory")
    return rows[0]


def _record(store: Store, user_id: str, row: dict, decision: str, now: datetime) -> None:
    episodes = row["episodes"] or []
    if row["gate_key"]:
        store.run(user_id, cq.record_decision(row["gate_key"], episodes[0] if episodes else "", decision, t.encode(now)))


def confirm(store: Store, user_id: str, uuid: str, now: datetime | None = None) -> GateResult:
    """Write the candidate as an active fact through the normal slot rules.

    The candidate goes only once the fact is written: a write that fails deletes
    what it created (`SessionFacts.write`), so the candidate is still there to
    confirm again rather than lost with the fact."""
    now = now or t.now_utc()
    row = _candidate(store, user_id, uuid)
    edge = fact_repository.edge_from_row(row).model_copy(update={"created_at": now})
    embedding = np.asarray(row["embedding"] or [], dtype=np.float32)
    plan = PlannedFact(edge=edge, embedding=embedding, single_valued=bool(row["single_valued"]), ends=bool(row["ends"]))
    facts = read_facts(store, user_id, [plan])
    decided = apply_structural(facts, plan, now)
    facts.write(now)
    store.run(user_id, cq.delete_candidate(uuid))
    _record(store, user_id, row, "confirmed", now)
    store.run(user_id, q.rebuild_summaries([edge.source_node_uuid, edge.target_node_uuid]))
    store.run(user_id, q.bump_version())
    closed = ()
    if decided.action == "superseded" or decided.closed:
        closed = tuple(r["uuid"] for r in store.run(user_id, q.slot_facts(edge.source_node_uuid, edge.slot))
                       if r["invalidated_by"] == decided.fact_uuid)
    return GateResult(candidate=uuid, decision="confirmed", action=decided.action, fact_uuid=decided.fact_uuid,
                      closed=closed)


def reject(store: Store, user_id: str, uuid: str, now: datetime | None = None) -> GateResult:
    """Drop the candidate; a rebuild will not bring it back."""
    now = now or t.now_utc()
    row = _candidate(store, user_id, uuid)
    store.run(user_id, cq.delete_candidate(uuid))
    _record(store, user_id, row, "rejected", now)
    return GateResult(candidate=uuid, decision="rejected", action="dropped")
