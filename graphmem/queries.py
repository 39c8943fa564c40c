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
from graphmem.schema.models import EntityNode, FactEdge, new_uuid
from graphmem.schema.supersession import Closure, Split


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


def split_fact(split: Split, created_at: datetime) -> Query:
    """Copy a fact from `split.at` on, with the episodes that stated it then; the
    copy keeps the original's end and successor, the original keeps the rest
    (a closure then ends it). The copy is believed from `created_at`."""
    return Query(
        "MATCH (s)-[g:RELATES_TO {uuid: $uuid}]->(o) CREATE (s)-[r:RELATES_TO]->(o) SET r = properties(g) "
        "SET r.uuid = $copy, r.valid_at = $at, r.created_at = $created_at, "
        "r.episodes = [x IN g.episodes WHERE x IN $moved] "
        "SET g.episodes = [x IN g.episodes WHERE NOT x IN $moved] RETURN r.uuid AS uuid",
        {
            "uuid": split.uuid,
            "copy": split.copy_uuid,
            "at": t.encode(split.at),
            "created_at": t.encode(created_at),
            "moved": list(split.episodes),
        },
    )


def episode_times(uuids: Sequence[str]) -> Query:
    """Session time of each episode: when the facts it states were said to hold."""
    return Query(
        "MATCH (e:Episodic) WHERE e.uuid IN $uuids RETURN e.uuid AS uuid, e.valid_at AS valid_at",
        {"uuids": list(uuids)},
    )


