"""The `/v1` routes: each one calls the `Memory` verb of the same name.

Routes are plain ``def``: FastAPI runs them in its thread pool, so a store
query, an embedding or an extraction never blocks the event loop, and `Memory`
(synchronous, thread-safe: per-user writes are serialized by the store's user
lock) needs no async twin. Errors are mapped in `graphmem.service.errors`.

A key limited to memory scopes reads and writes only those
(`graphmem.service.scoping`): search and facts read within them, history,
timeline, versions and turns show only their rows, a write must name one of
them, and the verbs acting on every scope (`WholeMemoryUser`) refuse it.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from graphmem.analysis import timeline as timelines
from graphmem.analysis.records import EntityTimeline
from graphmem.forgetting.pipeline import ForgetReport
from graphmem.graph.inspect import EpisodeRow
from graphmem.schema import time as t
from graphmem.ingest.rebuild import RebuildResult
from graphmem.ingest.reembed import ReembedResult
from graphmem.schema.errors import InvalidInput
from graphmem.schema.models import DEFAULT_SCOPE
from graphmem.schema.records import CandidateRecord, FactRecord, GateResult, Timeline, WriteResult
from graphmem.service import scoping
from graphmem.service.deps import CoveredUser, KeyDep, MemoryDep, WholeMemoryUser
from graphmem.service.models import (
    MAX_TIME_CHARS, DropResult, ForgetRequest, PurgeRequest, PurgeResult, RestoreRequest, RestoreResult, SearchRequest,
    SearchResponse, WriteRequest,
)

router = APIRouter(prefix="/v1", tags=["memory"])
TIME = "ISO-8601 date or datetime; no zone = UTC; default now"
TimeQuery = Annotated[str | None, Query(min_length=1, max_length=MAX_TIME_CHARS, description=TIME)]
EntityQuery = Annotated[str, Query(min_length=1, description="an entity name or uuid, or a fact uuid")]
ScopesQuery = Annotated[list[str] | None, Query(max_length=32, description=(
    "only facts of these scopes (repeatable); default every scope, or the key's scopes"))]


@router.get("/users", response_model=list[str])
def users(mem: MemoryDep, key: KeyDep) -> list[str]:
    """The users this key covers: every user with a memory for an admin key, else
    the key's own user ids (whether or not they hold anything yet)."""
    return mem.users() if key.admin else sorted(key.users or ())


@router.post("/users/{user_id}/sessions", response_model=WriteResult)
def write(user_id: CoveredUser, body: WriteRequest, mem: MemoryDep, key: KeyDep) -> WriteResult:
    """Store a session's turns and the facts they state (`Memory.write`); repeating it changes nothing."""
    scope = scoping.write_scope(key.scopes, body.scope)
    return mem.write(user_id, [t.as_dict() for t in body.turns], body.session_time, body.session_id, scope=scope)


@router.post("/users/{user_id}/search", response_model=SearchResponse)
def search(user_id: CoveredUser, body: SearchRequest, mem: MemoryDep, key: KeyDep) -> SearchResponse:
    """A dated memory packet for the question, or an abstention, with its prompt text."""
    scopes = scoping.read_scopes(key.scopes, body.scopes, (DEFAULT_SCOPE,))
    packet = mem.search(user_id, body.query, now=body.now, as_of=body.as_of, known_at=body.known_at,
                        limit=body.limit, recipe=body.recipe, budget_tokens=body.budget_tokens, scopes=scopes)
    prompt = packet.to_prompt(body.budget_tokens) if body.budget_tokens else packet.to_prompt()
    return SearchResponse(**dict(packet), prompt=prompt)


@router.get("/users/{user_id}/facts", response_model=list[FactRecord])
def facts(
    user_id: CoveredUser, mem: MemoryDep, key: KeyDep,
    valid_at: TimeQuery = None, known_at: TimeQuery = None,
    subject: Annotated[str | None, Query(min_length=1, description="only facts about this entity")] = None,
    scopes: ScopesQuery = None,
) -> list[FactRecord]:
    """Facts true at `valid_at` as known at `known_at` (`Memory.facts`)."""
    chosen = scoping.read_scopes(key.scopes, scopes, None)
    return mem.facts(user_id, valid_at=valid_at, known_at=known_at, subject=subject, scopes=chosen)


@router.get("/users/{user_id}/history", response_model=Timeline)
def history(user_id: CoveredUser, mem: MemoryDep, key: KeyDep,
            entity: EntityQuery) -> Timeline:
    """Every version of an entity's facts, or of one fact's slot; 404 when unknown."""
    return scoping.visible_timeline(mem.history(user_id, entity), key.scopes, user_id, entity)


@router.get("/users/{user_id}/timeline", response_model=EntityTimeline)
def timeline(user_id: CoveredUser, mem: MemoryDep, key: KeyDep,
             entity: EntityQuery) -> EntityTimeline:
    """An entity's fact versions ordered by start of validity (`Memory.timeline`), for drawing."""
    return timelines.entries(scoping.visible_timeline(mem.history(user_id, entity), key.scopes, user_id, entity))


