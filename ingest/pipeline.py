"""The write path, as named steps:

    validate -> store episodes -> extract -> resolve entities -> gate -> resolve facts -> mark done

Episodes are stored unconditionally and before anything extracted from them:
they are the evidence, and an extractor failure must not lose what the user
said. Storing them and embedding them run on two more threads while the
extractor reads the same turns, because the three need nothing from each other and
a write of short turns otherwise leaves a core idle for the rules' whole run;
nothing extracted is written until the episodes are in. Episode uuids are
derived from (user, session, turn index, content), so writing the same session
again finds every episode already extracted and changes nothing. An episode
stored but not yet extracted (a crash in between) is extracted on the next
write.

An episode's vector is set with its extracted mark, not when its node is
created: FalkorDB re-inserts a node into the vector index on every SET, so
storing the vector first indexed each turn twice (`graph.cypher.mark_extracted`).
A write that fails after storing its episodes still sets their vectors
(`keep_vectors`); one that dies outright leaves them bare, and the next write
embeds them when it extracts them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from graphmem.graph import cypher as q
from graphmem.graph.cypher.query import VectorParam
from graphmem.graph.cypher.query import vector as vector_param
from graphmem.schema.errors import InvalidInput
from graphmem.ingest.entities import resolve_entities
from graphmem.ingest.metering import StageStats, diff
from graphmem.ingest.extraction import (
    EntityResolver,
    Extraction,
    Extractor,
    FactResolver,
    Failure,
    Metered,
    RecordsErrors,
    TurnContext,
)
from graphmem.ingest.facts import PlannedFact, resolve_facts
from graphmem.ingest.turns import SessionIn, episode_uuid, turn_name
from graphmem.ingest.write_gate import decision_key
from graphmem.schema import time as t
from graphmem.schema.models import EpisodicNode, FactEdge, content_hash, normalize_name, normalize_predicate
from graphmem.schema.records import WriteResult
from graphmem.graph.store import Store

CONTEXT_TURNS = 6
MAX_NAME_CHARS = 200


@dataclass(frozen=True)
class IngestContext:
    """What a write needs besides its input: the store, the embedder, the extractor."""

    store: Store
    embed: Any  # Callable[[Sequence[str]], np.ndarray]
    extractor: Extractor


def build_episodes(user_id: str, session: SessionIn, now: datetime) -> list[EpisodicNode]:
    """One Episodic node per turn; pure."""
    session_key = session.session_id or session.key()
    return [
        EpisodicNode(
            uuid=episode_uuid(user_id, session, session.index_of(i), turn.content),
            group_id=user_id,
            name=turn_name(session, i),
            content=turn.content,
            source_description="conversation turn",
            valid_at=session.session_time,
            created_at=now,
            session_id=session_key,
            turn_index=session.index_of(i),
            speaker=turn.speaker,
            content_hash=content_hash(turn.content),
            scope=session.scope,
        )
        for i, turn in enumerate(session.turns)
    ]


def episode_text(episode: EpisodicNode) -> str:
    """What a turn is embedded as: who said it matters ("What did Caroline say...")."""
    return turn_text(episode.speaker, episode.content)


def turn_text(speaker: str, content: str) -> str:
    return f"{speaker}: {content}"


def create_episodes(ctx: IngestContext, user_id: str, episodes: Sequence[EpisodicNode], now: datetime) -> None:
    """Create the episodes' nodes, linked in turn order, without their vectors, which
    `mark_extracted` sets once the write is done (or `keep_vectors` when it fails):
    FalkorDB re-inserts a node into the vector index on any SET, so a vector stored now
    would be indexed twice."""
    rows = [{"uuid": e.uuid, "props": e.to_props() | {"extracted": False}} for e in episodes]
    ctx.store.run(user_id, q.create_linked_episodes(rows, user_id, now))


def embed_episodes(ctx: IngestContext, episodes: Sequence[EpisodicNode]) -> dict[str, VectorParam]:
    """The episodes' vectors by uuid, in the form queries send them (formatted here, off the
    extractor's thread: `VectorParam`)."""
    return dict(zip([e.uuid for e in episodes], map(vector_param, ctx.embed([episode_text(e) for e in episodes]))))


