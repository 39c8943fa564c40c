"""Cypher for reading and replacing a graph's stored vectors (`ingest.reembed`): the texts
behind each kind of vector, and one UNWIND per batch to set them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graphmem.graph.cypher.query import Query

# kind -> (every item, the item of uuid row.uuid, its vector property, the text(s) returned)
_KINDS = {
    "turns": ("(x:Episodic)", "(x:Episodic {uuid: row.uuid})", "content_embedding", "x.speaker AS speaker, x.content AS text"),
    "entities": ("(x:Entity)", "(x:Entity {uuid: row.uuid})", "name_embedding", "x.name AS text"),
    "facts": ("()-[x:RELATES_TO]->()", "()-[x:RELATES_TO {uuid: row.uuid}]->()", "fact_embedding", "x.fact AS text"),
    "candidates": ("()-[x:CANDIDATE]->()", "()-[x:CANDIDATE {uuid: row.uuid}]->()", "fact_embedding", "x.fact AS text"),
}
VECTOR_KINDS = tuple(_KINDS)

INDEX_OPTIONS = Query("CALL db.indexes() YIELD label, types, options RETURN label, types, options", {})
"""Every index of the graph with its kind per property and its options (a vector's dimension)."""


def vector_texts(kind: str) -> Query:
    """uuid and text of every `kind` item that has a vector (a turn stored but not yet
    extracted has none: it gets one when a write extracts it)."""
    every, _, prop, returned = _KINDS[kind]
    return Query(f"MATCH {every} WHERE x.{prop} IS NOT NULL RETURN x.uuid AS uuid, {returned} ORDER BY uuid", {})


def set_vectors(kind: str, rows: Sequence[dict[str, Any]]) -> Query:
    """rows: {"uuid", "v": list of floats}."""
    _, one, prop, _ = _KINDS[kind]
    return Query(f"UNWIND $rows AS row MATCH {one} SET x.{prop} = vecf32(row.v)", {"rows": list(rows)})


def mark_reembedding(embedder: str) -> Query:
    """Written before the first vector is replaced: a graph whose re-embedding stopped half way
    holds vectors of two models, and is refused until a re-embedding finishes."""
    return Query("MATCH (m:GraphmemMeta) SET m.reembedding = $embedder", {"embedder": embedder})


def finish_reembedding(dimension: int, embedder: str, backend: str | None) -> Query:
    return Query(
        "MATCH (m:GraphmemMeta) SET m.embedding_dim = $dim, m.embedder = $embedder, m.embedder_backends = $backends, "
        "m.reembedding = NULL, m.version = coalesce(m.version, 0) + 1",
        {"dim": int(dimension), "embedder": embedder, "backends": [backend] if backend else []},
    )


__all__ = ["INDEX_OPTIONS", "VECTOR_KINDS", "finish_reembedding", "mark_reembedding", "set_vectors", "vector_texts"]