@router.get("/users/{user_id}/versions", response_model=list[FactRecord])
def versions(user_id: CoveredUser, mem: MemoryDep, key: KeyDep,
             known_at: TimeQuery = None) -> list[FactRecord]:
    """Every fact version, whatever its valid time (current, superseded, ended, expired, archived)."""
    rows = mem.inspect().fact_versions(user_id, known_at=t.to_utc_or_none(known_at, field="known_at"))
    return [r for r in rows if scoping.visible(key.scopes, r.scope)]


@router.get("/users/{user_id}/turns", response_model=list[EpisodeRow])
def turns(user_id: CoveredUser, mem: MemoryDep, key: KeyDep,
          turn_id: Annotated[list[str] | None, Query(description="only these turn ids (repeatable)")] = None,
          ) -> list[EpisodeRow]:
    """The stored turns (speaker, text, session time, scope), e.g. the sources a fact cites."""
    rows = [r for r in mem.inspect().episodes(user_id) if scoping.visible(key.scopes, r.scope)]
    wanted = set(turn_id or ())
    return [r for r in rows if r.turn_id in wanted] if wanted else rows


@router.post("/users/{user_id}/forget", response_model=ForgetReport)
def forget(user_id: WholeMemoryUser, body: ForgetRequest, mem: MemoryDep) -> ForgetReport:
    """Preview (``dry_run``, the default) or delete what the selector names and all that rests on it."""
    return mem.forget(user_id, body.selector, dry_run=body.dry_run, confirm=body.confirm)


@router.post("/users/{user_id}/purge", response_model=PurgeResult)
def purge(user_id: WholeMemoryUser, body: PurgeRequest, mem: MemoryDep) -> PurgeResult:
    """Delete the facts whose expiry has passed (they already left search)."""
    return PurgeResult(facts_purged=mem.purge(user_id, now=body.now))


@router.post("/users/{user_id}/restore", response_model=RestoreResult)
def restore(user_id: WholeMemoryUser, body: RestoreRequest, mem: MemoryDep) -> RestoreResult:
    """Bring an archived fact back into search."""
    return RestoreResult(restored=mem.restore(user_id, body.fact_uuid))


@router.get("/users/{user_id}/candidates", response_model=list[CandidateRecord])
def candidates(user_id: CoveredUser, mem: MemoryDep, key: KeyDep) -> list[CandidateRecord]:
    """Facts the write gate held back, out of search until confirmed (`Memory.candidates`)."""
    return scoping.visible_candidates(mem.candidates(user_id), key.scopes)


@router.post("/users/{user_id}/facts/{fact_uuid}/confirm", response_model=GateResult)
def confirm(user_id: CoveredUser, fact_uuid: str, mem: MemoryDep, key: KeyDep) -> GateResult:
    """Make a candidate an active fact; 404 when there is no such candidate (`Memory.confirm`)."""
    if key.scopes is not None:
        scoping.require_visible_candidate(mem.candidates(user_id), key.scopes, user_id, fact_uuid)
    return mem.confirm(user_id, fact_uuid)


@router.post("/users/{user_id}/facts/{fact_uuid}/reject", response_model=GateResult)
def reject(user_id: CoveredUser, fact_uuid: str, mem: MemoryDep, key: KeyDep) -> GateResult:
    """Drop a candidate; a rebuild does not bring it back (`Memory.reject`)."""
    if key.scopes is not None:
        scoping.require_visible_candidate(mem.candidates(user_id), key.scopes, user_id, fact_uuid)
    return mem.reject(user_id, fact_uuid)


@router.delete("/users/{user_id}", response_model=DropResult)
def drop_user(user_id: WholeMemoryUser, mem: MemoryDep,
              confirm: Annotated[bool, Query(description="must be true: the whole memory goes, from disk too")],
              ) -> DropResult:
    """Erase the user's whole memory (`Memory.drop_user`); ``?confirm=true`` is required."""
    if not confirm:
        raise InvalidInput("dropping a user deletes its whole memory; pass confirm=true to do it")
    return DropResult(dropped=mem.drop_user(user_id))


@router.post("/users/{user_id}/rebuild", response_model=RebuildResult)
def rebuild(user_id: WholeMemoryUser, mem: MemoryDep) -> RebuildResult:
    """Derive facts, entities, mentions and summaries again from the stored turns with
    the current extractor (`Memory.rebuild`); the turns stay as they are. 404 for a
    user with no memory."""
    return mem.rebuild(user_id)


@router.post("/users/{user_id}/reembed", response_model=ReembedResult)
def reembed(user_id: WholeMemoryUser, mem: MemoryDep) -> ReembedResult:
    """Make every stored vector of the user again with the service's embedder
    (`Memory.reembed`), e.g. after the service moved to another model or backend; turns and
    facts stay as they are. 404 for a user with no memory."""
    return mem.reembed(user_id)
