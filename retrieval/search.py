"""`Memory.search`: question -> candidate lists -> fusion -> time filter -> packet.

Candidates come from three places (ARCHITECTURE §6): BM25 over facts and turns,
MiniLM similarity over facts and turns (FalkorDB vector indexes), and the graph
(facts around the entities the question names; turns that mention them; the
turns next to the best hits). Lists are fused by weighted RRF (turn lists in a
memory of named speakers by the fitted scorer of `retrieval.learned_fusion`; in a
user-assistant memory with the question-parts list and the user's own turns
first, `retrieval.query_parts`),
facts are then kept or dropped by the question's time mode, and the packet cites
its turns.

Abstention (`retrieval/abstention.py`): the packet says nothing was ever said
when the question's topic words are missing from every stored turn and fact and
the question, names masked, is not similar to any of them; thresholds chosen on
the tuning split by `bench/abstention.py` (README: "Abstention").
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from graphmem.graph import cypher as q
from graphmem.schema.errors import InvalidInput
from graphmem.graph import fact_repository
from graphmem.retrieval import abstention
from graphmem.retrieval.admission import CHAIN_STEP, admit, reasons
from graphmem.retrieval.chains import FactChain, follow_chains
from graphmem.schema.decay import decay_rerank
from graphmem.retrieval.fusion import get_reranker, mmr, rrf
from graphmem.retrieval.index import UserIndexes, WarmIndexes
from graphmem.retrieval.packet import (
    CHAINS_TITLE, ENTITIES_TITLE, MemoryPacket, PacketChain, PacketEntity, PacketEpisode, PacketFact,
    estimate_tokens,
)
from graphmem.retrieval.query import QueryPlan, analyze
from graphmem.retrieval import learned_fusion
from graphmem.retrieval.recipes import FactList, Fusion, Reranker, SearchRecipe, TurnList
from graphmem.retrieval.scoped import EVERY_SCOPE, ScopedView, narrow
from graphmem.retrieval.fact_turns import pull_sources
from graphmem.retrieval.feedback import expanded_scores
from graphmem.retrieval.tokenize import tokenize
from graphmem.retrieval.session_cap import cap_sessions
from graphmem.retrieval import session_dense
from graphmem.retrieval import session_rank
from graphmem.retrieval.time_prior import time_list, until
from graphmem.retrieval import query_parts
from graphmem.retrieval.turn_views import view_lists
from graphmem.schema import time as t
from graphmem.schema.records import FactRecord
from graphmem.graph.store import Store

TOKENS_PER_RESULT = 150
SOURCES_PER_FACT = 3
SELF_KEYS = ("user",)
MAX_ENTITIES = 8
SUMMARY_CHARS = 300


@dataclass(frozen=True)
class RetrievalContext:
    store: Store
    embed: Callable[[Sequence[str]], np.ndarray]
    indexes: WarmIndexes


def _fact_lists(ctx: RetrievalContext, user_id: str, idx: UserIndexes, plan: QueryPlan, vector, entity_uuids,
                recipe: SearchRecipe, view: ScopedView = EVERY_SCOPE,
                ) -> tuple[dict[FactList, list[str]], float, dict[str, int]]:
    lists: dict[FactList, list[str]] = {}
    best = 0.0
    distance: dict[str, int] = {}
    n = recipe.candidates
    if FactList.BM25 in recipe.fact_weights:
        lists[FactList.BM25] = [s.doc_id for s in idx.facts.search(plan.text, n)]
    if FactList.VECTOR in recipe.fact_weights:
        rows = ctx.store.run(user_id, view.vector_facts(vector, n), read_only=True)
        lists[FactList.VECTOR] = [r["uuid"] for r in rows]
        best = max((r["similarity"] for r in rows), default=0.0)
    if FactList.BFS in recipe.fact_weights and entity_uuids:
        rows = ctx.store.run(user_id, q.facts_near_entities(entity_uuids, recipe.bfs_hops, n, view.scopes),
                             read_only=True)
        lists[FactList.BFS] = [r["uuid"] for r in rows]
        distance = {r["uuid"]: int(r["distance"]) for r in rows}
    return lists, best, distance


def _abstain_names(plan: QueryPlan, recipe: SearchRecipe) -> list[str]:
    """The question's known names that abstention masks and leaves out of its topic words."""
    if recipe.abstain_names == "all":
        return list(plan.entity_keys)
    return abstention.proper_names(plan.text, plan.entity_keys)


