"""Packet lines: the ranked facts, chains, turns and entities of a search as packet
models, cut to the token budget.

Split from `retrieval.search`, which decides what is relevant; here that decision is
only rendered: which source turns a fact line names, which entities and chains go with
the facts, and which lines a tight budget drops first.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from graphmem.graph import cypher as q
from graphmem.graph import fact_repository
from graphmem.retrieval.admission import CHAIN_STEP, admit
from graphmem.retrieval.chains import FactChain, follow_chains
from graphmem.retrieval.fact_turns import SOURCES_PER_FACT, pick_sources
from graphmem.retrieval.index import UserIndexes
from graphmem.retrieval.packet import (
    CHAINS_TITLE, ENTITIES_TITLE, PacketChain, PacketEntity, PacketEpisode, PacketFact, estimate_tokens,
)
from graphmem.retrieval.query import QueryPlan
from graphmem.retrieval.recipes import SearchRecipe
from graphmem.schema import time as t
from graphmem.schema.records import FactRecord

MAX_ENTITIES = 8
SUMMARY_CHARS = 300


def episode_lines(ctx, user_id, ordered: list[str], known_at, recipe, scopes: Sequence[str]) -> list[PacketEpisode]:
    if not ordered:
        return []
    rows = {r["uuid"]: r for r in ctx.store.run(user_id, q.episodes_by_uuid(ordered), read_only=True)}
    episodes = []
    for rank, uuid in enumerate(ordered):
        row = rows.get(uuid)
        if row is None or row["scope"] not in scopes or (known_at is not None and t.decode(row["created_at"]) > known_at):
            continue
        content = row["content"]
        if len(content) > recipe.max_turn_chars:
            content = content[: recipe.max_turn_chars - 1] + "…"
        episodes.append(PacketEpisode(turn_id=row["turn_id"], session_time=t.decode(row["session_time"]),
                                      speaker=row["speaker"], content=content, score=1.0 / (rank + 1),
                                      scope=row["scope"]))
    return episodes


def fact_lines(ctx, user_id: str, records: list[FactRecord], turn_rank: dict[str, int],
               why: dict[str, tuple[str, ...]]) -> list[PacketFact]:
    picked = {r.uuid: pick_sources(r.episodes, turn_rank, SOURCES_PER_FACT) for r in records}
    wanted = sorted({u for r in records if len(r.episodes) > SOURCES_PER_FACT for u in picked[r.uuid]})
    names = {row["uuid"]: row["name"] for row in ctx.store.run(user_id, q.episode_names(wanted), read_only=True)} if wanted else {}
    return [
        PacketFact(
            uuid=r.uuid, fact=r.fact, subject=r.subject, predicate=r.predicate, object=r.object,
            valid_at=r.valid_at, invalid_at=r.invalid_at, status=r.status,
            superseded_by=r.superseded_by, superseded_by_fact=r.superseded_by_fact,
            source_turn_ids=(tuple(names[u] for u in picked[r.uuid] if u in names)
                             if len(r.episodes) > SOURCES_PER_FACT else r.source_turn_ids),
            sources_total=len(r.source_turn_ids), score=1.0 / (rank + 1),
            confidence=r.confidence, scope=r.scope, expires=r.expires_at, reason=why.get(r.uuid, ()),
        )
        for rank, r in enumerate(records)
    ]


def followed_chains(ctx, user_id: str, idx: UserIndexes, facts: list[FactRecord], plan: QueryPlan, now: datetime,
                    known_at: datetime | None, recipe: SearchRecipe, scopes: Sequence[str]) -> list[FactChain]:
    """The packet facts whose object is itself a key on the same relation, followed
    to the end (`retrieval.chains`); a fact that leads nowhere is no chain.

    Only pairs some stored fact has (`UserIndexes.subject_relations`, of the
    search's graph version) are sent: most packet facts lead nowhere, and their
    lookup was a round trip (~1 ms of the server's time at 10k facts) that found
    no row."""
    def lookup(pairs):
        pairs = [p for p in pairs if p in idx.subject_relations]
        if not pairs:
            return []
        rows = ctx.store.run(user_id, q.facts_from_subjects(pairs), read_only=True)
        return fact_repository.to_records(ctx.store, user_id, rows, now=now, known_at=known_at, access=False)

    def admitted(record: FactRecord) -> bool:
        if record.scope not in scopes or (known_at is not None and record.created_at > known_at):
            return False
        return admit(record, plan, now, time_filter=recipe.time_filter)

    return [c for c in follow_chains(facts, lookup, admitted) if len(c.steps) > 1]


def chain_lines(ctx, user_id: str, chains: list[FactChain], turn_rank: dict[str, int],
                why: dict[str, tuple[str, ...]]) -> list[PacketChain]:
    """Chains as packet lines; a step after the first is there because the chain led to it."""
    out = []
    for c in chains:
        step_why = {s.uuid: why.get(s.uuid, ()) + (CHAIN_STEP,) for s in c.steps[1:]} | {c.steps[0].uuid: why[c.steps[0].uuid]}
        out.append(PacketChain(predicate=c.predicate, steps=tuple(fact_lines(ctx, user_id, list(c.steps), turn_rank, step_why)),
                               terminal=c.terminal, verified_terminal=c.verified_terminal, stop=c.stop))
    return out


def entity_lines(ctx, user_id: str, named: list[str], facts: list[PacketFact], mode: str, now: datetime,
                 known_at: datetime | None, scopes: Sequence[str], turns: bool = True) -> list[PacketEntity]:
    """The entities the question names, then those the packet's facts cite, best fact first.
    A named entity that no fact or turn of the searched scopes holds is left out: its
    line would come from another scope."""
    if not named and not facts:
        return []
    rows = ctx.store.run(user_id, q.packet_entities(named, [f.uuid for f in facts], now, scopes, turns=turns), read_only=True)
    cited_names = {n for f in facts for n in (f.subject, f.object)}
    rows = [r for r in rows if r["facts"] or r["mentioned"] or r["name"] in cited_names]
    by_uuid = {r["uuid"]: r for r in rows}
    by_name = {r["name"]: r["uuid"] for r in rows}
    cited = [by_name[n] for f in facts for n in (f.subject, f.object) if n in by_name]
    entities = []
    for uuid in list(dict.fromkeys([u for u in named if u in by_uuid] + cited))[:MAX_ENTITIES]:
        row = by_uuid[uuid]
        known_since = t.decode(row["created_at"]) if row["created_at"] else None
        if known_at is not None and known_since is not None and known_since > known_at:
            continue
        cites = [f for f in facts if row["name"] in (f.subject, f.object)]
        entities.append(entity_view(row, known_since, uuid in named, cites, today=mode == "current" and known_at is None))
    return entities


def entity_view(row: dict, known_since: datetime | None, named: bool, facts: list[PacketFact], *,
                today: bool) -> PacketEntity:
    """One entity as of the query's time. Its live facts (`row["facts"]`) hold at
    `now` as believed today, so only a current-mode question without `known_at`
    uses them; otherwise, or when it is the subject of none, the summary is the
    packet's facts about it, which were kept for the asked time. The span covers
    those packet facts."""
    live = " ".join(row["facts"] or []) if today else ""
    summary = live or " ".join(f.fact for f in facts)
    if len(summary) > SUMMARY_CHARS:
        summary = summary[: SUMMARY_CHARS - 1] + "…"
    starts = [f.valid_at for f in facts]
    ends = [f.invalid_at for f in facts]
    return PacketEntity(
        uuid=row["uuid"], name=row["name"], summary=summary, known_since=known_since, named_in_question=named,
        valid_at=None if not starts or None in starts else min(starts),
        invalid_at=None if not ends or None in ends else max(ends),
        fact_uuids=tuple(f.uuid for f in facts),
    )


def fit(facts: list[PacketFact], episodes: list[PacketEpisode], budget: int, chains: Sequence[PacketChain] = ()):
    """Drop the least relevant lines until the rendered packet fits `budget` tokens.

    A chain goes with the fact it starts from. The most relevant line always
    stays: a packet that does not abstain is never empty, even when that one
    line alone is over the budget."""
    def kept_chains() -> list[PacketChain]:
        starts = {f.uuid for f in facts}
        return [c for c in chains if c.steps[0].uuid in starts]

    def cost():
        lines = [f.line() for f in facts] + [e.line() for e in episodes]
        kept = kept_chains()
        lines += [c.line() for c in kept] + ([CHAINS_TITLE] if kept else [])
        return sum(estimate_tokens(line) + 1 for line in lines) + 12
    while cost() > budget and len(facts) + len(episodes) > 1:
        if episodes and (len(episodes) >= len(facts)):
            episodes.pop()
        else:
            facts.pop()
    return facts, episodes, kept_chains(), cost()


def fit_entities(entities: list[PacketEntity], used: int, budget: int) -> tuple[list[PacketEntity], int]:
    """Entities take what the facts and turns left of the budget: they restate
    the facts, so they are the first thing a tight budget drops."""
    kept: list[PacketEntity] = []
    used += estimate_tokens(ENTITIES_TITLE) + 1
    for entity in entities:
        cost = estimate_tokens(entity.line()) + 1
        if used + cost > budget:
            break
        kept.append(entity)
        used += cost
    return kept, used
