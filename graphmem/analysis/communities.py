"""Communities: groups of related entities in the current graph, stored in it.

Why Louvain: it needs no number of groups up front and networkx ships it; with a
fixed seed and a graph built in sorted order (`networkx_export.build_graph`) it
gives the same groups every time. The graph is the facts true now, undirected,
an edge weighted by how many facts join the pair. Each group is labelled by its
most central member (highest weighted degree inside the group, then in the
whole graph, then by name).

Communities are stored as Graphiti-style ``Community`` nodes with ``HAS_MEMBER``
edges (`graphmem.graph.communities`), stamped with the graph version they
were computed at, so search can use them later and a reader knows when they are
stale: `communities` recomputes when the graph has been written since, or when
asked to. A forget drops them (the label is an entity's name).

Example:
    >>> [g.label for g in communities(store, "alice", recompute=False).groups]
    ['alice', 'Bob']
"""

from __future__ import annotations

import uuid as uuidlib
from collections.abc import Sequence
from typing import Any

import networkx as nx

from graphmem.graph import communities as repo
from graphmem.graph import fact_repository
from graphmem.analysis.networkx_export import build_graph
from graphmem.analysis.records import Communities, Community
from graphmem.graph.inspect import Inspector
from graphmem.schema import time as t
from graphmem.graph.store import Store

SEED = 42
SUMMARY_MEMBERS = 10  # the stored summary names the most central members, for a later text search
RESOLUTION = 1.0
_NAMESPACE = uuidlib.UUID("6f1f4c1e-6c0a-4d55-9a57-3c3b0d6f4e21")


def weighted(graph: nx.MultiDiGraph) -> nx.Graph:
    """Pure: undirected, one edge per entity pair weighted by the facts between them; self-facts dropped."""
    simple = nx.Graph()
    simple.add_nodes_from(sorted(graph.nodes))
    for u, v in sorted((u, v) for u, v in graph.edges() if u != v):
        a, b = sorted((u, v))
        weight = simple.get_edge_data(a, b, {"weight": 0})["weight"]
        simple.add_edge(a, b, weight=weight + 1)
    return simple


def detect(graph: nx.MultiDiGraph, version: int, *, seed: int = SEED, resolution: float = RESOLUTION) -> list[Community]:
    """Pure: the Louvain communities of `graph`, largest first, each ranked by centrality.

    A community's uuid is derived from its members' uuids, so the same grouping
    gets the same id whenever it is recomputed.
    """
    simple = weighted(graph)
    if simple.number_of_nodes() == 0:
        return []
    parts = nx.community.louvain_communities(simple, weight="weight", seed=seed, resolution=resolution)
    overall = dict(simple.degree(weight="weight"))
    groups = []
    for part in parts:
        strength = dict(simple.subgraph(part).degree(weight="weight"))
        top = max(strength.values()) or 1
        ranked = sorted(part, key=lambda n: (-strength[n], -overall[n], n))
        uuids = tuple(graph.nodes[n]["uuid"] or "" for n in ranked)
        groups.append(dict(label=ranked[0], label_uuid=uuids[0], members=tuple(ranked), member_uuids=uuids,
                           centrality=tuple(round(strength[n] / top, 6) for n in ranked)))
    groups.sort(key=lambda g: (-len(g["members"]), g["label"]))
    return [
        Community(uuid=str(uuidlib.uuid5(_NAMESPACE, "|".join(sorted(g["member_uuids"])))), rank=i,
                  graph_version=version, **g)
        for i, g in enumerate(groups)
    ]


def to_rows(groups: Sequence[Community]) -> list[dict[str, Any]]:
    """Pure: what `graph.cypher.communities.create_communities` stores for `groups`."""
    return [
        {"uuid": g.uuid, "name": g.label, "summary": ", ".join(g.members[:SUMMARY_MEMBERS]),
         "label_uuid": g.label_uuid, "size": g.size, "rank": g.rank,
         "members": [{"uuid": u, "edge_uuid": str(uuidlib.uuid5(_NAMESPACE, g.uuid + u)), "centrality": c}
                     for u, c in zip(g.member_uuids, g.centrality)]}
        for g in groups
    ]


def from_rows(rows: Sequence[dict[str, Any]]) -> list[Community]:
    return [
        Community(uuid=r["uuid"], rank=r["rank"], label=r["label"], label_uuid=r["label_uuid"],
                  members=tuple(r["members"]), member_uuids=tuple(r["member_uuids"]),
                  centrality=tuple(r["centrality"]), graph_version=r["graph_version"],
                  created_at=t.decode(r["created_at"]))
        for r in rows
    ]


def compute(store: Store, user_id: str) -> list[Community]:
    """Louvain over the facts true now (read-only)."""
    facts = fact_repository.facts_at(store, user_id, valid_at=None, known_at=None)
    graph = build_graph(facts, Inspector(store).entities(user_id) if facts else [])
    return detect(graph, repo.graph_version(store, user_id))


def communities(store: Store, user_id: str, *, recompute: bool) -> Communities:
    """The stored communities, recomputed (and stored) first when asked, when
    there are none, or when the graph was written after they were computed.

    The caller holds the user's lock: recomputing replaces the stored set.
    """
    if not store.has_graph(user_id):
        return Communities(user_id=user_id)
    version = repo.graph_version(store, user_id)
    stored = from_rows(repo.load(store, user_id))
    if stored and not recompute and all(g.graph_version == version for g in stored):
        return Communities(user_id=user_id, graph_version=version, groups=tuple(stored))
    fresh = compute(store, user_id)
    repo.replace(store, user_id, to_rows(fresh), version, t.now_utc())
    return Communities(user_id=user_id, graph_version=version, recomputed=True,
                       groups=tuple(from_rows(repo.load(store, user_id))))