def _abstain_signals(ctx: RetrievalContext, user_id: str, idx: UserIndexes, plan: QueryPlan, names: Sequence[str],
                     best: float, masked_vector: list[float] | None, view: ScopedView = EVERY_SCOPE,
                     exchange: bool = True, window: int = 1) -> abstention.AbstainSignals:
    """Topic-word coverage (with `exchange`, of each turn read with its `window` neighbours on each
    side) and the best
    similarity of the question with its `names` masked (`masked_vector`: None when masking left
    the question unchanged)."""
    terms = abstention.topic_terms(plan.text, names)
    if exchange and idx.turns is not None and len(idx.episodes):
        covered = max(abstention.exchange_coverage(idx.episodes, terms, idx.turns.near(window)),
                      abstention.coverage((idx.facts,), terms))
    else:
        covered = abstention.coverage((idx.episodes, idx.facts), terms)
    similarity = best
    if masked_vector is not None:
        rows = ctx.store.run(user_id, view.vector_episodes(masked_vector, 1), read_only=True) if len(idx.episodes) else []
        rows += ctx.store.run(user_id, view.vector_facts(masked_vector, 1), read_only=True)
        similarity = max((r["similarity"] for r in rows), default=0.0)
    return abstention.AbstainSignals(coverage=covered, masked_similarity=similarity,
                                     documents=len(idx.episodes) + len(idx.facts))


def _fuse[L: (FactList, TurnList)](lists: dict[L, list[str]], weights: dict[L, float], k: int,
                                    extra: Sequence[tuple[list[str], float]] = ()) -> list[str]:
    names = [name for name in lists if lists[name]]
    rankings = [lists[n] for n in names] + [ranking for ranking, _ in extra if ranking]
    return [s.doc_id for s in rrf(rankings, k=k, weights=[weights[n] for n in names] + [w for r, w in extra if r])]


def _fuse_turns(idx: UserIndexes, plan: QueryPlan, lists: dict[TurnList, list[str]], recipe: SearchRecipe,
                extra: list[tuple[list[str], float]], bm25_scores: np.ndarray | None) -> list[str]:
    """The turn lists by weighted RRF, with the question-parts list, then the user's own turns
    first in a user-assistant memory (`retrieval.query_parts`; each off at its recipe's neutral value)."""
    if recipe.query_parts and idx.turns is not None and bm25_scores is not None:
        extra = [*extra, (query_parts.parts_list(idx.turns, idx.episodes, plan.text, recipe.candidates),
                          recipe.query_parts)]
    names = [name for name in lists if lists[name]]
    rankings = [lists[n] for n in names] + [ranking for ranking, _ in extra if ranking]
    weights = [recipe.turn_weights[n] for n in names] + [w for r, w in extra if r]
    return query_parts.own_turns_first(rrf(rankings, k=recipe.rrf_k, weights=weights), idx.turns, recipe.other_turns)


def _learned_turns(idx: UserIndexes, plan: QueryPlan, lists: dict[TurnList, list[str]], time_turns: list[str],
                   recipe: SearchRecipe, bm25_scores: np.ndarray | None) -> list[str]:
    """The turn lists ordered by the fitted linear scorer (`retrieval.learned_fusion`)."""
    named = {str(name): ranking for name, ranking in lists.items()} | {"time": time_turns}
    weights = {str(name): w for name, w in recipe.turn_weights.items()} | {"time": recipe.time_prior}
    table = idx.turns
    candidates = {u for ranking in named.values() for u in ranking}
    pos = table.position() if table is not None else {}
    at = {u: pos[u] for u in candidates if u in pos}
    lengths = (np.asarray(idx.episodes.counts[list(at.values())].sum(axis=1)).ravel()
               if at else np.zeros(0))
    turns = learned_fusion.TurnFacts(
        session={u: table.sessions[i] for u, i in at.items()},
        length=dict(zip(at, lengths.tolist(), strict=True)),
        speaker={u: str(table.speakers[i]) for u, i in at.items()},
        bm25={u: float(bm25_scores[i]) for u, i in at.items()} if bm25_scores is not None else {},
    )
    ids, x = learned_fusion.features(named, weights, recipe.rrf_k, turns, plan.entity_keys, plan.first_person)
    return learned_fusion.order(ids, x, learned_fusion.load_weights())


