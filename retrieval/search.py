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

The fused turn order and its rewrites are `retrieval.turn_order`; the packet's
lines and their token budget `retrieval.packet_lines`; the abstention signals
`retrieval.abstain_signals`. Data flows one way: this module calls them, they
call nothing of it.

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
from graphmem.graph import fact_repository
from graphmem.graph.store import Store
from graphmem.retrieval import abstain_signals, abstention, learned_fusion, packet_lines, turn_order
from graphmem.retrieval.admission import admit, reasons
from graphmem.retrieval.fact_turns import SOURCES_PER_FACT, pick_sources
from graphmem.retrieval.feedback import expanded_scores
from graphmem.retrieval.fusion import get_reranker, mmr, rrf
from graphmem.retrieval.index import UserIndexes, WarmIndexes
from graphmem.retrieval.packet import MemoryPacket
from graphmem.retrieval.query import QueryPlan, analyze
from graphmem.retrieval.recipes import FactList, Fusion, Reranker, SearchRecipe, TurnList
from graphmem.retrieval.scoped import EVERY_SCOPE, ScopedView, narrow
from graphmem.retrieval.time_prior import time_list, time_weight
from graphmem.retrieval.tokenize import tokenize
from graphmem.retrieval.turn_vectors import nearest_turns
from graphmem.retrieval.turn_views import view_lists
from graphmem.schema import time as t
from graphmem.schema.decay import decay_rerank
from graphmem.schema.errors import InvalidInput, StoreError
from graphmem.schema.records import FactRecord

TOKENS_PER_RESULT = 150
SELF_KEYS = ("user",)


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


def _fuse[L: (FactList, TurnList)](lists: dict[L, list[str]], weights: dict[L, float], k: int,
                                    extra: Sequence[tuple[list[str], float]] = ()) -> list[str]:
    names = [name for name in lists if lists[name]]
    rankings = [lists[n] for n in names] + [ranking for ranking, _ in extra if ranking]
    return [s.doc_id for s in rrf(rankings, k=k, weights=[weights[n] for n in names] + [w for r, w in extra if r])]


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
        nearest = nearest_turns(ctx.store, user_id, idx, vector, n, exact=recipe.exact_turn_vectors, view=view)
        lists[TurnList.VECTOR] = [u for u, _ in nearest]
        best = max((s for _, s in nearest), default=0.0)
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


def search(ctx: RetrievalContext, user_id: str, query: str, *, now: datetime, as_of: datetime | None,
           known_at: datetime | None, limit: int, recipe: SearchRecipe, budget_tokens: int | None = None,
           scopes: Sequence[str] = ("user",)) -> MemoryPacket:
    """Run one search; see the module docstring for the steps. Only facts and turns
    of `scopes` become lines, and only they are candidates or abstention signals
    (`retrieval.scoped`).

    A user without a graph gets the empty packet, and so does one whose graph another
    client (process, service worker) drops during the search: its queries then fail,
    and the graph being gone tells that failure from any other. Either way this
    process's warm indexes of the user go, so the dropped text does not stay here."""
    if not ctx.store.has_graph(user_id):
        ctx.indexes.drop(user_id)
        return _nothing_stored(query)
    try:
        return _search(ctx, user_id, query, now=now, as_of=as_of, known_at=known_at, limit=limit, recipe=recipe,
                       budget_tokens=budget_tokens, scopes=scopes)
    except StoreError:
        if ctx.store.has_graph(user_id):
            raise
        ctx.indexes.drop(user_id)
        return _nothing_stored(query)


def _nothing_stored(query: str) -> MemoryPacket:
    return MemoryPacket(query=query, abstain=True, reason="nothing has ever been stored for this user")