def keep_vectors(ctx: IngestContext, user_id: str, vectors: dict[str, Any]) -> None:
    """A write failed after storing its episodes: give them their vectors now, so they
    are found by meaning until the next write extracts them. Best effort: the
    failure being reported matters more (a store that is down fails this too)."""
    if not vectors:
        return
    try:
        ctx.store.run(user_id, q.set_episode_vectors([{"uuid": u, "embedding": v} for u, v in vectors.items()]))
    except Exception:  # noqa: BLE001 - the write's own error propagates; the next write sets them
        pass


def turn_contexts(episodes: Sequence[EpisodicNode], todo: Sequence[EpisodicNode]) -> list[TurnContext]:
    said = [f"{e.speaker}: {e.content}" for e in episodes]
    position = {e.uuid: i for i, e in enumerate(episodes)}  # == turn_index unless a rebuilt session has gaps
    return [
        TurnContext(
            text=e.content,
            speaker=e.speaker,
            session_time=e.valid_at,
            turn_id=e.name,
            previous=tuple(said[max(0, position[e.uuid] - CONTEXT_TURNS):position[e.uuid]]),
        )
        for e in todo
    ]


def _usable_name(name: str) -> bool:
    return bool(name and name.strip()) and len(name) <= MAX_NAME_CHARS


def mentioned_names(episode: EpisodicNode, extraction: Extraction) -> list[str]:
    """The speaker, the entities and every fact's subject and object of one turn."""
    names = [episode.speaker, *(e.name for e in extraction.entities)]
    names += [name for f in extraction.facts for name in (f.subject, f.object)]
    return [name for name in names if _usable_name(name)]


def collect_names(episodes: Sequence[EpisodicNode], extractions: Sequence[Extraction]) -> dict[str, str]:
    """normalised key -> display name for every entity the write mentions."""
    names: dict[str, str] = {}
    for episode, extraction in zip(episodes, extractions):
        for name in mentioned_names(episode, extraction):
            names.setdefault(normalize_name(name), name.strip())
    return names


def plan_facts(
    user_id: str,
    episode: EpisodicNode,
    extraction: Extraction,
    uuids: dict[str, str],
    vectors: dict[str, np.ndarray],
    now: datetime,
    ttl: timedelta | None = None,
) -> list[PlannedFact]:
    plans = []
    for fact in extraction.facts:
        keys = normalize_name(fact.subject), normalize_name(fact.object)
        usable = all(k in uuids for k in keys) and keys[0] != keys[1] and fact.fact.strip()
        ends = fact.valid_at is None and fact.invalid_at is not None
        valid = None if ends else (fact.valid_at or episode.valid_at)
        invalid = fact.invalid_at if ends or fact.invalid_at is None or fact.invalid_at > valid else None
        try:
            predicate = normalize_predicate(fact.predicate)
        except InvalidInput:
            predicate, usable = "RELATES_TO", False
        edge = FactEdge(
            group_id=user_id,
            name=predicate,
            slot=fact.slot or predicate,
            fact=fact.fact.strip() or "-",
            episodes=[episode.uuid],
            valid_at=valid,
            invalid_at=invalid,
            created_at=now,
            reference_time=episode.valid_at,
            source_node_uuid=uuids.get(keys[0], "-"),
            target_node_uuid=uuids.get(keys[1], "-"),
            importance=fact.importance,
            confidence=fact.confidence,
            scope=episode.scope,
            origin="extracted",
            expires_at=fact.expires_at or (episode.valid_at + ttl if ttl else None),
        )
        plans.append(
            PlannedFact(
                edge=edge,
                embedding=vectors.get(edge.fact, np.zeros(1, dtype=np.float32)),
                single_valued=fact.single_valued,
                derived_from=list(fact.derived_from),
                ignore=not usable,
                ends=ends,
                closes_only=ends and fact.closes_only,
                ends_any=ends and fact.ends_any,
                turn=episode.content,
                object_name=fact.object,
                gate_key=decision_key(episode.uuid, fact.subject, predicate, fact.object),
            )
        )
    return plans


def write_session(ctx: IngestContext, user_id: str, session: SessionIn, *, ttl: timedelta | None = None) -> WriteResult:
    """Store, extract and resolve one validated session for `user_id`, then bump the
    graph version so warm search indexes reload. The caller holds the user's lock.

    When the extractor is `Metered` the result carries this write's LLM calls,
    cache hits and tokens; when it `RecordsErrors`, the answers it gave up on.
    """
    extractor = ctx.extractor
    meter = extractor.meter if isinstance(extractor, Metered) else None
    failures = extractor.errors if isinstance(extractor, RecordsErrors) else ()
    before, seen = (meter.snapshot() if meter else None), len(failures)
    result = _store_and_extract(ctx, user_id, session, ttl)
    ctx.store.run(user_id, q.bump_version())
    used = diff(before, meter.snapshot()).total if meter else None
    return result.model_copy(update=usage_fields(used, failures[seen:]))