def _reorder_turns(idx: UserIndexes, ranked: list[str], facts: list[FactRecord], recipe: SearchRecipe,
                   limit: int) -> list[str]:
    """The opt-in rewrites of the fused turn list: fact sources pulled up, then the per-session cap."""
    if recipe.fact_turn_stride:
        rank = {u: i for i, u in enumerate(ranked)}
        sources = [next(iter(pick_sources(f.episodes, rank, 1)), None) for f in facts]
        ranked = pull_sources(ranked, sources, recipe.fact_turn_stride)
    if recipe.session_cap and idx.turns is not None:
        table = idx.turns
        pos = table.position()
        session_of = {u: table.sessions[pos[u]] for u in ranked if u in pos}
        ranked = cap_sessions(ranked, session_of, recipe.session_cap, limit)
    return ranked


def _session_prior(ctx, user_id: str, idx: UserIndexes, ranked: list[str], vector, recipe: SearchRecipe
                   ) -> list[str]:
    """The fused turns reordered by the session centroid ranking (`retrieval.session_dense`); opt-in."""
    cfg = recipe.session_prior
    if cfg is None or not ranked:
        return ranked
    sv = session_dense.vectors_of(ctx.store, user_id, idx, cfg.own)
    if sv is None:
        return ranked
    table = idx.turns
    if cfg.mode == "list":
        dense = session_dense.session_list(sv, table, vector, cfg.sessions, cfg.per_session)
        return [x.doc_id for x in rrf([ranked, dense], k=cfg.rrf_k, weights=[1.0, cfg.weight])]
    pos = table.position()
    session_of = {u: table.sessions[pos[u]] for u in ranked if u in pos}
    centroid = sv.rank_sessions(vector)
    order = session_dense.session_order(ranked, session_of, centroid, cfg.rrf_k)
    present = set(session_of.values())
    wanted = [s for s in order[: cfg.sessions * 3] if s not in present]
    best = {s: turns[0] for s in wanted if (turns := sv.best_turns(table, vector, s, 1))}
    return session_dense.promote_sessions(ranked, session_of, order, best, cfg.head, cfg.sessions)


def _session_tail(ctx, user_id: str, idx: UserIndexes, plan: QueryPlan, ranked: list[str], vector,
                  bm25_scores: np.ndarray | None, recipe: SearchRecipe, now: datetime) -> list[str]:
    """The turns after the first `head` reordered so the first ones cover the best sessions,
    sessions ranked by their documents' BM25 with their fused first appearance
    (`retrieval.session_rank`); off when `recipe.session_tail` is None."""
    cfg = recipe.session_tail
    table = idx.turns
    if cfg is None or not ranked or table is None or not table.uuids or bm25_scores is None:
        return ranked
    pos = table.position()
    session_of = {u: table.sessions[pos[u]] for u in ranked if u in pos}
    orders = [(list(dict.fromkeys(session_of[u] for u in ranked if u in session_of)), cfg.fused)]
    if cfg.bm25:
        index = session_rank.session_index(idx, cfg.own)
        if index is not None:
            orders.append((session_rank.ranked_sessions(index, plan.text), cfg.bm25))
    if cfg.dense or cfg.dated:
        sv = session_dense.vectors_of(ctx.store, user_id, idx, False)
        dense = session_rank.dense_sessions(table, sv.turns, vector) if sv is not None else []
        orders.append((dense, cfg.dense))
        cut = until(plan.range_start, plan.range_end, now) if plan.time_words and plan.mode == "as_of" else None
        if cfg.dated and cut is not None:
            orders.append((session_rank.dated_sessions(table, dense, *cut), cfg.dated))
    order = session_rank.fuse_orders(orders, cfg.rrf_k)
    present = set(session_of.values())
    wanted = [s for s in order[: cfg.sessions * 3] if s not in present]
    mask = table.own_turns if cfg.own and table.own_turns.any() else None
    best = session_rank.best_turn_by_scores(table, bm25_scores, wanted, mask)
    return session_rank.tail(ranked, session_of, order, best, cfg.head, cfg.sessions)


def _pool_rows(ctx, user_id: str, pool: list[str], first: int) -> Iterator[dict]:
    """The stored rows of `pool`, in its order, fetched `first` at a time and then
    the rest, as they are read. Why: at 10k facts nine searches in ten fill their
    lines from the first 20 of the 40, so the other 20 rows (their parsing, the
    server's projection) are mostly never needed; the tenth pays a round trip more."""
    for batch in (pool[:first], pool[first:]):
        if batch:
            by_uuid = {r["uuid"]: r for r in ctx.store.run(user_id, q.facts_by_uuid(batch), read_only=True)}
            yield from (by_uuid[u] for u in batch if u in by_uuid)