def _search(ctx: RetrievalContext, user_id: str, query: str, *, now: datetime, as_of: datetime | None,
            known_at: datetime | None, limit: int, recipe: SearchRecipe, budget_tokens: int | None,
            scopes: Sequence[str]) -> MemoryPacket:
    started = time.perf_counter()
    idx, view = narrow(ctx.store, user_id, ctx.indexes.get(ctx.store, user_id), scopes)
    plan = analyze(query, now, as_of, idx.entity_uuids.keys())
    names = abstain_signals.names_to_mask(plan, recipe, idx.proper_keys)
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
    time_now = now if recipe.time_prior_until_now else None
    extra = [(time_list(idx, plan, turn_lists.get(TurnList.VECTOR, []), recipe.candidates, turn_scores, time_now),
              time_weight(idx, plan, recipe.time_prior, recipe.time_prior_window, time_now))] if recipe.time_prior else []
    if recipe.fusion == Fusion.LEARNED and idx.turns is not None and learned_fusion.applies(idx.turns.own_turns):
        fused_turns = turn_order.learned_turns(idx, plan, turn_lists, extra[0][0] if extra else [], recipe, turn_scores)
    else:
        fused_turns = turn_order.fuse_turns(idx, plan, turn_lists, recipe, extra, turn_scores)
    ranked_turns = turn_order.reorder_turns(idx, fused_turns, facts, recipe, limit)
    ranked_turns = turn_order.session_prior(ctx, user_id, idx, ranked_turns, vector, recipe)
    ranked_turns = turn_order.session_tail(ctx, user_id, idx, plan, ranked_turns, vector, turn_scores, recipe, now)
    best = max(best_fact, best_turn)
    signals = abstain_signals.measure(ctx.store, user_id, idx, abstain_signals.AskedQuestion(
        plan.text, names, best, masked_vector), recipe, view)
    abstain, reason = abstention.decide(signals)
    if abstain:
        return MemoryPacket(query=query, mode=plan.mode, abstain=True, best_similarity=best, reason=reason,
                            topic_coverage=signals.coverage, masked_similarity=signals.masked_similarity,
                            timings_ms={"total": (time.perf_counter() - started) * 1000, "embed": embed_ms})
    turn_rank = {u: i for i, u in enumerate(ranked_turns)}
    why = {r.uuid: reasons(r, [n for n, found in fact_lists.items() if r.uuid in found], plan, distance) for r in facts}
    packet_facts = packet_lines.fact_lines(ctx, user_id, facts, turn_rank, why)
    chains = packet_lines.chain_lines(ctx, user_id, packet_lines.followed_chains(ctx, user_id, idx, facts, plan, now, known_at, recipe, scopes),
                            turn_rank, why)
    episodes = packet_lines.episode_lines(ctx, user_id, _in_scopes(ctx, user_id, ranked_turns, scopes)[:limit], known_at, recipe, scopes)
    budget = budget_tokens or TOKENS_PER_RESULT * limit
    packet_facts, episodes, chains, tokens = packet_lines.fit(packet_facts, episodes, budget, chains)
    entities = packet_lines.entity_lines(ctx, user_id, list(dict.fromkeys(named + selves)), packet_facts, plan.mode, now,
                                known_at, scopes, turns=len(idx.episodes) > 0)
    entities, with_entities = packet_lines.fit_entities(entities, tokens, budget)
    tokens = with_entities if entities else tokens
    cited = list(dict.fromkeys([e.turn_id for e in episodes] + [t_ for f in packet_facts for t_ in f.source_turn_ids]
                               + [t_ for c in chains for f in c.steps for t_ in f.source_turn_ids]))
    if packet_facts and ctx.store.has_graph(user_id):  # a write to a dropped graph would make it anew
        touched = ctx.store.run(user_id, q.touch_facts([f.uuid for f in packet_facts], t.now_utc()))
        if not touched or not touched[0]["touched"]:  # dropped since the check: the touch made it anew
            ctx.store.drop_if_empty(user_id)
    return MemoryPacket(
        query=query, mode=plan.mode, facts=tuple(packet_facts), chains=tuple(chains), episodes=tuple(episodes),
        entities=tuple(entities),
        cited_turn_ids=tuple(cited), tokens=tokens, best_similarity=best,
        topic_coverage=signals.coverage, masked_similarity=signals.masked_similarity,
        timings_ms={"total": (time.perf_counter() - started) * 1000, "embed": embed_ms},
    )
