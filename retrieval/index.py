"""Per-user search indexes kept warm in the process and refreshed after writes.

BM25 over fact texts and over turns, plus the entity-name table the query
analyser matches against. Each user's indexes carry the graph version they
were built from; every write bumps the version in the graph itself, so a write
from any process makes the next search here rebuild (indexes are immutable:
a reader never sees a half-built one).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from graphmem.graph import cypher as q

if TYPE_CHECKING:  # bm25 imports scipy, which `graphmem facts` never needs
    from graphmem.retrieval.bm25 import BM25Index
    from graphmem.retrieval.turn_views import TurnTable
    from graphmem.graph.store import Store

T = TypeVar("T")


@dataclass(frozen=True)
class UserIndexes:
    version: int
    facts: BM25Index
    episodes: BM25Index
    entity_uuids: dict[str, str] = field(default_factory=dict)  # normalised name or alias -> uuid
    # the keys of `entity_uuids` whose entity is stored spelt as a proper name ("Sarah", not "car"):
    # abstention masks only these (`retrieval.abstention.spelt_as_name`)
    proper_keys: frozenset[str] = frozenset()
    fact_scopes: dict[str, str] = field(default_factory=dict)  # fact uuid -> scope
    episode_scopes: dict[str, str] = field(default_factory=dict)  # turn uuid -> scope
    scopes: frozenset[str] = frozenset()  # every scope a fact or turn here has
    narrowed: dict = field(default_factory=dict, compare=False, repr=False)  # `retrieval.scoped`'s cache
    turns: TurnTable | None = None  # session and speaker of each turn, in `episodes` order
    derived: dict = field(default_factory=dict, compare=False, repr=False)  # `derive`'s cache
    subject_relations: frozenset[tuple[str, str]] = frozenset()  # (subject key, relation) of every fact, any scope
    created_at: str = ""  # the graph's creation time (`WarmIndexes.get`)

    def derive(self, key: Hashable, build: Callable[[], T]) -> T:
        """What `build` computes from this graph version, computed once: the indexes are
        rebuilt when the version changes, so the value goes with them (session documents,
        session vectors)."""
        if key not in self.derived:
            self.derived[key] = build()
        return self.derived[key]


class WarmIndexes:
    """The warm indexes of every user this process has searched."""

    def __init__(self) -> None:
        self._by_user: dict[str, UserIndexes] = {}
        self._lock = threading.Lock()

    def get(self, store: Store, user_id: str) -> UserIndexes:
        """The user's indexes, rebuilt when the graph's version or its creation time changed.
        Why the creation time: another process may drop a graph and write it anew, and the
        new graph's version counts up from 0 again; on the version alone, this process would
        go on answering from the dropped graph's text once the counts met."""
        rows = store.run(user_id, q.graph_version(), read_only=True)
        version = int(rows[0]["version"]) if rows else 0
        created = str(rows[0]["created_at"]) if rows else ""
        cached = self._by_user.get(user_id)
        if cached is not None and (cached.version, cached.created_at) == (version, created):
            return cached
        with self._lock:
            cached = self._by_user.get(user_id)
            if cached is None or (cached.version, cached.created_at) != (version, created):
                cached = build(store, user_id, version, created)
                self._by_user[user_id] = cached
        return cached

    def drop(self, user_id: str) -> None:
        """Forget a user's indexes (after a deletion their text must not linger here)."""
        with self._lock:
            self._by_user.pop(user_id, None)


def build(store: Store, user_id: str, version: int, created_at: str = "") -> UserIndexes:
    from graphmem.retrieval.abstention import spelt_as_name
    from graphmem.retrieval.bm25 import BM25Index
    from graphmem.retrieval.turn_views import TurnTable

    facts = store.run(user_id, q.fact_docs(), read_only=True)
    episodes = store.run(user_id, q.episode_docs(), read_only=True)
    entities: dict[str, str] = {}
    proper: set[str] = set()
    for row in store.run(user_id, q.entity_keys(), read_only=True):
        for key in (row["key"], *row["aliases"]):
            if key and key not in entities:
                entities[key] = row["uuid"]
                if spelt_as_name(row.get("name") or ""):
                    proper.add(key)
    episode_index = BM25Index.build([r["uuid"] for r in episodes], [r["text"] or "" for r in episodes])
    return UserIndexes(
        version=version,
        created_at=created_at,
        facts=BM25Index.build([r["uuid"] for r in facts], [r["text"] or "" for r in facts]),
        episodes=episode_index,
        entity_uuids=entities,
        proper_keys=frozenset(proper),
        fact_scopes={r["uuid"]: r["scope"] for r in facts},
        episode_scopes={r["uuid"]: r["scope"] for r in episodes},
        scopes=frozenset(r["scope"] for r in [*facts, *episodes]),
        turns=TurnTable.of(episode_index.doc_ids, episodes),
        subject_relations=frozenset((r["subject_key"], r["predicate"]) for r in facts),
    )
