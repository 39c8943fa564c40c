"""Read-only Cypher builders for `graphmem.graph.inspect`: raw rows, no embeddings.

Pure functions returning a `Query`; every user-influenced value is a parameter.
"""

from __future__ import annotations

from datetime import datetime

from graphmem.graph.cypher import FACT_VIEW, Query
from graphmem.schema import time as t


def entities() -> Query:
    return Query(
        "MATCH (n:Entity) RETURN n.uuid AS uuid, n.name AS name, n.normalized_name AS normalized_name, "
        "coalesce(n.aliases, []) AS aliases, coalesce(n.summary, '') AS summary, n.entity_type AS entity_type, "
        "n.created_at AS created_at ORDER BY n.name, n.uuid",
        {},
    )


def facts(include_expired: bool) -> Query:
    """Every fact edge; without `include_expired`, only those not closed, expired or archived."""
    where = "" if include_expired else (
        "WHERE r.expired_at IS NULL AND r.archived_at IS NULL AND r.expires_at IS NULL "
    )
    return Query(
        f"MATCH (s:Entity)-[r:RELATES_TO]->(o:Entity) {where}"
        "RETURN r.uuid AS uuid, s.name AS subject, r.name AS predicate, o.name AS object, r.fact AS fact, "
        "r.valid_at AS valid_at, r.invalid_at AS invalid_at, r.created_at AS created_at, "
        "r.expired_at AS expired_at, r.expires_at AS expires_at, r.archived_at AS archived_at, "
        "coalesce(r.episodes, []) AS episodes, coalesce(r.derived_from, []) AS derived_from "
        "ORDER BY r.created_at, r.uuid",
        {},
    )


def fact_versions(known_at: datetime | None) -> Query:
    """Every version of every fact as known at `known_at` (None = now): recorded
    by then and not retracted by then (the `facts_at` rules without a valid time)."""
    if known_at is None:
        return Query(
            "MATCH (s:Entity)-[r:RELATES_TO]->(o:Entity) "
            "WHERE NOT (toString(r.expired_at) IS NOT NULL AND r.invalidated_by IS NULL) "
            f"RETURN {FACT_VIEW} ORDER BY r.valid_at, r.created_at, r.uuid",
            {},
        )
    return Query(
        f"MATCH (s:Entity)-[r:RELATES_TO]->(o:Entity) WHERE {t.known_at_cypher('r', 'k')} "
        f"RETURN {FACT_VIEW} ORDER BY r.valid_at, r.created_at, r.uuid",
        {"k": t.encode(known_at)},
    )


def episodes() -> Query:
    return Query(
        "MATCH (e:Episodic) RETURN e.uuid AS uuid, e.name AS turn_id, e.session_id AS session_id, "
        "e.speaker AS speaker, e.content AS content, e.valid_at AS valid_at, e.turn_index AS turn_index, "
        "coalesce(e.scope, 'user') AS scope ORDER BY e.valid_at, e.turn_index, e.uuid",
        {},
    )


def mentions() -> Query:
    return Query(
        "MATCH (e:Episodic)-[m:MENTIONS]->(n:Entity) RETURN m.uuid AS uuid, e.uuid AS episode, "
        "e.name AS turn_id, n.uuid AS entity, n.name AS entity_name ORDER BY e.name, n.name",
        {},
    )


def counts() -> Query:
    return Query(
        "OPTIONAL MATCH (n:Entity) WITH count(n) AS entities "
        "OPTIONAL MATCH (e:Episodic) WITH entities, count(e) AS episodes "
        "OPTIONAL MATCH ()-[r:RELATES_TO]->() WITH entities, episodes, count(r) AS facts "
        "OPTIONAL MATCH ()-[m:MENTIONS]->() WITH entities, episodes, facts, count(m) AS mentions "
        "OPTIONAL MATCH ()-[l:NEXT_EPISODE]->() RETURN entities, episodes, facts, mentions, count(l) AS episode_links",
        {},
    )


def all_nodes() -> Query:
    return Query("MATCH (n) RETURN labels(n)[0] AS label, n.uuid AS uuid, properties(n) AS props", {})


def all_edges() -> Query:
    return Query("MATCH ()-[r]->() RETURN type(r) AS label, r.uuid AS uuid, properties(r) AS props", {})
