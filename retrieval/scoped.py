"""A search of some scopes reads as if the memory held only those scopes.

Why: dropping other scopes' lines at the end is not enough. Their facts and turns
would still fill the candidate lists (each list brings its best 50 of every
scope, so a search of a small scope next to a big one could come back short or
empty) and decide the abstention (topic words found only in another scope's
turns kept the packet from abstaining, and its coverage and similarity figures
described the other scope). So, when the memory holds anything outside the
searched scopes, `narrow` gives BM25 indexes over the searched scopes' documents
only and a `ScopedView` whose store queries keep only those scopes; when it holds
nothing else (every memory without scopes), both are the search's usual ones and
the queries are the very same text.

Vector lists stay exact: FalkorDB's vector index cannot filter as it searches, so
the view asks it for ``k`` plus the number of documents outside the scopes (the
``k`` nearest inside are among those) when that is no more than the documents
inside, and otherwise scores every document inside (linear in their number).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphmem.graph import cypher as q
from graphmem.graph.cypher.query import Query
from graphmem.retrieval.index import UserIndexes

if TYPE_CHECKING:
    from graphmem.graph.store import Store


@dataclass(frozen=True)
class ScopedView:
    """The scopes store queries keep (None: every scope) and how many facts and turns
    lie inside and outside them, to choose how a vector list is fetched."""

    scopes: tuple[str, ...] | None = None
    facts_inside: int = 0
    facts_outside: int = 0
    turns_inside: int = 0
    turns_outside: int = 0

    def vector_facts(self, vector: Sequence[float], k: int) -> Query:
        return q.vector_facts(vector, k, self.scopes, _fetch(k, self.facts_inside, self.facts_outside))

    def vector_episodes(self, vector: Sequence[float], k: int) -> Query:
        return q.vector_episodes(vector, k, self.scopes, _fetch(k, self.turns_inside, self.turns_outside))


EVERY_SCOPE = ScopedView()


def _fetch(k: int, inside: int, outside: int) -> int | None:
    """Ask the index for `k` + `outside` when that is cheaper than scoring all `inside`."""
    return k + outside if outside <= inside else None


def narrow(store: Store, user_id: str, idx: UserIndexes, scopes: Sequence[str]) -> tuple[UserIndexes, ScopedView]:
    """(indexes over only the documents of `scopes`, the view for store queries);
    `idx` itself and `EVERY_SCOPE` when nothing stored lies outside `scopes`.

    The narrowed indexes are cached on `idx` (built once per graph version and
    set of scopes); the entity table is shared, names are not scoped.
    """
    wanted = frozenset(scopes)
    if idx.scopes <= wanted:
        return idx, EVERY_SCOPE
    key = tuple(sorted(wanted))
    cached = idx.narrowed.get(key)
    if cached is None:
        inside = _build(store, user_id, idx, wanted)
        view = ScopedView(scopes=key, facts_inside=len(inside.fact_scopes),
                          facts_outside=max(0, len(idx.fact_scopes) - len(inside.fact_scopes)),
                          turns_inside=len(inside.episode_scopes),
                          turns_outside=max(0, len(idx.episode_scopes) - len(inside.episode_scopes)))
        cached = idx.narrowed[key] = (inside, view)
    return cached


def _build(store: Store, user_id: str, idx: UserIndexes, wanted: frozenset[str]) -> UserIndexes:
    from graphmem.retrieval.bm25 import BM25Index

    facts = [r for r in store.run(user_id, q.fact_docs(), read_only=True) if r["scope"] in wanted]
    turns = [r for r in store.run(user_id, q.episode_docs(), read_only=True) if r["scope"] in wanted]
    from graphmem.retrieval.turn_views import TurnTable

    episodes = BM25Index.build([r["uuid"] for r in turns], [r["text"] or "" for r in turns])
    return UserIndexes(
        version=idx.version,
        created_at=idx.created_at,
        facts=BM25Index.build([r["uuid"] for r in facts], [r["text"] or "" for r in facts]),
        episodes=episodes,
        turns=TurnTable.of(episodes.doc_ids, turns),
        entity_uuids=idx.entity_uuids,
        proper_keys=idx.proper_keys,
        subject_relations=idx.subject_relations,
        fact_scopes={r["uuid"]: r["scope"] for r in facts},
        episode_scopes={r["uuid"]: r["scope"] for r in turns},
        scopes=frozenset(r["scope"] for r in [*facts, *turns]),
    )