def _rank_facts(ctx, user_id, ordered: list[str], plan, now, known_at, limit, recipe, distance,
                scopes: Sequence[str] = ("user",)) -> list[FactRecord]:
    if not ordered:
        return []
    pool = ordered[: max(limit * 4, 20)]

    def keep(r: FactRecord) -> bool:
        return ((known_at is None or r.created_at <= known_at) and r.scope in scopes
                and admit(r, plan, now, time_filter=recipe.time_filter))

    if recipe.reranker == Reranker.RRF and plan.mode != "historical":  # the fused order is the packet's
        return fact_repository.first_records(ctx.store, user_id, _pool_rows(ctx, user_id, pool, limit * 2), keep,
                                             limit, now=now, known_at=known_at)
    rows = ctx.store.run(user_id, q.facts_by_uuid(pool), read_only=True)
    records = {r.uuid: r for r in fact_repository.to_records(ctx.store, user_id, rows, now=now, known_at=known_at,
                                                             access=False)}
    kept = [records[u] for u in pool if u in records and keep(records[u])]
    if recipe.reranker == "mmr" and kept:
        vectors = dict(zip([r.uuid for r in kept], ctx.embed([r.fact for r in kept])))
        relevance = {r.uuid: 1.0 / (i + 1) for i, r in enumerate(kept)}
        order = [s.doc_id for s in mmr([r.uuid for r in kept], relevance, vectors, recipe.mmr_lambda, len(kept))]
        kept = [records[u] for u in order]
    elif recipe.reranker == Reranker.NODE_DISTANCE:
        kept = [records[s.doc_id] for s in get_reranker(Reranker.NODE_DISTANCE)([r.uuid for r in kept], distance)]
    elif recipe.reranker == Reranker.DECAY:
        kept = [records[s.doc_id] for s in decay_rerank(kept, now)]
    elif recipe.reranker == Reranker.EPISODE_MENTIONS:
        mentions = {r.uuid: len(r.episodes) for r in kept}
        kept = [records[s.doc_id] for s in get_reranker(Reranker.EPISODE_MENTIONS)([r.uuid for r in kept], mentions)]
    elif recipe.reranker not in (Reranker.RRF, Reranker.MMR):
        raise InvalidInput(f"search has no step for reranker {recipe.reranker!r}")
    if plan.mode == "historical":
        kept.sort(key=lambda r: r.status == "current")
    return kept[:limit]


def _turn_lists(ctx, user_id, idx, plan, vector, facts: list[FactRecord], entity_uuids, recipe,
                bm25_scores: np.ndarray | None, view: ScopedView = EVERY_SCOPE):
    """The turn candidate lists; a user with no turns (facts imported by `add_facts`)
    has none, and the turn queries are not sent (the index holds every stored turn).
    `bm25_scores`: the question's BM25 scores over every turn, computed once per search."""
    lists: dict[TurnList, list[str]] = {}
    n = recipe.candidates
    weights = recipe.turn_weights
    best = 0.0
    if bm25_scores is None:
        return lists, best
    if TurnList.BM25 in weights:
        ranked = bm25_scores if recipe.feedback is None else expanded_scores(
            idx.episodes, bm25_scores, tokenize(plan.text), recipe.feedback)
        lists[TurnList.BM25] = [s.doc_id for s in idx.episodes.top(ranked, n)]
    if TurnList.VECTOR in weights:
        rows = ctx.store.run(user_id, view.vector_episodes(vector, n), read_only=True)
        lists[TurnList.VECTOR] = [r["uuid"] for r in rows]
        best = max((r["similarity"] for r in rows), default=0.0)
    if TurnList.FACTS in weights:
        found = {u: i for name in (TurnList.VECTOR, TurnList.BM25) for i, u in enumerate(lists.get(name, []))}
        picked = (pick_sources(f.episodes, found, SOURCES_PER_FACT) for f in facts)
        lists[TurnList.FACTS] = list(dict.fromkeys(u for sources in picked for u in sources))
    if TurnList.MENTIONS in weights and entity_uuids:
        rows = ctx.store.run(user_id, q.episodes_mentioning(entity_uuids, n, view.scopes), read_only=True)
        lists[TurnList.MENTIONS] = [r["uuid"] for r in rows]
    chat = idx.turns is not None and bool(np.any(idx.turns.own_turns))
    if TurnList.NEIGHBOURS in weights and (recipe.chat_neighbours != "none" or not chat):
        top = recipe.neighbour_seeds
        seeds = list(dict.fromkeys(lists.get(TurnList.VECTOR, [])[:top] + lists.get(TurnList.BM25, [])[:top]))
        if seeds:
            rows = ctx.store.run(user_id, q.episode_neighbours(seeds), read_only=True)
            rank = {uuid: i for i, uuid in enumerate(seeds)}
            rows.sort(key=lambda r: rank[r["of"]])
            lists[TurnList.NEIGHBOURS] = list(dict.fromkeys(r["uuid"] for r in rows))
            if chat and recipe.chat_neighbours == "user":
                pos, own = idx.turns.position(), idx.turns.own_turns
                lists[TurnList.NEIGHBOURS] = [u for u in lists[TurnList.NEIGHBOURS] if u in pos and own[pos[u]]]
    lists |= view_lists(idx, plan, lists, recipe, bm25_scores)
    return lists, best


