"""Stored communities of one user's graph: replace them all, or read them back.

Why a repository: communities are derived from the graph (see
`graphmem.analysis.communities`), so they are written and dropped as one set,
stamped with the graph version they were computed at; a reader compares that
stamp with the graph's version to know whether they are stale. The caller
holds the user's lock when replacing.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graphmem.graph import cypher as q
from graphmem.graph.cypher import communities as cq
from graphmem.graph.store import Store


def graph_version(store: Store, user_id: str) -> int:
    """How many writes the graph has seen (every write bumps it); 0 without a graph."""
    if not store.has_graph(user_id):
        return 0
    rows = store.run(user_id, q.graph_version(), read_only=True)
    return int(rows[0]["version"]) if rows else 0


def load(store: Store, user_id: str) -> list[dict[str, Any]]:
    """Stored communities, in rank order, each with its members most central first."""
    if not store.has_graph(user_id):
        return []
    return store.run(user_id, cq.communities(), read_only=True)


def replace(store: Store, user_id: str, rows: list[dict[str, Any]], version: int, now: datetime) -> None:
    """Drop the stored communities and store `rows` (see `cypher.communities.create_communities`)."""
    store.run(user_id, cq.delete_communities())
    if rows:
        store.run(user_id, cq.create_communities(rows, user_id, version, now))