def usage_fields(used: StageStats | None, failures: Sequence[Failure]) -> dict:
    """The `WriteResult` fields for what a write cost and what it gave up on; pure."""
    fields: dict = {"errors": tuple(f"{f.stage} {f.turn_id}: {f.message}" for f in failures)} if failures else {}
    if used is not None:
        fields |= {
            "llm_calls": used.calls,
            "llm_cache_hits": used.cache_hits,
            "llm_prompt_tokens": used.prompt_tokens,
            "llm_completion_tokens": used.completion_tokens,
        }
    return fields


def _store_and_extract(ctx: IngestContext, user_id: str, session: SessionIn, ttl: timedelta | None) -> WriteResult:
    """store episodes | embed episodes | extract -> resolve entities -> resolve facts -> mark done.

    Two more threads create the new episodes' nodes and embed them while this one
    extracts and resolves; it waits for the nodes only to link mentions to them, and for
    the vectors only to mark the episodes done. Why not store, then resolve: the serial
    resolution left one core idle for a fifth of a short-turn write (docs/benchmark-runs.md, short-turn
    ingest). Why not create, then embed, on one thread: on short turns the embedding is the
    write's longest part, and it waited 3-8 ms a session for the create query. The episodes are stored even when extraction or resolution raises (that
    error then propagates, after their vectors are stored too); a storage error
    propagates either way."""
    now = t.now_utc()
    episodes = build_episodes(user_id, session, now)
    rows = ctx.store.run(user_id, q.existing_episodes([e.uuid for e in episodes]))
    episodes = distinct_names(ctx, user_id, session, episodes, {row["uuid"]: row["name"] for row in rows})
    known = {row["uuid"]: row["extracted"] for row in rows}
    bare = {row["uuid"] for row in rows if row["bare"]}
    new = [e for e in episodes if e.uuid not in known]
    todo = [e for e in episodes if not known.get(e.uuid)]
    if not todo:  # every turn stored and extracted before (so none is new)
        return WriteResult(episodes_skipped=len(episodes), episode_uuids=tuple(e.uuid for e in episodes))
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="graphmem-episodes") as pool:
        created = pool.submit(create_episodes, ctx, user_id, new, now) if new else None
        embedded = pool.submit(embed_episodes, ctx, new) if new else None
        pending = Pending(created, embedded)
        try:
            extractions = ctx.extractor.extract(turn_contexts(episodes, todo))
            return _resolve(ctx, user_id, episodes, new, todo, extractions, pending, bare, now, ttl)
        except BaseException:
            keep_vectors(ctx, user_id, pending.vectors())  # a storage error raises here, chained to this one
            raise


def distinct_names(ctx: IngestContext, user_id: str, session: SessionIn, episodes: list[EpisodicNode],
                   stored: dict[str, str]) -> list[EpisodicNode]:
    """The episodes with the turn ids they are cited by: a stored turn's own, and for a new
    turn whose generated id (`<session time>#0`, `<session id>#0`) another stored turn already
    has, that id with `~` and a short hash of its scope and text (not of its uuid, which
    holds the user: two users' same writes cite the same ids). Why: two writes at one session
    time (a date given twice a day) or one session id with other turns stored turns under one
    id, and a fact citing it led to all of them. A caller's own turn id is kept as given, and
    is taken for a generated one in the same write (`s#1` given for turn 0, `s#1` made for 1)."""
    generated = [e for e, turn in zip(episodes, session.turns) if turn.turn_id is None and e.uuid not in stored]
    taken = {row["name"] for row in ctx.store.run(
        user_id, q.names_taken([e.name for e in generated], [e.uuid for e in generated]))} if generated else set()
    taken |= {turn.turn_id for turn in session.turns if turn.turn_id is not None}
    clashing = {e.uuid for e in generated if e.name in taken}

    def cited_as(e: EpisodicNode) -> str:
        if e.uuid in stored:
            return stored[e.uuid]
        if e.uuid not in clashing:
            return e.name
        said = hashlib.blake2s(f"{e.scope}\x1f{e.content}".encode(), digest_size=4).hexdigest()
        return f"{e.name}~{said}"

    named = [(e, cited_as(e)) for e in episodes]
    return [e if name == e.name else e.model_copy(update={"name": name}) for e, name in named]


