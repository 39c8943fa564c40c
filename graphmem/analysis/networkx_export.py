"""A user's graph at a moment as a `networkx.MultiDiGraph`.

Why networkx: analysts already know it, and it brings centrality, community
detection and drawing. The graph holds the facts true at T as known at K (the
same set `Memory.facts` returns) and the entities they join; an entity with no
such fact is left out, since nothing about it held at T.

Nodes are keyed by entity name (names are unique within a user's graph: entities
are merged on their normalised name); edges by fact uuid.

Example:
    >>> g = to_networkx(store, "alice", valid_at=datetime(2024, 4, 15, tzinfo=UTC))
    >>> sorted(g.successors("alice"))
    ['Beijing']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

import networkx as nx

from graphmem.graph import fact_repository
from graphmem.graph.inspect import EntityRow, Inspector
from graphmem.schema import time as t
from graphmem.schema.records import FactRecord
from graphmem.graph.store import Store

EDGE_FIELDS = ("uuid", "predicate", "fact", "valid_at", "invalid_at", "created_at", "expired_at", "status",
               "superseded_by", "episodes", "source_turn_ids", "derived_from", "importance", "expires_at")


def build_graph(facts: Iterable[FactRecord], entities: Sequence[EntityRow], **graph_attrs: object) -> nx.MultiDiGraph:
    """Pure: the graph of `facts`, nodes carrying the attributes of their `entities` row.

    Nodes and edges are added in a sorted order, so two calls on the same data
    build identical graphs (Louvain's result depends on insertion order).
    """
    by_name = {e.name: e for e in entities}
    graph = nx.MultiDiGraph(**graph_attrs)
    ordered = sorted(facts, key=lambda f: (f.subject, f.object, f.predicate, f.uuid))
    for name in sorted({n for f in ordered for n in (f.subject, f.object)}):
        row = by_name.get(name)
        graph.add_node(name, name=name, uuid=row.uuid if row else None, summary=row.summary if row else "",
                       aliases=row.aliases if row else (), entity_type=row.entity_type if row else None,
                       created_at=t.decode(row.created_at) if row and row.created_at else None)
    for fact in ordered:
        graph.add_edge(fact.subject, fact.object, key=fact.uuid, **{f: getattr(fact, f) for f in EDGE_FIELDS})
    return graph


def to_networkx(store: Store, user_id: str, *, valid_at: datetime | None, known_at: datetime | None) -> nx.MultiDiGraph:
    """The facts true at `valid_at` (default now) as known at `known_at` (default now).

    ``graph.graph`` records the user and both times, so a saved graph says what it shows.
    """
    moment = valid_at or t.now_utc()
    facts = fact_repository.facts_at(store, user_id, valid_at=moment, known_at=known_at)
    entities = Inspector(store).entities(user_id) if facts else []
    return build_graph(facts, entities, user_id=user_id, valid_at=moment, known_at=known_at)
