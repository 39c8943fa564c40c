"""The fused turn order of a search: the turn lists fused (weighted RRF or the fitted scorer),
then the recipe's opt-in rewrites of that order (fact sources pulled up, a per-session cap,
the session prior, the session tail).

Split from `retrieval.search` so the steps that only reorder turn ids stand apart from
the ones that ask the store for candidates and the ones that build packet lines; each
reads the warm indexes (`retrieval.index`) and returns a new list of turn uuids.
"""

from __future__ import annotations

from datetime import datetime

import numpy as np

from graphmem.retrieval import learned_fusion, query_parts, session_dense, session_rank
from graphmem.retrieval.fact_turns import pick_sources, pull_sources
from graphmem.retrieval.fusion import rrf
from graphmem.retrieval.index import UserIndexes
from graphmem.retrieval.query import QueryPlan
from graphmem.retrieval.recipes import SearchRecipe, TurnList
from graphmem.retrieval.session_cap import cap_sessions
from graphmem.retrieval.time_prior import time_range
from graphmem.schema.records import FactRecord


def fuse_turns(idx: UserIndexes, plan: QueryPlan, lists: dict[TurnList, list[str]], recipe: SearchRecipe,
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


def learned_turns(idx: UserIndexes, plan: QueryPlan, lists: dict[TurnList, list[str]], time_turns: list[str],
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


def reorder_turns(idx: UserIndexes, ranked: list[str], facts: list[FactRecord], recipe: SearchRecipe,
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


def session_prior(ctx, user_id: str, idx: UserIndexes, ranked: list[str], vector, recipe: SearchRecipe
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


def session_tail(ctx, user_id: str, idx: UserIndexes, plan: QueryPlan, ranked: list[str], vector,
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
        dense = session_rank.dense_sessions(table, sv.turns, vector, cfg.dense_turns) if sv is not None else []
        orders.append((dense, cfg.dense))
        cut = time_range(idx, plan, now)
        if cfg.dated and cut is not None:
            orders.append((session_rank.dated_sessions(table, dense, *cut), cfg.dated))
    order = session_rank.fuse_orders(orders, cfg.rrf_k)
    present = set(session_of.values())
    wanted = [s for s in order[: cfg.sessions * 3] if s not in present]
    mask = table.own_turns if cfg.own and table.own_turns.any() else None
    best = session_rank.best_turn_by_scores(table, bm25_scores, wanted, mask)
    return session_rank.tail(ranked, session_of, order, best, cfg.head, cfg.sessions)
