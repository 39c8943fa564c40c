"""Cypher for the graph's own metadata node: embedder, dimension, version."""

from __future__ import annotations

from datetime import datetime

from graphmem.schema import time as t

from graphmem.graph.cypher.query import Query


def graph_meta() -> Query:
    return Query("MATCH (m:GraphmemMeta) RETURN m.embedding_dim AS embedding_dim, m.embedder AS embedder", {})


def create_graph_meta(dimension: int, embedder: str, created_at: datetime) -> Query:
    return Query(
        "CREATE (m:GraphmemMeta {embedding_dim: $dim, embedder: $embedder, schema_version: 1, created_at: $at})",
        {"dim": dimension, "embedder": embedder, "at": t.encode(created_at)},
    )


def graph_version() -> Query:
    return Query("MATCH (m:GraphmemMeta) RETURN coalesce(m.version, 0) AS version", {})


def bump_version() -> Query:
    """Every write bumps it, so warm per-process indexes know to refresh (any process)."""
    return Query("MATCH (m:GraphmemMeta) SET m.version = coalesce(m.version, 0) + 1", {})
