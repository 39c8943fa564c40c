"""Cypher builders: pure functions returning a `Query` (text + parameters).

Every value a user can influence travels in `params`; the Cypher text is built
only from constants, field names of our own models and the named time
predicates of `schema.time`. The store runs these; nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, NamedTuple

from graphmem.schema import time as t
from graphmem.schema.models import EntityNode, FactEdge
from graphmem.schema.supersession import Closure


class Query(NamedTuple):
    cypher: str
    params: dict[str, Any]


FACT_FIELDS = tuple(name for name in FactEdge.model_fields if name not in FactEdge.VECTOR_FIELDS)


def fact_columns(r: str = "r") -> str:
    """`r.uuid AS uuid, ...` for every stored FactEdge field except embeddings."""
    return ", ".join(f"{r}.{name} AS {name}" for name in FACT_FIELDS)


FACT_VIEW = f"{fact_columns('r')}, s.name AS subject, o.name AS object"


def graph_meta() -> Query:
    return Query("MATCH (m:GraphmemMeta) RETURN m.embedding_dim AS embedding_dim, m.embedder AS embedder", {})


def create_graph_meta(dimension: int, embedder: str, created_at: datetime) -> Query:
    return Query(
        "CREATE (m:GraphmemMeta {embedding_dim: $dim, embedder: $embedder, schema_version: 1, created_at: $at})",
        {"dim": dimension, "embedder": embedder, "at": t.encode(created_at)},
    )


def merge_entity(entity: EntityNode, embedding: Sequence[float] | None) -> Query:
    """Find the entity by normalised name or create it; returns its uuid and name."""
    props = entity.to_props()
    return Query(
        "MERGE (n:Entity {group_id: $group_id, normalized_name: $key}) "
        "ON CREATE SET n += $props, n.name_embedding = vecf32($embedding) "
        "RETURN n.uuid AS uuid, n.name AS name",
        {
            "group_id": entity.group_id,
            "key": entity.normalized_name,
            "props": props,
            "embedding": list(embedding) if embedding is not None else None,
        },
    )


def create_fact(edge: FactEdge, embedding: Sequence[float] | None) -> Query:
    props = {k: v for k, v in edge.to_props().items() if v is not None}
    return Query(
        "MATCH (s:Entity {uuid: $source}), (o:Entity {uuid: $target}) "
        "CREATE (s)-[r:RELATES_TO]->(o) SET r += $props, r.fact_embedding = vecf32($embedding) "
        "RETURN r.uuid AS uuid",
        {
            "source": edge.source_node_uuid,
            "target": edge.target_node_uuid,
            "props": props,
            "embedding": list(embedding) if embedding is not None else None,
        },
    )


def slot_facts(source_uuid: str, slot: str) -> Query:
    """Every fact with this subject and slot, whatever its status."""
    return Query(
        f"MATCH (s:Entity {{uuid: $source}})-[r:RELATES_TO {{slot: $slot}}]->(o:Entity) RETURN {FACT_VIEW}",
        {"source": source_uuid, "slot": slot},
    )


def close_fact(closure: Closure) -> Query:
    return Query(
        "MATCH ()-[r:RELATES_TO {uuid: $uuid}]->() "
        "SET r.invalid_at = $invalid_at, r.invalidated_by = $by, r.expired_at = $expired_at",
        {
            "uuid": closure.uuid,
            "invalid_at": t.encode(closure.invalid_at),
            "by": closure.invalidated_by,
            "expired_at": t.encode(closure.expired_at),
        },
    )


def merge_restatement(fact_uuid: str, episodes: Sequence[str], valid_at: datetime | None) -> Query:
    """MERGE of a restated fact: add the new evidence; an earlier start moves the start back."""
    return Query(
        "MATCH ()-[r:RELATES_TO {uuid: $uuid}]->() "
        "SET r.episodes = coalesce(r.episodes, []) + [x IN $episodes WHERE NOT x IN coalesce(r.episodes, [])], "
        "r.valid_at = CASE WHEN $valid_at IS NOT NULL AND (r.valid_at IS NULL OR r.valid_at > $valid_at) "
        "THEN $valid_at ELSE r.valid_at END",
        {"uuid": fact_uuid, "episodes": list(episodes), "valid_at": t.encode(valid_at)},
    )


def facts_at(valid_at: datetime, known_at: datetime | None, subject_key: str | None = None) -> Query:
    """Facts true at `valid_at` as graphmem knew them at `known_at` (None = now),
    optionally only those whose subject has the normalised name `subject_key`."""
    where = [t.true_at_cypher("r", "t", "k" if known_at is not None else None)]
    params: dict[str, Any] = {"t": t.encode(valid_at)}
    match = "MATCH (s:Entity)-[r:RELATES_TO]->(o:Entity)"
    if subject_key is not None:
        match = "MATCH (s:Entity {normalized_name: $subject})-[r:RELATES_TO]->(o:Entity)"
        params["subject"] = subject_key
    if known_at is not None:
        where.append(t.known_at_cypher("r", "k"))
        params["k"] = t.encode(known_at)
    else:
        where.append("NOT (toString(r.expired_at) IS NOT NULL AND r.invalidated_by IS NULL)")
    return Query(
        f"{match} WHERE {' AND '.join(where)} RETURN {FACT_VIEW} ORDER BY r.valid_at, r.created_at",
        params,
    )


def facts_by_uuid(uuids: Sequence[str]) -> Query:
    return Query(
        f"MATCH (s:Entity)-[r:RELATES_TO]->(o:Entity) WHERE r.uuid IN $uuids RETURN {FACT_VIEW}",
        {"uuids": list(uuids)},
    )


def find_entity(name_or_uuid: str, normalized: str) -> Query:
    return Query(
        "MATCH (n:Entity) WHERE n.uuid = $value OR n.normalized_name = $key "
        "RETURN n.uuid AS uuid, n.name AS name LIMIT 1",
        {"value": name_or_uuid, "key": normalized},
    )


def facts_of_entity(entity_uuid: str) -> Query:
    """Facts where the entity is subject or object, oldest first."""
    return Query(
        f"MATCH (s:Entity)-[r:RELATES_TO]->(o:Entity) WHERE s.uuid = $uuid OR o.uuid = $uuid "
        f"RETURN {FACT_VIEW}",
        {"uuid": entity_uuid},
    )


def episode_names(uuids: Sequence[str]) -> Query:
    return Query(
        "MATCH (e:Episodic) WHERE e.uuid IN $uuids RETURN e.uuid AS uuid, e.name AS name",
        {"uuids": list(uuids)},
    )
