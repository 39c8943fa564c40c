"""Cypher for entities, their aliases, mentions and summaries."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from graphmem.schema import time as t
from graphmem.schema.models import EntityNode, new_uuid

from graphmem.graph.cypher.query import Query, vector as vector_param, vector_rows


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
            "embedding": vector_param(embedding),
        },
    )


def find_entity(name_or_uuid: str, normalized: str) -> Query:
    return Query(
        "MATCH (n:Entity) WHERE n.uuid = $value OR n.normalized_name = $key "
        "RETURN n.uuid AS uuid, n.name AS name LIMIT 1",
        {"value": name_or_uuid, "key": normalized},
    )


def entity_names(uuids: Sequence[str]) -> Query:
    """The stored name of each entity, by uuid."""
    return Query("UNWIND $uuids AS u MATCH (n:Entity {uuid: u}) RETURN n.uuid AS uuid, n.name AS name",
                 {"uuids": list(uuids)})


def packet_entities(entity_uuids: Sequence[str], fact_uuids: Sequence[str], now: datetime,
                    scopes: Sequence[str] = ("user",), *, turns: bool = True) -> Query:
    """Entities by uuid plus the subjects and objects of the given facts, each with
    up to five facts it is the subject of that hold at `now` and are still in
    search (not expired, not archived, not past `expires_at`) in one of `scopes`,
    and how many such facts or mentioning turns of those scopes it has. The stored summary
    is not used: it keeps facts whose `expires_at` has passed, which search must
    not show. Unlabelled endpoints for the reason in `facts_by_uuid`. The ids are
    unwound and matched one by one: ``n.uuid IN ids`` over a computed list is not
    an index lookup, FalkorDB scanned every Entity (~1 ms of the server's time at
    1,118 entities, growing with them). `turns=False` (the searched scopes hold no
    turn) counts no mentions: none can exist, and the traversal cost the server
    ~0.25 ms per search on a facts-only graph."""
    live = (f"{t.current_cypher('f')} AND f.archived_at IS NULL AND "
            f"(toString(f.expires_at) IS NULL OR toString(f.expires_at) > $now) AND {t.true_at_cypher('f', 'now')} "
            "AND coalesce(f.scope, 'user') IN $scopes")
    return Query(
        "OPTIONAL MATCH (s)-[r:RELATES_TO]->(o) WHERE r.uuid IN $facts "
        "WITH collect(s.uuid) + collect(o.uuid) + $entities AS ids "
        "UNWIND ids AS id WITH DISTINCT id MATCH (n:Entity {uuid: id}) "
        f"OPTIONAL MATCH (n)-[f:RELATES_TO]->() WHERE {live} "
        "WITH n, collect(f.fact)[0..5] AS facts "
        + ("OPTIONAL MATCH (e:Episodic)-[:MENTIONS]->(n) WHERE coalesce(e.scope, 'user') IN $scopes "
           "WITH n, facts, count(e) AS mentioned " if turns else "WITH n, facts, 0 AS mentioned ")
        + "RETURN n.uuid AS uuid, n.name AS name, n.created_at AS created_at, facts, mentioned",
        {"entities": list(entity_uuids), "facts": list(fact_uuids), "now": t.encode(now), "scopes": list(scopes)},
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
        {"k": int(k), "v": vector_param(vector)},
    )


def nearest_entity_each(vectors: Sequence[Sequence[float]]) -> Query:
    """The closest entity to each vector, in one round trip: rows carry `i`, the
    vector's index (no row for an index when the graph has no entity yet)."""
    return Query(
        "UNWIND range(0, size($vs) - 1) AS i "
        "CALL db.idx.vector.queryNodes('Entity', 'name_embedding', 1, vecf32($vs[i])) YIELD node, score "
        "RETURN i, node.uuid AS uuid, node.name AS name, 1.0 - score AS similarity",
        {"vs": [vector_param(v) for v in vectors]},
    )


def create_entities(rows: Sequence[dict[str, Any]]) -> Query:
    """rows: {key, props, embedding}; MERGE on the normalised name."""
    return Query(
        "UNWIND $rows AS row MERGE (n:Entity {group_id: row.props.group_id, normalized_name: row.key}) "
        "ON CREATE SET n += row.props, n.name_embedding = vecf32(row.embedding) "
        "RETURN n.uuid AS uuid, row.key AS key",
        {"rows": vector_rows(rows)},
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


def entity_keys() -> Query:
    return Query(
        "MATCH (n:Entity) RETURN n.uuid AS uuid, n.normalized_name AS key, coalesce(n.aliases, []) AS aliases, "
        "n.name AS name", {}
    )


def rebuild_summaries(entity_uuids: Sequence[str] | None = None, now: datetime | None = None) -> Query:
    """Summary = up to five current facts the entity is the subject of, rebuilt
    from what the graph holds now (after a write, a deletion or a purge).

    Closed facts and facts whose expiry (`expires_at`) has passed at `now`
    (default: the wall clock) are left out: expired text must not live on in a
    summary after the fact itself left search or was purged.

    Only a summary that changes is written: FalkorDB re-inserts a node into the
    vector index (its name's vector) on every SET, even of the same value, and a
    write rebuilds the summary of every entity it mentions, the speakers' each time."""
    where = "WHERE n.uuid IN $u " if entity_uuids is not None else ""
    return Query(
        f"MATCH (n:Entity) {where}OPTIONAL MATCH (n)-[r:RELATES_TO]->() WHERE r.expired_at IS NULL "
        "AND (r.expires_at IS NULL OR toString(r.expires_at) > $now) "
        "WITH n, collect(r.fact)[0..5] AS facts "
        "WITH n, reduce(s = '', f IN facts | CASE WHEN s = '' THEN f ELSE s + ' ' + f END) AS summary "
        "WHERE n.summary IS NULL OR n.summary <> summary SET n.summary = summary",
        {"u": list(entity_uuids or []), "now": t.encode(now or t.now_utc())},
    )


def entities_by_key(keys: Sequence[str]) -> Query:
    """Entities whose normalised name is one of `keys` (what `merge_entity` matches on; no aliases)."""
    return Query(
        "MATCH (n:Entity) WHERE n.normalized_name IN $keys RETURN n.uuid AS uuid, n.normalized_name AS key",
        {"keys": list(keys)},
    )


def delete_all_mentions() -> Query:
    return Query("MATCH (:Episodic)-[m:MENTIONS]->(:Entity) DELETE m RETURN count(m) AS n", {})


def delete_factless_entities() -> Query:
    """Entities no fact touches any more (a rebuild re-creates the ones the turns name)."""
    return Query("MATCH (n:Entity) WHERE NOT (n)-[:RELATES_TO]-() DETACH DELETE n RETURN count(n) AS n", {})