def _in_scopes(ctx, user_id: str, ordered: list[str], scopes: Sequence[str]) -> list[str]:
    """The turns of `scopes`, in order: the turn lists are built over every scope."""
    if not ordered:
        return []
    scope_of = {r["uuid"]: r["scope"] for r in ctx.store.run(user_id, q.episode_scopes(ordered), read_only=True)}
    return [u for u in ordered if scope_of.get(u) in scopes]


def _episodes(ctx, user_id, ordered: list[str], known_at, recipe, scopes: Sequence[str]) -> list[PacketEpisode]:
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


def pick_sources(episodes: Sequence[str], rank: dict[str, int], keep: int) -> list[str]:
    """A fact's `keep` most relevant source episodes: those the search ranked, best
    first, then the most recent. A fact restated 700 times cites a few turns, so
    its line cannot crowd the evidence out of the packet."""
    ranked = sorted((u for u in episodes if u in rank), key=rank.__getitem__)
    recent = [u for u in reversed(episodes) if u not in rank]
    return (ranked + recent)[:keep]


def _packet_facts(ctx, user_id: str, records: list[FactRecord], turn_rank: dict[str, int],
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


def _chains(ctx, user_id: str, idx: UserIndexes, facts: list[FactRecord], plan: QueryPlan, now: datetime,
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


def _packet_chains(ctx, user_id: str, chains: list[FactChain], turn_rank: dict[str, int],
                   why: dict[str, tuple[str, ...]]) -> list[PacketChain]:
    """Chains as packet lines; a step after the first is there because the chain led to it."""
    out = []
    for c in chains:
        step_why = {s.uuid: why.get(s.uuid, ()) + (CHAIN_STEP,) for s in c.steps[1:]} | {c.steps[0].uuid: why[c.steps[0].uuid]}
        out.append(PacketChain(predicate=c.predicate, steps=tuple(_packet_facts(ctx, user_id, list(c.steps), turn_rank, step_why)),
                               terminal=c.terminal, verified_terminal=c.verified_terminal, stop=c.stop))
    return out


def _packet_entities(ctx, user_id: str, named: list[str], facts: list[PacketFact], mode: str, now: datetime,
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


def _fit(facts: list[PacketFact], episodes: list[PacketEpisode], budget: int, chains: Sequence[PacketChain] = ()):
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


def _fit_entities(entities: list[PacketEntity], used: int, budget: int) -> tuple[list[PacketEntity], int]:
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


def search(ctx: RetrievalContext, user_id: str, query: str, *, now: datetime, as_of: datetime | None,
           known_at: datetime | None, limit: int, recipe: SearchRecipe, budget_tokens: int | None = None,
           scopes: Sequence[str] = ("user",)) -> MemoryPacket:
    """Run one search; see the module docstring for the steps. Only facts and turns
    of `scopes` become lines, and only they are candidates or abstention signals
    (`retrieval.scoped`)."""
    started = time.perf_counter()
    if not ctx.store.has_graph(user_id):
        return MemoryPacket(query=query, abstain=True, reason="nothing has ever been stored for this user")
    idx, view = narrow(ctx.store, user_id, ctx.indexes.get(ctx.store, user_id), scopes)
    plan = analyze(query, now, as_of, idx.entity_uuids.keys())
    names = _abstain_names(plan, recipe)
    masked = abstention.mask_names(plan.text, names)
    embedded = time.perf_counter()
    vectors = ctx.embed([query] if masked == plan.text else [query, masked])
    embed_ms = (time.perf_counter() - embedded) * 1000
    vector = vectors[0].tolist()
    masked_vector = vectors[1].tolist() if len(vectors) > 1 else None
    named = [idx.entity_uuids[k] for k in plan.entity_keys]
    selves = [idx.entity_uuids[k] for k in SELF_KEYS if plan.first_person and k in idx.entity_uuids]
    fact_lists, best_fact, distance = _fact_lists(ctx, user_id, idx, plan, vector, named + selves, recipe, view)
    fused = _fuse(fact_lists, recipe.fact_weights, recipe.rrf_k)
    facts = _rank_facts(ctx, user_id, fused, plan, now, known_at, limit, recipe, distance, scopes)
    turn_scores = idx.episodes.scores(plan.text) if len(idx.episodes) else None
    turn_lists, best_turn = _turn_lists(ctx, user_id, idx, plan, vector, facts, named, recipe, turn_scores, view)
    extra = [(time_list(idx, plan, turn_lists.get(TurnList.VECTOR, []), recipe.candidates, turn_scores,
                        now if recipe.time_prior_until_now else None),
              recipe.time_prior)] if recipe.time_prior else []
    if recipe.fusion == Fusion.LEARNED and idx.turns is not None and learned_fusion.applies(idx.turns.own_turns):
        fused_turns = _learned_turns(idx, plan, turn_lists, extra[0][0] if extra else [], recipe, turn_scores)
    else:
        fused_turns = _fuse_turns(idx, plan, turn_lists, recipe, extra, turn_scores)
    ranked_turns = _reorder_turns(idx, fused_turns, facts, recipe, limit)
    ranked_turns = _session_prior(ctx, user_id, idx, ranked_turns, vector, recipe)
    ranked_turns = _session_tail(ctx, user_id, idx, plan, ranked_turns, vector, turn_scores, recipe, now)
    best = max(best_fact, best_turn)
    signals = _abstain_signals(ctx, user_id, idx, plan, names, best, masked_vector, view, recipe.abstain_exchange,
                               recipe.abstain_window)
    abstain, reason = abstention.decide(signals)
    if abstain:
        return MemoryPacket(query=query, mode=plan.mode, abstain=True, best_similarity=best, reason=reason,
                            topic_coverage=signals.coverage, masked_similarity=signals.masked_similarity,
                            timings_ms={"total": (time.perf_counter() - started) * 1000, "embed": embed_ms})
    turn_rank = {u: i for i, u in enumerate(ranked_turns)}
    why = {r.uuid: reasons(r, [n for n, found in fact_lists.items() if r.uuid in found], plan, distance) for r in facts}
    packet_facts = _packet_facts(ctx, user_id, facts, turn_rank, why)
    chains = _packet_chains(ctx, user_id, _chains(ctx, user_id, idx, facts, plan, now, known_at, recipe, scopes),
                            turn_rank, why)
    episodes = _episodes(ctx, user_id, _in_scopes(ctx, user_id, ranked_turns, scopes)[:limit], known_at, recipe, scopes)
    budget = budget_tokens or TOKENS_PER_RESULT * limit
    packet_facts, episodes, chains, tokens = _fit(packet_facts, episodes, budget, chains)
    entities = _packet_entities(ctx, user_id, list(dict.fromkeys(named + selves)), packet_facts, plan.mode, now,
                                known_at, scopes, turns=len(idx.episodes) > 0)
    entities, with_entities = _fit_entities(entities, tokens, budget)
    tokens = with_entities if entities else tokens
    cited = list(dict.fromkeys([e.turn_id for e in episodes] + [t_ for f in packet_facts for t_ in f.source_turn_ids]
                               + [t_ for c in chains for f in c.steps for t_ in f.source_turn_ids]))
    if packet_facts:
        ctx.store.run(user_id, q.touch_facts([f.uuid for f in packet_facts], t.now_utc()))
    return MemoryPacket(
        query=query, mode=plan.mode, facts=tuple(packet_facts), chains=tuple(chains), episodes=tuple(episodes),
        entities=tuple(entities),
        cited_turn_ids=tuple(cited), tokens=tokens, best_similarity=best,
        topic_coverage=signals.coverage, masked_similarity=signals.masked_similarity,
        timings_ms={"total": (time.perf_counter() - started) * 1000, "embed": embed_ms},
    )
