"""Rebuild from episodes: the episodes are the source of truth, entities, facts,
mentions, summaries and communities are projections of them (ARCHITECTURE §5).

`rebuild` drops every projection drawn from turns (facts with ``origin``
``extracted``, all MENTIONS, entities no remaining fact touches, communities),
marks every turn not extracted, then writes each stored session again through
the normal write path (`ingest.pipeline.write_session`) with the current
extractor, oldest first. The turns themselves are not touched: their uuids,
contents, ids, scopes and NEXT_EPISODE links stay. Facts written directly with
`add_fact` (``origin`` ``direct``) are kept as they are. An LLM extractor answers
from its cache when the prompts are unchanged, so rebuilding an LLM-extracted
memory costs no call.

Write-gate candidates are projections too: dropped and held again by the gate.
The user's confirm / reject decisions are not: they are ``GateDecision`` nodes
keyed by turn and fact identity (`ingest.write_gate.decision_key`), kept by the
rebuild and replayed by the gate, so a confirmed fact comes back active and a
rejected one does not come back. A decision whose fact the current extractor no
longer draws from that turn simply finds nothing to apply to.

Not re-derived: a `write(ttl=...)` expiry (the ttl is not stored with the
turns), archiving by capacity, and transaction times (re-derived facts are
believed from the rebuild on).
"""

from __future__ import annotations

from itertools import groupby

from pydantic import BaseModel, ConfigDict

from graphmem.graph import cypher as q
from graphmem.graph.cypher import candidates as gq
from graphmem.graph.cypher import communities as cq
from graphmem.ingest.pipeline import IngestContext, write_session
from graphmem.ingest.turns import SessionIn, TurnIn
from graphmem.schema import time as t


class RebuildResult(BaseModel):
    """What a rebuild did: turns re-extracted, facts dropped and re-derived, LLM use."""

    model_config = ConfigDict(frozen=True)

    episodes: int = 0
    sessions: int = 0
    facts_dropped: int = 0
    facts_added: int = 0
    facts_merged: int = 0
    facts_candidate: int = 0
    llm_calls: int = 0
    llm_cache_hits: int = 0
    errors: tuple[str, ...] = ()


def stored_sessions(rows: list[dict]) -> list[SessionIn]:
    """Turn rows (session-time order) -> the sessions they were written as; pure.

    The stored session id is the one the write used (its id, else its encoded
    time), so `episode_uuid` finds the same uuids and the write path sees every
    turn as stored, not new."""
    sessions = []
    for (session_id, scope, _), group in groupby(rows, key=lambda r: (r["session_id"], r["scope"], r["session_time"])):
        turns = sorted(group, key=lambda r: r["turn_index"] or 0)
        sessions.append(SessionIn(
            turns=tuple(TurnIn(speaker=r["speaker"] or "user", content=r["content"], turn_id=r["turn_id"]) for r in turns),
            session_time=t.decode(turns[0]["session_time"]), session_id=session_id, scope=scope,
            turn_indexes=tuple(r["turn_index"] or 0 for r in turns),
        ))
    return sessions


def rebuild(ctx: IngestContext, user_id: str) -> RebuildResult:
    """Drop the projections and derive them again from the stored turns; the caller
    holds the user's lock and drops warm indexes afterwards."""
    store = ctx.store
    rows = store.run(user_id, q.episodes_in_order(), read_only=True)
    dropped = store.run(user_id, q.delete_extracted_facts())[0]["n"]
    store.run(user_id, q.delete_orphan_access())
    store.run(user_id, gq.delete_all_candidates())
    store.run(user_id, q.delete_all_mentions())
    store.run(user_id, q.delete_factless_entities())
    store.run(user_id, cq.delete_communities())
    store.run(user_id, q.reset_extracted())
    sessions = stored_sessions(rows)
    added = merged = held = calls = hits = 0
    errors: list[str] = []
    for session in sessions:
        result = write_session(ctx, user_id, session)
        added, merged = added + result.facts_added, merged + result.facts_merged
        held += result.facts_candidate
        calls, hits = calls + result.llm_calls, hits + result.llm_cache_hits
        errors.extend(result.errors)
    store.run(user_id, q.rebuild_summaries(now=t.now_utc()))
    store.run(user_id, q.bump_version())
    return RebuildResult(episodes=len(rows), sessions=len(sessions), facts_dropped=dropped, facts_added=added,
                         facts_merged=merged, facts_candidate=held, llm_calls=calls, llm_cache_hits=hits, errors=tuple(errors))