class Pending:
    """The episodes' two threads, as `_resolve` needs them: their nodes (to link mentions)
    and their vectors (to mark them done), each waited for only then."""

    def __init__(self, created: Future | None, embedded: Future | None) -> None:
        self._created, self._embedded = created, embedded

    def nodes(self) -> None:
        if self._created is not None:
            self._created.result()

    def vectors(self) -> dict[str, VectorParam]:
        self.nodes()
        return self._embedded.result() if self._embedded is not None else {}


def _resolve(ctx: IngestContext, user_id: str, episodes: Sequence[EpisodicNode], new: Sequence[EpisodicNode],
             todo: Sequence[EpisodicNode], extractions: Sequence[Extraction], pending: Pending,
             bare: set[str], now: datetime, ttl: timedelta | None) -> WriteResult:
    """resolve entities -> resolve facts -> mark done (with the new episodes' vectors)."""
    names = collect_names(todo, extractions)
    resolver = ctx.extractor if isinstance(ctx.extractor, EntityResolver) else None
    same = (lambda pairs: resolver.resolve_entities([_pair(a, b) for a, b in pairs])) if resolver else None
    entities = resolve_entities(ctx.store, user_id, names, ctx.embed, now=now, same_entity=same)

    mentions = {(e.uuid, entities.uuids[k]) for e, x in zip(todo, extractions) for k in _keys(e, x) if k in entities.uuids}
    if mentions:
        pending.nodes()
        ctx.store.run(user_id, q.create_mentions(sorted(mentions), user_id, now))

    texts = sorted({f.fact.strip() for x in extractions for f in x.facts if f.fact.strip()})
    fact_vectors = dict(zip(texts, ctx.embed(texts))) if texts else {}
    per_episode = [plan_facts(user_id, e, x, entities.uuids, fact_vectors, now, ttl) for e, x in zip(todo, extractions)]
    plans = [p for group in per_episode for p in group]
    _offset_derivations(per_episode)
    llm = ctx.extractor if isinstance(ctx.extractor, FactResolver) else None
    outcome = resolve_facts(ctx.store, user_id, plans, now=now, llm=llm)

    edges_of: dict[str, list[str]] = {e.uuid: [] for e in todo}
    for plan, uuid in zip(plans, outcome.fact_uuids):
        if uuid:
            edges_of[plan.edge.episodes[0]].append(uuid)
    vectors = pending.vectors()
    unembedded = [e for e in todo if e.uuid in bare]  # stored by a write that stopped before marking them
    if unembedded:
        vectors = vectors | dict(zip([e.uuid for e in unembedded], ctx.embed([episode_text(e) for e in unembedded])))
    marks = [{"uuid": u, "edges": sorted(set(v))} for u, v in edges_of.items()]
    with_vector = [m | {"embedding": vectors[m["uuid"]]} for m in marks if m["uuid"] in vectors]
    if with_vector:
        ctx.store.run(user_id, q.mark_extracted(with_vector, vectors=True))
    if len(with_vector) < len(marks):
        ctx.store.run(user_id, q.mark_extracted([m for m in marks if m["uuid"] not in vectors]))
    if outcome.fact_uuids:
        ctx.store.run(user_id, q.rebuild_summaries(sorted(set(entities.uuids.values()))))
    counts = outcome.counts
    return WriteResult(
        episodes=len(new),
        episodes_skipped=len(episodes) - len(todo),
        entities_new=entities.new,
        entities_merged=entities.merged,
        facts_added=counts["added"] + counts["superseded"],
        facts_merged=counts["merged"],
        facts_superseded=counts["closed"],
        facts_ignored=counts["ignored"],
        facts_candidate=counts["candidate"],
        episode_uuids=tuple(e.uuid for e in episodes),
    )


def _keys(episode: EpisodicNode, extraction: Extraction) -> set[str]:
    return {normalize_name(name) for name in mentioned_names(episode, extraction)}


def _offset_derivations(per_episode: list[list[PlannedFact]]) -> None:
    """derived_from indexes are per extraction; make them index the flat plan list."""
    offset = 0
    for group in per_episode:
        for plan in group:
            plan.derived_from = [offset + j for j in plan.derived_from if 0 <= j < len(group)]
        offset += len(group)


def _pair(a: str, b: str):
    from graphmem.ingest.prompts.resolve import EntityPair

    return EntityPair(name_a=a, name_b=b)