def end_fact(fact_uuid: str, invalid_at: datetime, episodes: Sequence[str]) -> Query:
    """'No longer': the fact's validity ends; the ending turn becomes evidence too."""
    return Query(
        "MATCH ()-[r:RELATES_TO {uuid: $uuid}]->() SET r.invalid_at = $invalid_at, "
        "r.episodes = coalesce(r.episodes, []) + [x IN $episodes WHERE NOT x IN coalesce(r.episodes, [])]",
        {"uuid": fact_uuid, "invalid_at": t.encode(invalid_at), "episodes": list(episodes)},
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
    """No labels on the endpoints: with them FalkorDB scans every Entity and
    probes the edge index per node (50 ms at 30k facts); without, one index lookup."""
    return Query(
        f"MATCH (s)-[r:RELATES_TO]->(o) WHERE r.uuid IN $uuids RETURN {FACT_VIEW}",
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


def packet_entities(entity_uuids: Sequence[str], fact_uuids: Sequence[str], now: datetime) -> Query:
    """Entities by uuid plus the subjects and objects of the given facts, each with
    up to five facts it is the subject of that hold at `now` and are still in
    search (not expired, not archived, not past `expires_at`). The stored summary
    is not used: it keeps facts whose `expires_at` has passed, which search must
    not show. Unlabelled endpoints for the reason in `facts_by_uuid`."""
    live = (f"{t.current_cypher('f')} AND f.archived_at IS NULL AND "
            f"(toString(f.expires_at) IS NULL OR toString(f.expires_at) > $now) AND {t.true_at_cypher('f', 'now')}")
    return Query(
        "OPTIONAL MATCH (s)-[r:RELATES_TO]->(o) WHERE r.uuid IN $facts "
        "WITH collect(s.uuid) + collect(o.uuid) + $entities AS ids "
        "MATCH (n:Entity) WHERE n.uuid IN ids "
        f"OPTIONAL MATCH (n)-[f:RELATES_TO]->() WHERE {live} "
        "WITH n, collect(f.fact)[0..5] AS facts "
        "RETURN n.uuid AS uuid, n.name AS name, n.created_at AS created_at, facts",
        {"entities": list(entity_uuids), "facts": list(fact_uuids), "now": t.encode(now)},
    )


def episode_names(uuids: Sequence[str]) -> Query:
    return Query(
        "MATCH (e:Episodic) WHERE e.uuid IN $uuids RETURN e.uuid AS uuid, e.name AS name",
        {"uuids": list(uuids)},
    )


# -- ingestion ------------------------------------------------------------------


def existing_episodes(uuids: Sequence[str]) -> Query:
    return Query(
        "MATCH (e:Episodic) WHERE e.uuid IN $uuids RETURN e.uuid AS uuid, e.extracted AS extracted",
        {"uuids": list(uuids)},
    )


def create_episodes(rows: Sequence[dict[str, Any]]) -> Query:
    """rows: {uuid, props, embedding}; MERGE on uuid makes a repeated write a no-op."""
    return Query(
        "UNWIND $rows AS row MERGE (e:Episodic {uuid: row.uuid}) "
        "ON CREATE SET e += row.props, e.content_embedding = vecf32(row.embedding)",
        {"rows": list(rows)},
    )


def previous_episode(session_id: str, before_index: int) -> Query:
    return Query(
        "MATCH (e:Episodic {session_id: $session_id}) WHERE e.turn_index < $index "
        "RETURN e.uuid AS uuid ORDER BY e.turn_index DESC LIMIT 1",
        {"session_id": session_id, "index": before_index},
    )


def link_episodes(pairs: Sequence[tuple[str, str]], group_id: str, created_at: datetime) -> Query:
    return Query(
        "UNWIND $pairs AS p MATCH (a:Episodic {uuid: p[0]}), (b:Episodic {uuid: p[1]}) "
        "MERGE (a)-[r:NEXT_EPISODE]->(b) ON CREATE SET r.uuid = p[2], r.group_id = $group_id, r.created_at = $at",
        {"pairs": [[a, b, new_uuid()] for a, b in pairs], "group_id": group_id, "at": t.encode(created_at)},
    )


def match_entities(keys: Sequence[str]) -> Query:
    """Entities whose normalised name or an alias is one of `keys`."""
    return Query(
        "MATCH (n:Entity) WHERE n.normalized_name IN $keys OR any(a IN coalesce(n.aliases, []) WHERE a IN $keys) "
        "RETURN n.uuid AS uuid, n.name AS name, n.normalized_name AS key, coalesce(n.aliases, []) AS aliases",
        {"keys": list(keys)},
    )


def nearest_entities(vector: Sequence[float], k: int) -> Query:
    """Closest entity names by cosine; FalkorDB's score is the cosine distance."""
    return Query(
        "CALL db.idx.vector.queryNodes('Entity', 'name_embedding', $k, vecf32($v)) YIELD node, score "
        "RETURN node.uuid AS uuid, node.name AS name, 1.0 - score AS similarity",
        {"k": int(k), "v": list(vector)},
    )


def create_entities(rows: Sequence[dict[str, Any]]) -> Query:
    """rows: {key, props, embedding}; MERGE on the normalised name."""
    return Query(
        "UNWIND $rows AS row MERGE (n:Entity {group_id: row.props.group_id, normalized_name: row.key}) "
        "ON CREATE SET n += row.props, n.name_embedding = vecf32(row.embedding) "
        "RETURN n.uuid AS uuid, row.key AS key",
        {"rows": list(rows)},
    )


def add_aliases(pairs: Sequence[tuple[str, str]]) -> Query:
    return Query(
        "UNWIND $pairs AS p MATCH (n:Entity {uuid: p[0]}) "
        "SET n.aliases = CASE WHEN p[1] IN coalesce(n.aliases, []) THEN n.aliases ELSE coalesce(n.aliases, []) + [p[1]] END",
        {"pairs": [list(p) for p in pairs]},
    )


def create_mentions(pairs: Sequence[tuple[str, str]], group_id: str, created_at: datetime) -> Query:
    return Query(
        "UNWIND $pairs AS p MATCH (e:Episodic {uuid: p[0]}), (n:Entity {uuid: p[1]}) "
        "MERGE (e)-[r:MENTIONS]->(n) ON CREATE SET r.uuid = p[2], r.group_id = $group_id, r.created_at = $at",
        {"pairs": [[a, b, new_uuid()] for a, b in pairs], "group_id": group_id, "at": t.encode(created_at)},
    )


def mark_extracted(rows: Sequence[dict[str, Any]]) -> Query:
    """rows: {uuid, edges}: the episode's facts are written; re-writes may skip it."""
    return Query(
        "UNWIND $rows AS row MATCH (e:Episodic {uuid: row.uuid}) SET e.extracted = true, e.entity_edges = row.edges",
        {"rows": list(rows)},
    )


def nearest_facts(vector: Sequence[float], k: int) -> Query:
    return Query(
        "CALL db.idx.vector.queryRelationships('RELATES_TO', 'fact_embedding', $k, vecf32($v)) "
        "YIELD relationship AS r, score WHERE r.expired_at IS NULL "
        "RETURN r.uuid AS uuid, r.fact AS fact, 1.0 - score AS similarity",
        {"k": int(k), "v": list(vector)},
    )


# -- retrieval ------------------------------------------------------------------


def graph_version() -> Query:
    return Query("MATCH (m:GraphmemMeta) RETURN coalesce(m.version, 0) AS version", {})


def bump_version() -> Query:
    """Every write bumps it, so warm per-process indexes know to refresh (any process)."""
    return Query("MATCH (m:GraphmemMeta) SET m.version = coalesce(m.version, 0) + 1", {})


def fact_docs() -> Query:
    """Each fact's text plus its relation's words ("has pet", "works at"): a question
    may name the relation rather than repeat the sentence ("What pets do I have?")."""
    return Query(
        "MATCH (:Entity)-[r:RELATES_TO]->(:Entity) "
        "RETURN r.uuid AS uuid, r.fact + ' ' + replace(toLower(r.name), '_', ' ') AS text",
        {},
    )


def episode_docs() -> Query:
    return Query("MATCH (e:Episodic) RETURN e.uuid AS uuid, e.speaker + ': ' + e.content AS text", {})


def entity_keys() -> Query:
    return Query(
        "MATCH (n:Entity) RETURN n.uuid AS uuid, n.normalized_name AS key, coalesce(n.aliases, []) AS aliases", {}
    )


def vector_facts(vector: Sequence[float], k: int) -> Query:
    return Query(
        "CALL db.idx.vector.queryRelationships('RELATES_TO', 'fact_embedding', $k, vecf32($v)) "
        "YIELD relationship AS r, score RETURN r.uuid AS uuid, 1.0 - score AS similarity",
        {"k": int(k), "v": list(vector)},
    )


def vector_episodes(vector: Sequence[float], k: int) -> Query:
    return Query(
        "CALL db.idx.vector.queryNodes('Episodic', 'content_embedding', $k, vecf32($v)) "
        "YIELD node, score RETURN node.uuid AS uuid, 1.0 - score AS similarity",
        {"k": int(k), "v": list(vector)},
    )


def facts_near_entities(entity_uuids: Sequence[str], hops: int, limit: int) -> Query:
    """Facts within `hops` (1 or 2) RELATES_TO steps of the entities, nearest first."""
    if hops <= 1:
        cypher = (
            "MATCH (a:Entity)-[r:RELATES_TO]-(:Entity) WHERE a.uuid IN $uuids "
            "RETURN DISTINCT r.uuid AS uuid, 1 AS distance LIMIT $limit"
        )
    else:
        cypher = (
            "MATCH (a:Entity)-[r1:RELATES_TO]-(b:Entity) WHERE a.uuid IN $uuids "
            "WITH collect(DISTINCT r1.uuid) AS near, collect(DISTINCT b) AS around "
            "UNWIND around AS b MATCH (b)-[r2:RELATES_TO]-(:Entity) "
            "WITH near, collect(DISTINCT r2.uuid) AS far "
            "UNWIND near + [x IN far WHERE NOT x IN near] AS uuid "
            "RETURN uuid, CASE WHEN uuid IN near THEN 1 ELSE 2 END AS distance LIMIT $limit"
        )
    return Query(cypher, {"uuids": list(entity_uuids), "limit": int(limit)})


def episodes_mentioning(entity_uuids: Sequence[str], limit: int) -> Query:
    return Query(
        "MATCH (e:Episodic)-[:MENTIONS]->(n:Entity) WHERE n.uuid IN $uuids "
        "WITH e, count(n) AS hits ORDER BY hits DESC, e.valid_at DESC LIMIT $limit RETURN e.uuid AS uuid, hits",
        {"uuids": list(entity_uuids), "limit": int(limit)},
    )


def episodes_by_uuid(uuids: Sequence[str]) -> Query:
    return Query(
        "MATCH (e:Episodic) WHERE e.uuid IN $uuids RETURN e.uuid AS uuid, e.name AS turn_id, "
        "e.valid_at AS session_time, e.speaker AS speaker, e.content AS content, e.created_at AS created_at",
        {"uuids": list(uuids)},
    )


def episode_neighbours(uuids: Sequence[str]) -> Query:
    return Query(
        "MATCH (a:Episodic)-[:NEXT_EPISODE]-(b:Episodic) WHERE a.uuid IN $uuids RETURN a.uuid AS of, b.uuid AS uuid",
        {"uuids": list(uuids)},
    )


def touch_facts(uuids: Sequence[str], when: datetime) -> Query:
    """Access statistics for decay: one more hit, last accessed now."""
    return Query(
        "UNWIND $uuids AS u MATCH ()-[r:RELATES_TO {uuid: u}]->() "
        "SET r.access_count = coalesce(r.access_count, 0) + 1, r.last_accessed_at = $at",
        {"uuids": list(uuids), "at": t.encode(when)},
    )


def rebuild_summaries(entity_uuids: Sequence[str] | None = None, now: datetime | None = None) -> Query:
    """Summary = up to five current facts the entity is the subject of, rebuilt
    from what the graph holds now (after a write, a deletion or a purge).

    Closed facts and facts whose expiry (`expires_at`) has passed at `now`
    (default: the wall clock) are left out: expired text must not live on in a
    summary after the fact itself left search or was purged."""
    where = "WHERE n.uuid IN $u " if entity_uuids is not None else ""
    return Query(
        f"MATCH (n:Entity) {where}OPTIONAL MATCH (n)-[r:RELATES_TO]->() WHERE r.expired_at IS NULL "
        "AND (r.expires_at IS NULL OR toString(r.expires_at) > $now) "
        "WITH n, collect(r.fact)[0..5] AS facts SET n.summary = reduce(s = '', f IN facts | "
        "CASE WHEN s = '' THEN f ELSE s + ' ' + f END)",
        {"u": list(entity_uuids or []), "now": t.encode(now or t.now_utc())},
    )


def active_facts() -> Query:
    """Facts that count against the capacity: not archived, not expired."""
    return Query(
        "MATCH ()-[r:RELATES_TO]->() WHERE r.archived_at IS NULL AND r.expired_at IS NULL "
        "RETURN r.uuid AS uuid, coalesce(r.importance, 0.5) AS importance, coalesce(r.access_count, 0) AS access_count, "
        "r.last_accessed_at AS last_accessed_at, r.created_at AS created_at",
        {},
    )


def set_archived(uuids: Sequence[str], when: datetime | None) -> Query:
    """Archive (when set) or restore (None): archived facts stay, out of search."""
    return Query(
        "UNWIND $u AS x MATCH ()-[r:RELATES_TO {uuid: x}]->() SET r.archived_at = $at RETURN r.uuid AS uuid",
        {"u": list(uuids), "at": t.encode(when)},
    )
