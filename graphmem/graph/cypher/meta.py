"""Cypher for the graph's own metadata node: embedder, dimension, version."""

from __future__ import annotations

from datetime import datetime

from graphmem.schema import time as t

from graphmem.graph.cypher.query import Query


def graph_meta() -> Query:
    return Query(
        "MATCH (m:GraphmemMeta) RETURN m.embedding_dim AS embedding_dim, m.embedder AS embedder, "
        "coalesce(m.embedder_backends, []) AS backends, m.reembedding AS reembedding",
        {},
    )


def create_graph_meta(dimension: int, embedder: str, created_at: datetime, backend: str | None = None) -> Query:
    return Query(
        "CREATE (m:GraphmemMeta {embedding_dim: $dim, embedder: $embedder, embedder_backends: $backends, "
        "schema_version: 1, created_at: $at})",
        {"dim": dimension, "embedder": embedder, "backends": [backend] if backend else [], "at": t.encode(created_at)},
    )


def add_graph_backend(backend: str) -> Query:
    """Record one more embedder backend as having written this graph's vectors."""
    return Query(
        "MATCH (m:GraphmemMeta) WHERE NOT $backend IN coalesce(m.embedder_backends, []) "
        "SET m.embedder_backends = coalesce(m.embedder_backends, []) + [$backend]",
        {"backend": backend},
    )


def graph_version() -> Query:
    """The version and the meta node's creation time, which tells a graph from one
    dropped and created again under the same name (whose version starts over)."""
    return Query("MATCH (m:GraphmemMeta) RETURN coalesce(m.version, 0) AS version, m.created_at AS created_at", {})


def bump_version() -> Query:
    """Every write bumps it, so warm per-process indexes know to refresh (any process)."""
    return Query("MATCH (m:GraphmemMeta) SET m.version = coalesce(m.version, 0) + 1", {})
